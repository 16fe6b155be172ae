"""The Data API part of a crawl: what its two halves (primary network, EVM chains) share."""
from __future__ import annotations

from collections.abc import Mapping

from conformance.clients.rest import RestClient
from conformance.discovery.crawl import Crawl
from conformance.discovery.record import Discovery

ALIASES = {"p": "p-chain", "x": "x-chain", "c": "c-chain"}
#: The network each network path segment denotes (fuji and testnet both denote the test network).
NETWORKS = {"mainnet": "mainnet", "fuji": "testnet", "testnet": "testnet"}


class DataPart:
    """Reads Data API answers into `out`; the operator's given values are known first and never recorded."""

    def __init__(self, crawl: Crawl, client: RestClient, out: Discovery, given: Mapping[str, str]) -> None:
        self.crawl = crawl
        self.client = client
        self.out = out
        self.given = given
        self.network = given.get("data_network") or "mainnet"

    def known(self, name: str) -> str | None:
        return self.given.get(name) or self.out.value(name)

    def chain_path(self, letter: str) -> str:
        """The P, X or C chain as the crawl names it in a path: as the tests' default requests do (the given
        blockchain ID, else the network's well-known one, else the alias), so that one object the crawl and a test
        both read is read through one spelling, and only the spelling rules compare the two."""
        from conformance.checks.data import well_known_chain_ids

        alias = ALIASES[letter]
        return self.given.get(f"data_{letter}_chain_id") or well_known_chain_ids(self.network).get(alias) or alias

    def _search(self, names: tuple[str, ...], what: str) -> None:
        for name in names:
            if not self.known(name):
                self.out.search(name, what)
