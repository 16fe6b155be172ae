"""admin.aliasChain and admin.getChainAliases: a chain alias serves in place of the blockchain ID and is listed."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.checks import check, independently
from conformance.checks.admin import (answers_for_chain, answers_validators_alike, chain_aliases, chain_facts,
                                     empty_object)
from conformance.clients.jsonrpc import JsonRpcClient


@pytest.mark.rule("RPC-ADM-009")
def test_chain_aliases_are_strings(admin_api: JsonRpcClient, blockchain_id: str) -> None:
    """admin.getChainAliases returns aliases as an array of strings."""
    chain_aliases(admin_api, blockchain_id, "RPC-ADM-009")


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-007", "RPC-ADM-008", "RPC-ADM-010")
def test_chain_alias_serves_and_is_listed(admin_api: JsonRpcClient, blockchain_id: str, fresh_alias: str,
                                          rpc_at: Callable[[str], JsonRpcClient]) -> None:
    """admin.aliasChain returns {}; /ext/bc/<alias>/rpc and /validators then serve that chain as its blockchain
    ID's paths do, and getChainAliases lists the alias."""
    chain = chain_facts(rpc_at(f"/ext/bc/{blockchain_id}/rpc"))
    empty_object(admin_api.call("admin.aliasChain", {"chain": blockchain_id, "alias": fresh_alias}), "RPC-ADM-007",
                 "admin.aliasChain")
    with independently():  # whether the alias is listed is decided whether or not it serves
        answers_for_chain(rpc_at(f"/ext/bc/{fresh_alias}/rpc"), chain, "RPC-ADM-008",
                          f"/ext/bc/{fresh_alias}/rpc")
        # "wherever the blockchain ID is used": the chain's other API answers under the alias as well
        answers_validators_alike(rpc_at(f"/ext/bc/{fresh_alias}/validators"),
                                 rpc_at(f"/ext/bc/{blockchain_id}/validators"), "RPC-ADM-008",
                                 f"/ext/bc/{fresh_alias}/validators")
    aliases = chain_aliases(admin_api, blockchain_id, "RPC-ADM-010")
    check(fresh_alias in aliases, "RPC-ADM-010", "admin.getChainAliases does not list the alias just added",
          expected=f"aliases including {fresh_alias!r}", received=aliases, exchange=admin_api.http.last)
