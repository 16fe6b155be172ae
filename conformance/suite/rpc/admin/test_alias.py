"""admin.alias: the aliased API answers at /ext/<alias>, the original path keeps working, 512 characters at most."""
from __future__ import annotations

from typing import Callable

import pytest

from conformance import specs
from conformance.checks import independently
from conformance.checks.admin import answers_for_chain, empty_object
from conformance.checks.envelope import expect_refusal
from conformance.checks.eth import peek
from conformance.clients.jsonrpc import JsonRpcClient

MAX_ALIAS = specs.rpc_method("admin", "admin.alias")["params"][1]["schema"]["maxLength"]

pytestmark = pytest.mark.mutating


@pytest.mark.rule("RPC-ADM-002", "RPC-ADM-003", "RPC-ADM-004")
def test_alias_serves_the_api_at_both_paths(admin_api: JsonRpcClient, evm_chain: str, fresh_alias: str,
                                            rpc_at: Callable[[str], JsonRpcClient]) -> None:
    """After admin.alias the API answers at /ext/<alias> as at its original path, where it still answers."""
    endpoint = f"bc/{evm_chain}/rpc"
    original = rpc_at(f"/ext/{endpoint}")
    chain = peek(original, "eth_chainId", [])
    empty_object(admin_api.call("admin.alias", {"endpoint": endpoint, "alias": fresh_alias}), "RPC-ADM-002",
                 "admin.alias")
    # Whether the alias answers and whether the original path still does are two facts: each is decided.
    with independently():
        answers_for_chain(rpc_at(f"/ext/{fresh_alias}"), chain, "RPC-ADM-003", f"/ext/{fresh_alias}")
    answers_for_chain(original, chain, "RPC-ADM-004", f"/ext/{endpoint}")


@pytest.mark.rule("RPC-ADM-005")
def test_alias_of_maximum_length_is_accepted(admin_api: JsonRpcClient, evm_chain: str, fresh_alias: str) -> None:
    """admin.alias accepts an alias of exactly the documented maximum length (512 characters)."""
    alias = fresh_alias.ljust(MAX_ALIAS, "a")
    empty_object(admin_api.call("admin.alias", {"endpoint": f"bc/{evm_chain}/rpc", "alias": alias}), "RPC-ADM-005",
                 f"admin.alias with a {len(alias)}-character alias")


@pytest.mark.rule("RPC-ADM-006")
def test_alias_above_maximum_length_is_rejected(admin_api: JsonRpcClient, evm_chain: str, fresh_alias: str) -> None:
    """admin.alias rejects an alias one character above the documented maximum (513 characters)."""
    alias = fresh_alias.ljust(MAX_ALIAS + 1, "a")
    expect_refusal(admin_api.call("admin.alias", {"endpoint": f"bc/{evm_chain}/rpc", "alias": alias}),
                   "RPC-ADM-006", f"admin.alias with a {len(alias)}-character alias")
