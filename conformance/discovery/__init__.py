"""Discovery: before the tests need them, a bounded crawl of the target finds an identifier for every sample slot.

The API under test is read first, the node's JSON-RPC and EVM RPC when they are given; a --sample given by the
operator always wins. Every identifier is reported with where it came from (`given`, or the route or method and
the JSON pointer it was read from), and a test whose identifier was not found skips saying what was searched.
"""
from __future__ import annotations

import threading
from typing import Any
from collections.abc import Callable, Mapping

from conformance.clients.http import HttpSession
from conformance.clients.rest import RestClient
from conformance.discovery.crawl import Crawl
from conformance.discovery.evm import EvmCrawl
from conformance.discovery.node import NodeCrawl
from conformance.discovery.primary import PrimaryCrawl
from conformance.discovery.record import BUDGET, HINTS, LABELS, SECRET_NAMES, Discovery, Identifier

__all__ = ["BUDGET", "Discovery", "Identifier", "Identifiers", "discover", "listing"]

#: The APIs whose tests read each part of the crawl.
NODE_APIS = frozenset({"admin", "evm", "validators", "metrics"})
EVM_TOKEN_SLOTS = ("data_evm_address", "data_erc20_contract", "data_erc721_contract", "data_erc1155_contract")


def discover(http: HttpSession, *, apis: tuple[str, ...], node_url: str | None, data_url: str | None,
             evm_rpc_url: str | None = None, evm_chain: str | None = None, given: Mapping[str, str] | None = None,
             send_key: bool = False, budget: int = BUDGET, metrics_url: str | None = None) -> Discovery:
    """Crawls the target within `budget` requests of `http` and returns what it found; never raises."""
    given = dict(given or {})
    out = Discovery(budget=budget, given=frozenset(given))
    crawl = Crawl(http, budget=budget)
    client = RestClient(http, data_url, send_key=send_key) if data_url else None
    evm = EvmCrawl(crawl, client, out, given) if client else None
    primary = PrimaryCrawl(crawl, client, out, given) if client else None
    wants_node = bool(NODE_APIS & set(apis)) and bool(node_url or evm_rpc_url)
    node = NodeCrawl(crawl, http, out, node_url=node_url, evm_rpc_url=evm_rpc_url, evm_chain=evm_chain,
                     given=given) if node_url or evm_rpc_url else None
    try:
        chains = evm.blockchains() if evm and ("data" in apis or wants_node or "metrics" in apis) else []
        if primary and "data" in apis:
            chains = primary.own_network(chains)
        if node and wants_node:
            node.evm_chain(chains)
        if evm and primary and "data" in apis:
            evm.evm(chains, (node.chain_id, node.chain) if node else (evm_chain,))
            if node and node.chain_id and not given.get("data_evm_chain_id"):
                _confirm_evm_chain(crawl, client, out, node.chain_id)
            if node and node.chain_id and not evm.known("data_evm_chain_id"):
                _copy(out, "evm_chain_id", "data_evm_chain_id")
            primary.primary()
            primary.validators(evm.chosen)
            if node and (out.value("data_evm_chain_id") or given.get("data_evm_chain_id")) == node.chain_id:
                node.logs(EVM_TOKEN_SLOTS)
        if "metrics" in apis:
            out.search("evm_chain_id", "eth_chainId of the node's EVM chain and evmChainId of listBlockchains, "
                                       "confirmed by the Metrics API")
            _metrics_chain(crawl, RestClient(http, metrics_url) if metrics_url else None, out, chains)
    except Exception as exc:  # a defect of discovery must never become a failure of a test: it finds less
        out.notes.append(f"discovery stopped early: {type(exc).__name__}: {exc}")
    for name in [n for n in out.searched if not _wanted(n, apis)]:
        del out.searched[name]
    out.requests = crawl.sent
    if crawl.stopped:
        out.notes.append(f"discovery stopped: {crawl.stopped}")
    elif crawl.spent:
        out.notes.append(f"discovery spent its budget of {budget} requests")
    return out


def _wanted(name: str, apis: tuple[str, ...]) -> bool:
    """Whether a test of `apis` reads the identifier `name`."""
    if name.startswith("data_"):
        return "data" in apis
    if name == "evm_chain_id":
        return "metrics" in apis
    return bool({"admin", "evm", "validators"} & set(apis))


#: What discovery read from the Data API's EVM chain: dropped together when that chain is not confirmed.
EVM_CHAIN_SLOTS = ("data_evm_chain_id", "data_evm_blockchain_id", "data_evm_address", "data_contract_address",
                   *EVM_TOKEN_SLOTS)


