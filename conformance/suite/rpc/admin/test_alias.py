"""admin.alias: the aliased API answers at /ext/<alias> as at its original path, which keeps working; 512 characters
at most."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance import specs
from conformance.checks import independently
from conformance.checks.admin import answers_for_chain, chain_facts, empty_object
from conformance.checks.envelope import expect_refusal, result_of
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.strategies import boundary_values

ALIAS_SCHEMA = specs.rpc_method("admin", "admin.alias")["params"][1]["schema"]
MAX_ALIAS = ALIAS_SCHEMA["maxLength"]

pytestmark = pytest.mark.mutating


@pytest.mark.rule("RPC-ADM-002", "RPC-ADM-003", "RPC-ADM-004")
def test_alias_serves_the_api_at_both_paths(admin_api: JsonRpcClient, evm_chain: str, fresh_alias: str,
                                            rpc_at: Callable[[str], JsonRpcClient]) -> None:
    """After admin.alias the API answers at /ext/<alias> as at its original path, where it still answers."""
    endpoint = f"bc/{evm_chain}/rpc"
    original = rpc_at(f"/ext/{endpoint}")
    chain = chain_facts(original)
    empty_object(admin_api.call("admin.alias", {"endpoint": endpoint, "alias": fresh_alias}), "RPC-ADM-002",
                 "admin.alias")
    # Whether the alias answers and whether the original path still does are two facts: each is decided.
    with independently():
        answers_for_chain(rpc_at(f"/ext/{fresh_alias}"), chain, "RPC-ADM-003", f"/ext/{fresh_alias}")
    answers_for_chain(original, chain, "RPC-ADM-004", f"/ext/{endpoint}")


#: Alias lengths at the documented maximum, one inside it and one beyond it, each with the rule deciding it there.
LENGTHS = [pytest.param(size, marks=pytest.mark.rule("RPC-ADM-005" if accepted else "RPC-ADM-006"), id=str(size))
           for size, accepted in boundary_values(ALIAS_SCHEMA, api="admin")]


@pytest.mark.parametrize("size", LENGTHS)
def test_alias_length_at_the_maximum(admin_api: JsonRpcClient, evm_chain: str, fresh_alias: str, size: int) -> None:
    """admin.alias accepts an alias of the documented maximum length (512 characters) and one shorter, and rejects
    one character more."""
    alias = fresh_alias.ljust(size, "a")
    exchange = admin_api.call("admin.alias", {"endpoint": f"bc/{evm_chain}/rpc", "alias": alias})
    if size <= MAX_ALIAS:  # accepted: answered with a result (that the result is {} is RPC-ADM-002's)
        result_of(exchange, "RPC-ADM-005", f"admin.alias with a {size}-character alias")
    else:
        expect_refusal(exchange, "RPC-ADM-006", f"admin.alias with a {size}-character alias")
