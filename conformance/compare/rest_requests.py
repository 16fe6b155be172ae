"""The REST APIs' read-only requests: the Data API and the Metrics API, anchored before both endpoints' latest."""
from __future__ import annotations

from functools import partial
from typing import Any
from collections.abc import Mapping

from conformance import specs
from conformance.checks import data as data_spec
from conformance.checks.timeseries import period_start, shift_periods
from conformance.compare.normalize import Outcome
from conformance.compare.requests_plan import Plan, PlanContext, Request, Then, oldest_first, paged, uint

#: Periods of each metrics window: enough points to compare, all of them final.
WINDOW_PERIODS = {"hour": 24, "day": 14, "week": 8, "month": 6}


# Data API ---------------------------------------------------------------------------------------------------

def data(operation_id: str, ctx: PlanContext, query: Mapping[str, Any] | None = None, *, body: Any = None,
         head: bool = False, then: Then | None = None, **path: str) -> Request:
    """A Data API request by operationId; path parameters default to the context's identifiers."""
    op = data_spec.operation(operation_id)
    values = {"network": ctx.sample("data_network") or "mainnet", **path}
    return Request("data", operation_id, op.template.format(**values), dict(query or {}), body, op.method,
                   head=head, then=then)


def _chain(ctx: PlanContext, letter: str) -> str:
    return ctx.sample(f"data_{letter}_chain_id") or f"{letter}-chain"


def data_api(ctx: PlanContext, plan: Plan) -> None:
    """Primary network lists read oldest first or before a head, refusals of the documented bounds, EVM routes."""
    p_chain = _chain(ctx, "p")
    plan.requests += [
        oldest_first(data("listBlockchains", ctx, {"sortOrder": "asc"})),
        data("listBlockchains", ctx, {"pageSize": data_spec.page_size_limits("listBlockchains")[1] + 1}),
        data("listValidators", ctx, head=True, then=partial(_by_node, ctx)),
        data("listTransactions", ctx, head=True, then=partial(_by_address, ctx), blockchainId=p_chain),
        data("listVerticesByHeight", ctx, {"vertexHeight": int(ctx.sample("data_vertex_height") or 0)},
             blockchainId=_chain(ctx, "x")),
    ]
    if validation := ctx.sample("data_l1_validation_id"):
        query = {"l1ValidationId": validation, "sortOrder": "asc"}
        plan.requests.append(oldest_first(data("listTransactions", ctx, query, blockchainId=p_chain)))
    evm_data_requests(ctx, plan)


