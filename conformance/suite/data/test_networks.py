"""Networks and chains do not mix: a route answers for the network and the chain its path names.

Each check reads answers other tests asked for (the network enumeration's listings, the routes' default
requests) wherever it can, so it costs few requests of its own.
"""
from __future__ import annotations

from typing import Any

import pytest

from conformance import evidence
from conformance.checks import check, data as checks
from conformance.suite.data.conftest import ALIASES, ROUTE_CHAIN, DataApi, variant

CHAIN_INFO_ROUTES = ("listTransactions", "listUtxos", "listVerticesByHeight", "listBlocksByNode")
BALANCE_ROUTES = ("getNativeBalance", "listErc20Balances", "listErc1155Balances", "listErc721Balances")


def other_network(network: str) -> str:
    """The network other than `network` ("fuji" for the test network; they are one network)."""
    return "fuji" if checks.same_network(network, "mainnet") else "mainnet"


def another_network(one: set[str], other: set[str]) -> bool:
    """Whether two answers that name the same network share nothing: one of them is another network's (answers of
    one network read a moment apart, on a live chain, share most of their items)."""
    return bool(one and other and not one & other)


def primary_chains(data: DataApi) -> set[str]:
    """The primary network's own chain IDs on either network: one network's P-Chain ID may be the other's."""
    return {chain for network in ("mainnet", "testnet") for chain in checks.well_known_chain_ids(network).values()}


@pytest.mark.rule("DATA-REL-004")
def test_networks_list_their_own_blockchains(data: DataApi) -> None:
    """listBlockchains on mainnet and on the test network name no blockchain in common, the primary network's
    chains aside."""
    primary = primary_chains(data)

    def chains(network: str) -> tuple[Any, set[str]]:
        # the route's default request on each network: the network enumeration test sends the same ones, and
        # decides whether each network is served (DATA-ENUM-002)
        exchange = data.once("listBlockchains", network=network)
        checks.unavailable(exchange)
        body = checks.answered(exchange)
        if body is None:
            pytest.skip(f"listBlockchains on {network} is not served (DATA-ENUM-002 reports it)")
        return exchange, {c["blockchainId"] for c in checks.items_of("listBlockchains", body) if isinstance(c, dict)
                          and isinstance(c.get("blockchainId"), str) and c["blockchainId"] not in primary
                          and c.get("subnetId") not in primary}
    exchange, here = chains(data.network)
    if checks.same_network(data.network, "mainnet"):
        # fuji and testnet are one network: where their listings differ, one of them is another network's, and
        # that is DATA-SEM-001's deviation, not a mix of the two networks in one listing
        _, fuji = chains("fuji")
        _, there = chains("testnet")
        if another_network(fuji, there):
            evidence.blocked_by("DATA-SEM-001")
            pytest.skip("blocked by DATA-SEM-001: fuji and testnet list different blockchains")
    else:
        _, there = chains("mainnet")
    shared = sorted(here & there)
    check(not shared, "DATA-REL-004", f"listBlockchains on {data.network} names blockchains of "
          f"{other_network(data.network)} too", expected="each network's own blockchains",
          received=f"{len(shared)} blockchains on both, e.g. {shared[:3]}", exchange=exchange)


def chain_info_cases() -> list[Any]:
    """The route's default request on the samples' network and listTransactions on the other network (quick), the
    other routes' default requests (exhaustive)."""
    cases = [variant(op, False, quick=op == "listTransactions", id=f"{op}-samples-network") for op in CHAIN_INFO_ROUTES]
    return cases + [variant("listTransactions", True, quick=True, id="listTransactions-other-network")]


@pytest.mark.rule("DATA-REL-005")
@pytest.mark.parametrize(("operation_id", "other"), chain_info_cases())
def test_chain_info_names_the_network(data: DataApi, operation_id: str, other: bool) -> None:
    """The network member of chainInfo names the network in the path (fuji and testnet name the same one); a value
    outside the documented network names is not judged."""
    if other:
        network = other_network(data.network)
        # the alias: chain IDs are not shared between networks
        alias = ALIASES[ROUTE_CHAIN[operation_id]]
        exchange = data.once(operation_id, network=network, blockchainId=alias)
        if network == "fuji":   # one network under two names: answers of two networks are DATA-SEM-001's deviation
            twin = data.once(operation_id, network="testnet", blockchainId=alias)
            if another_network(*({checks.identity(operation_id, i) for i in checks.items_of(operation_id,
                                                                                             checks.answered(answer))}
                                  for answer in (exchange, twin))):
                evidence.blocked_by("DATA-SEM-001")
                pytest.skip("blocked by DATA-SEM-001: fuji and testnet answer for different networks")
    else:
        network, exchange = data.network, data.first(operation_id)
    body = checks.input_of(exchange, f"{operation_id} on {network}")
    info = body.get("chainInfo") if isinstance(body, dict) else None
    named = info.get("network") if isinstance(info, dict) else None
    if not isinstance(named, str) or named.lower() not in checks.NETWORKS:
        pytest.skip(f"the {operation_id} answer's chainInfo names no documented network ({named!r})")
    check(checks.same_network(named.lower(), network), "DATA-REL-005",
          f"chainInfo of a {network} answer names another network", expected=f"chainInfo.network {network}",
          received=f"chainInfo.network {named!r}", exchange=exchange)


def known_chain_ids(data: DataApi) -> tuple[set[str], set[str]]:
    """(EVM chain IDs, blockchain IDs) the run knows for the chain the EVM routes are called on."""
    known = {value for value in (data.evm_chain, data.sample("evm_chain_id"), data.sample("evm_blockchain_id"),
                                 data.endpoints.evm_chain) if value}
    return {v for v in known if v.isdigit()}, {v for v in known if not v.isdigit()}


def chain_ids(body: Any) -> list[Any]:
    """The chainId members of a balance answer: its native balance's and each listed balance's."""
    found = []
    if isinstance(body, dict):
        native = body.get("nativeTokenBalance")
        if isinstance(native, dict) and "chainId" in native:
            found.append(native["chainId"])
        for member in ("erc20TokenBalances", "erc1155TokenBalances", "erc721TokenBalances"):
            found += [b["chainId"] for b in body.get(member) or [] if isinstance(b, dict) and "chainId" in b]
    return found


@pytest.mark.rule("DATA-REL-006")
@pytest.mark.parametrize("operation_id", BALANCE_ROUTES)
def test_balances_name_the_chain(data: DataApi, operation_id: str) -> None:
    """Each balance of the route's default request carries the chainId of the chain in the path, as its EVM chain
    ID or its blockchain ID (a form of ID the run does not know for the chain is not judged)."""
    evm_ids, blockchain_ids = known_chain_ids(data)
    exchange = data.first(operation_id)
    values = chain_ids(checks.input_of(exchange, operation_id))
    if not values:
        pytest.skip(f"the {operation_id} answer carries no chainId")

    def foreign(value: Any) -> bool:
        text = str(value)
        return bool(evm_ids and text not in evm_ids) if text.isdigit() else bool(blockchain_ids and
                                                                                  text not in blockchain_ids)
    wrong = [value for value in values if foreign(value)]
    check(not wrong, "DATA-REL-006", f"{operation_id} states balances of another chain",
          expected=f"chainId {' or '.join(sorted(evm_ids | blockchain_ids))}", received=f"chainId {wrong[:5]}",
          exchange=exchange)