def _confirm_evm_chain(crawl: Crawl, client: RestClient | None, out: Discovery, node_chain: str) -> None:
    """Keeps an EVM chain read from listBlockchains that is not the node's only when the Data API serves balances on
    it; otherwise the node's chain replaces it (an identifier taken from one route is confirmed by another before the
    tests rely on it: a listing that names another network's or no real chain must fail its own rule, not the
    balance routes' rules through the chain it named)."""
    found = out.found.get("data_evm_chain_id")
    if client is None or found is None or found.value == node_chain or found.source != "listBlockchains":
        return
    wallet = out.value("data_evm_address") or "0x" + "00" * 20
    if crawl.rest(client, "getNativeBalance", {"chainId": found.value, "address": wallet}) is not None:
        return
    for name in EVM_CHAIN_SLOTS:
        out.found.pop(name, None)
    out.notes.append(f"listBlockchains names EVM chain {found.value}, whose balances are not served: the node's "
                     f"chain {node_chain} is tested instead")


#: EVM chains listBlockchains names that the Metrics API is asked about, at most, before one is taken unconfirmed.
METRICS_CHAIN_PROBES = 3


def _metrics_chain(crawl: Crawl, client: RestClient | None, out: Discovery, chains: list[Any]) -> None:
    """The EVM chain the Metrics API tests ask about: the Data API's (or the node's) chain, else one listBlockchains
    names; with the Metrics API at hand, the first of them it serves. An identifier read from one API is confirmed
    by the API whose tests rely on it: another API's listing, in whatever order it comes, must never make the
    Metrics API's rules fail on a chain it was never documented to serve."""
    found = out.found.get("data_evm_chain_id") or out.found.get("evm_chain_id")
    candidates = ([(found.value, found.source, found.request, found.pointer)] if found else []) + [
        (c.evm_chain_id, "listBlockchains", c.answer.request, c.at + "/evmChainId") for c in chains if c.evm_chain_id]
    candidates = list({str(value): (str(value), *rest) for value, *rest in candidates}.values())
    if not candidates:
        return
    if client is not None:
        asked = 0
        for value, source, request, pointer in candidates[:METRICS_CHAIN_PROBES]:
            if crawl.get(client, f"/v2/chains/{value}/metrics/txCount", {"pageSize": 1}) is not None:
                out.add("evm_chain_id", value, source, request, pointer)
                return
            if crawl.spent:
                break
            asked += 1
        if asked:
            # The Metrics API serves none of them: the tests that need an EVM chain of its own skip, saying what was
            # asked, rather than fail on a chain the documents never said it serves.
            asked_about = ", ".join(candidate[0] for candidate in candidates[:asked])
            out.notes.append(f"the Metrics API serves none of the EVM chains {asked_about} (txCount answered no "
                             "200 JSON)")
            return
    value, source, request, pointer = candidates[0]
    out.add("evm_chain_id", value, source, request, pointer)


def _copy(out: Discovery, source: str, name: str) -> None:
    found = out.found.get(source)
    if found is not None:
        out.add(name, found.value, found.source, found.request, found.pointer)


class Identifiers:
    """The identifiers tests use: the operator's (--sample, --evm-chain) first, else what discovery found.

    The crawl runs once, when a test first needs an identifier that was not given (or it is loaded, when another
    process of the run crawled already).
    """

    def __init__(self, given: Mapping[str, str]) -> None:
        self.given = {k: v for k, v in given.items() if v}
        self._crawl: Callable[[], Discovery] | None = None
        self._result: Discovery | None = None
        self._lock = threading.Lock()

    def bind(self, crawl: Callable[[], Discovery]) -> None:
        """How to crawl, when first needed."""
        self._crawl = crawl

    def load(self, discovery: Discovery) -> None:
        """A crawl another process of the run made."""
        self._result = discovery

    @property
    def discovery(self) -> Discovery | None:
        """The crawl's result, when it has run (never starts it)."""
        return self._result

    def run(self) -> Discovery | None:
        with self._lock:
            if self._result is None and self._crawl is not None:
                self._result = self._crawl()
            return self._result

    def get(self, name: str) -> str | None:
        if name in self.given:
            return self.given[name]
        found = self.run()
        return found.value(name) if found else None

    def missing(self, name: str) -> str:
        """Why a test skips without `name`: what was searched, or that nothing could be."""
        found = self.run()
        if found is not None:
            return found.missing(name)
        return f"no {LABELS.get(name, name)} given (pass {HINTS.get(name, f'--sample {name}=VALUE')})"


def listing(given: Mapping[str, str], discovery: Discovery | None) -> dict[str, Any]:
    """The report's account of identifiers: each used, its value and source; the crawl's requests and notes."""
    entries = {name: Identifier(name, str(value)).to_json() for name, value in given.items()
               if value and name not in SECRET_NAMES}
    for name, found in (discovery.found.items() if discovery else ()):
        if name not in entries and name not in SECRET_NAMES:
            entries[name] = found.to_json()
    missing = {name: discovery.missing(name) for name in discovery.searched
               if name not in entries and name not in SECRET_NAMES} if discovery else {}
    return {"ran": discovery is not None, "requests": discovery.requests if discovery else 0,
            "budget": discovery.budget if discovery else BUDGET,
            "identifiers": [entries[name] for name in sorted(entries)],
            "missing": [{"name": name, "searched": why} for name, why in sorted(missing.items())],
            "notes": list(discovery.notes) if discovery else []}