def _by_node(ctx: PlanContext, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """A node's completed validations (final), and the blocks it proposed before both endpoints' latest."""
    nodes = [v.get("nodeId") for v in data_spec.items_of("listValidators", baseline.value)
             if isinstance(v, dict)] if baseline.ok else []
    node = next((n for n in nodes if isinstance(n, str)), None)
    out = []
    if node:
        query = {"validationStatus": "completed", "sortOrder": "asc"}
        out.append(oldest_first(data("getValidatorsByNode", ctx, query, nodeId=node)))
    if proposer := ctx.sample("data_block_node_id") or node:
        chain = _chain(ctx, "p")
        out.append(data("listBlocksByNode", ctx, head=True, then=partial(_blocks_before, ctx, chain, proposer),
                        blockchainId=chain, nodeId=proposer))
    return out


def _blocks_before(ctx: PlanContext, chain: str, node: str, baseline: Outcome, candidate: Outcome) -> list[Request]:
    oldest = _lowest(baseline, candidate, "listBlocksByNode", "blockTimestamp")
    return [] if oldest is None else [paged(data("listBlocksByNode", ctx, {"endTimestamp": oldest},
                                                 blockchainId=chain, nodeId=node))]


def _by_address(ctx: PlanContext, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """The oldest transactions and UTXOs of an address (given, else found in the baseline's latest transactions)."""
    address = ctx.sample("data_p_chain_address") or _some_address(baseline)
    if not address:
        return []
    chain = _chain(ctx, "p")
    return [oldest_first(data("listTransactions", ctx, {"addresses": address, "sortOrder": "asc"},
                              blockchainId=chain)),
            # includeSpent keeps a UTXO spent between the two calls in both lists.
            oldest_first(data("listUtxos", ctx, {"sortOrder": "asc", "includeSpent": True},
                              body={"addresses": address}, blockchainId=chain))]


def _some_address(outcome: Outcome) -> str | None:
    for tx in data_spec.items_of("listTransactions", outcome.value) if outcome.ok else []:
        for utxo in (tx.get("emittedUtxos") or []) if isinstance(tx, dict) else []:
            addresses = utxo.get("addresses") if isinstance(utxo, dict) else None
            if isinstance(addresses, list) and addresses and isinstance(addresses[0], str):
                return addresses[0]
    return None


def _lowest(baseline: Outcome, candidate: Outcome, operation_id: str, member: str) -> int | None:
    """The lowest `member` (a block number or time) among the items of both answers: below both heads."""
    if not (baseline.ok and candidate.ok):
        return None
    found = []
    for outcome in (baseline, candidate):
        read = [_integer(item.get(member)) for item in data_spec.items_of(operation_id, outcome.value)
                if isinstance(item, dict)]
        values = [v for v in read if v is not None]
        if not values:
            return None
        found.append(min(values))
    return min(found)


def _integer(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


def evm_data_requests(ctx: PlanContext, plan: Plan) -> None:
    """The EVM routes: transfers before a block both latest pages hold, balances at that block, and the
    latest transfers and balances by shape."""
    chain = ctx.sample("data_evm_chain_id") or ctx.evm_chain
    if not chain:
        plan.notes.append("data: EVM routes not compared: " + ctx.why(
            "data_evm_chain_id", "without --evm-chain or --sample data_evm_chain_id=ID"))
        return
    wallet, token = ctx.sample("data_evm_address"), ctx.sample("data_erc20_contract")
    if contract := ctx.sample("data_contract_address"):
        plan.requests.append(data("getDeployment", ctx, chainId=chain, address=contract))
    else:
        plan.notes.append("data: getDeployment not compared: " + ctx.why(
            "data_contract_address", "without --sample data_contract_address=0x…"))
    anchored_balances = bool(wallet)
    for operation_id, address in (("listTokenTransfers", token), ("listErc721Transactions", wallet),
                                  ("listErc1155Transactions", wallet)):
        if not address:
            continue
        plan.requests.append(data(operation_id, ctx, head=True, chainId=chain, address=address,
                                  then=partial(_transfers_below, ctx, operation_id, chain, address,
                                               wallet if anchored_balances else None)))
        anchored_balances = False
    if not token:
        plan.notes.append("data: listTokenTransfers not compared: " + ctx.why(
            "data_erc20_contract", "without --sample data_erc20_contract=0x…"))
    if not wallet:
        plan.notes.append("data: balances and NFT transfers not compared: " + ctx.why(
            "data_evm_address", "without --sample data_evm_address=0x…"))
        return
    plan.requests += [data(operation_id, ctx, head=True, chainId=chain, address=wallet)
                      for operation_id in ("listErc20Balances", "listErc1155Balances", "listErc721Balances",
                                           "getNativeBalance")]


def _transfers_below(ctx: PlanContext, operation_id: str, chain: str, address: str, wallet: str | None,
                     baseline: Outcome, candidate: Outcome) -> list[Request]:
    """Transfers before the oldest block of both latest pages, and (once) the balances at that block."""
    block = _lowest(baseline, candidate, operation_id, "blockNumber")
    if block is None:
        return []
    out = [paged(data(operation_id, ctx, {"endBlock": block}, chainId=chain, address=address))]
    if wallet:
        out += [data(op, ctx, {"blockNumber": str(block)}, chainId=chain, address=wallet)
                for op in ("listErc20Balances", "listErc1155Balances", "getNativeBalance")]
    return out


# Metrics API ------------------------------------------------------------------------------------------------

METRIC_ROUTE = "/v2/chains/{chainId}/metrics/{metric}"


def _metrics_operation() -> dict[str, Any]:
    return specs.openapi("metrics")["paths"][METRIC_ROUTE]["get"]


def metric_intervals() -> dict[str, tuple[str, ...]]:
    """Metric name -> the intervals it is served at, from x-metric-intervals."""
    return {name: tuple(i) for name, i in _metrics_operation()["x-metric-intervals"].items()}


def metric_page_size_max() -> int:
    document = specs.openapi("metrics")
    for parameter in _metrics_operation()["parameters"]:
        resolved = specs.resolve(document, parameter)
        if resolved["name"] == "pageSize":
            return int(specs.resolve(document, resolved["schema"])["maximum"])
    raise KeyError("pageSize is not a parameter of the metric route")


def metric(chain: str, name: str, query: Mapping[str, Any] | None = None, *, head: bool = False,
           then: Then | None = None) -> Request:
    return Request("metrics", "getMetric", f"/v2/chains/{chain}/metrics/{name}", dict(query or {}), method="GET",
                   head=head, then=then)


def metrics_api(ctx: PlanContext, plan: Plan) -> None:
    """The latest txCount points (a head) anchor closed windows of every metric; refusals; the average TPS."""
    evm_chain_id = ctx.sample("evm_chain_id")
    chains = ["total"] + ([evm_chain_id] if evm_chain_id else [])
    plan.requests += [
        metric("total", "txCount", {"timeInterval": "day", "pageSize": 3}, head=True,
               then=partial(_windows, chains)),
        metric("total", "txCount", {"pageSize": metric_page_size_max() + 1}),
        metric("total", "noSuchMetric"),
        metric("total", "cumulativeTxCount", {"timeInterval": "hour"}),
        Request("metrics", "getAvgTps", f"/v1/avg_tps/{evm_chain_id or 'total'}", {}, method="GET"),
    ]
    if not evm_chain_id:
        plan.notes.append("metrics: only chain total compared: " + ctx.why(
            "evm_chain_id", "without --sample evm_chain_id=ID"))


def _windows(chains: list[str], baseline: Outcome, candidate: Outcome) -> list[Request]:
    """Metrics in windows that closed before both endpoints' latest day (so every point is final): every
    metric at each of its intervals for the first chain, at a day and txCount at each interval for the others."""
    latest = []
    for outcome in (baseline, candidate):
        points = outcome.value.get("results") if outcome.ok and isinstance(outcome.value, dict) else None
        read = [p.get("timestamp") for p in points or [] if isinstance(p, dict)]
        stamps = [s for s in read if uint(s)]
        if not stamps:
            return []
        latest.append(max(stamps))
    anchor = min(latest)
    out = []
    for chain in chains:
        for name, intervals in metric_intervals().items():
            every = chain == chains[0] or name == "txCount"
            for interval in intervals if every else [i for i in intervals if i == "day"] or intervals[:1]:
                end = shift_periods(period_start(anchor, interval), interval, -1)
                start = shift_periods(end, interval, -WINDOW_PERIODS[interval])
                out.append(metric(chain, name, {"timeInterval": interval, "startTimestamp": start,
                                                "endTimestamp": end}))
    # The same closed window in small pages: the pages, and whether each has a next one, must agree too.
    end = shift_periods(period_start(anchor, "day"), "day", -1)
    start = shift_periods(end, "day", -WINDOW_PERIODS["day"])
    out.append(paged(metric(chains[0], "txCount", {"timeInterval": "day", "startTimestamp": start,
                                                    "endTimestamp": end, "pageSize": WINDOW_PERIODS["day"] // 2})))
    return out
