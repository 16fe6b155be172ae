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

    def _search(self, names: tuple[str, ...], what: str) -> None:
        for name in names:
            if not self.known(name):
                self.out.search(name, what)
