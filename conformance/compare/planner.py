"""The plan of a comparison: the first requests of each API, from the node's and the REST APIs' builders."""
from __future__ import annotations

from conformance.compare import node_requests, rest_requests
from conformance.compare.requests_plan import Plan, PlanContext


def build(ctx: PlanContext) -> Plan:
    """The first requests of each API in `ctx.apis`; their answers add the anchored ones."""
    builders = {"admin": node_requests.admin, "index": node_requests.index, "evm": node_requests.evm,
                "validators": node_requests.validators, "data": rest_requests.data_api,
                "metrics": rest_requests.metrics_api}
    plan = Plan([], [])
    for api in ctx.apis:
        # The validators API lives under the chain's path; the evm API too, unless each endpoint has its RPC URL.
        if not ctx.evm_chain and (api == "validators" or api == "evm" and not ctx.evm_rpc_urls):
            plan.notes.append(f"{api}: nothing to ask: "
                              + ctx.why("evm_chain", "no EVM chain given (pass --evm-chain BLOCKCHAIN_ID_OR_ALIAS)"))
            continue
        builders[api](ctx, plan)
    return plan
