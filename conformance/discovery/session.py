"""Discovery within a pytest run: one crawl per run, through the run's HttpSession, when a test first needs an
identifier."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from conformance.clients.http import HttpSession
from conformance.discovery import BUDGET, Discovery, discover, listing

if TYPE_CHECKING:
    from conformance.config import Target
    from conformance.session import Endpoints

PLUGIN_NAME = "conformance-discovery"


class DiscoveryRun:
    """Holds the run's crawl."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.discovery: Discovery | None = None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.discovery is None:
            return
        found, missing = len(self.discovery.found), sorted(self.discovery.searched.keys() - self.discovery.found.keys())
        terminalreporter.write_line(f"conformance: discovery found {found} identifiers in {self.discovery.requests} "
                                    f"requests" + (f"; none for {', '.join(missing)}" if missing else ""))

    # In a process that runs tests --------------------------------------------------------------------------

    def bind(self, endpoints: Endpoints, target: Target, http: HttpSession) -> None:
        """Gives the endpoints their identifiers, from a crawl made when a test first needs one."""
        def run() -> Discovery:
            self.discovery = crawl(http, target, endpoints.node_url, endpoints.data_url, endpoints.evm_chain,
                                   endpoints.samples, endpoints.metrics_url)
            return self.discovery
        endpoints.identifiers.bind(run)

    def found(self, name: str) -> str | None:
        """An identifier the run's crawl found (None when it did not run or found none)."""
        return self.discovery.value(name) if self.discovery is not None else None

    def section(self, target: Target) -> dict[str, Any]:
        """The report's identifiers: given ones and discovered ones with their sources, and the crawl's requests."""
        given = {**dict(target.samples), **({"evm_chain": target.evm_chain} if target.evm_chain else {})}
        return listing(given, self.discovery)


def crawl(http: HttpSession, target: Target, node_url: str | None, data_url: str | None, evm_chain: str | None,
          given: dict[str, str], metrics_url: str | None = None) -> Discovery:
    return discover(http, apis=target.apis, node_url=node_url, data_url=data_url, evm_rpc_url=target.evm_rpc_url,
                    evm_chain=evm_chain, given=given, send_key=bool(target.api_key), budget=BUDGET,
                    metrics_url=metrics_url)


def discovery_run(config: pytest.Config) -> DiscoveryRun:
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if found is None:
        found = DiscoveryRun(config)
        config.pluginmanager.register(found, PLUGIN_NAME)
    return found
