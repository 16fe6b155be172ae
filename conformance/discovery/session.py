"""Discovery within a pytest run: one crawl per run, shared by every process of it.

Without pytest-xdist the crawl runs in the one process, through the run's HttpSession, when a test first needs an
identifier. With workers, the process that starts them crawls once before they start and hands the result to each
(its requests count toward the run's and are taken from the workers' budget); a worker that tests an embedded
reference of its own (no URL configured) crawls that one itself.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

from conformance.clients.http import HttpSession, Limits
from conformance.discovery import BUDGET, Discovery, discover, listing

if TYPE_CHECKING:
    from conformance.config import Target
    from conformance.session import Endpoints

WIRE_KEY = "conformance_discovery"
PLUGIN_NAME = "conformance-discovery"


class DiscoveryRun:
    """Holds the run's crawl: made here, or received from the process that started this worker."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.discovery: Discovery | None = None
        self.crawled_here = False
        self._tried = False

    # pytest-xdist: the controller crawls once, before its workers start -------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        wire = self._controller_crawl()
        if wire is not None:
            node.workerinput[WIRE_KEY] = wire

    def _controller_crawl(self) -> dict[str, Any] | None:
        if not self._tried:
            self._tried = True
            from conformance.plugin import resolved_target

            target = resolved_target(self.config)
            if target.reference:   # each worker starts, and crawls, a reference of its own
                return None
            http = HttpSession(crawl_limits(target), secret_headers=(
                {target.api_key_header: target.api_key} if target.api_key else {}))
            state = self.config.pluginmanager.get_plugin("conformance-run-state")
            if state is not None:
                http.listeners.append(state.operations.record)
            try:
                self.discovery = crawl(http, target, target.node_url, target.data_url, target.evm_chain,
                                       dict(target.samples))
            finally:
                if state is not None:
                    state.requests += http.requests_sent
                http.close()
            self.crawled_here = True
        return self.discovery.to_wire() if self.discovery is not None else None

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """A worker that crawled its own target hands the result back for the report."""
        wire = getattr(node, "workeroutput", {}).get(WIRE_KEY)
        if wire and self.discovery is None:
            self.discovery = Discovery.from_wire(wire)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workeroutput") and self.crawled_here and self.discovery is not None:
            self.config.workeroutput[WIRE_KEY] = self.discovery.to_wire()  # type: ignore[attr-defined]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput") or self.discovery is None:
            return
        found, missing = len(self.discovery.found), sorted(self.discovery.searched.keys() - self.discovery.found.keys())
        terminalreporter.write_line(f"conformance: discovery found {found} identifiers in {self.discovery.requests} "
                                    f"requests" + (f"; none for {', '.join(missing)}" if missing else ""))

    # In a process that runs tests --------------------------------------------------------------------------

    def bind(self, endpoints: Endpoints, target: Target, http: HttpSession) -> None:
        """Gives the endpoints their identifiers: the crawl handed to this worker, else one made when needed."""
        wire = getattr(self.config, "workerinput", {}).get(WIRE_KEY)
        if wire:
            self.discovery = Discovery.from_wire(wire)
            endpoints.identifiers.load(self.discovery)
            return

        def run() -> Discovery:
            self.discovery = crawl(http, target, endpoints.node_url, endpoints.data_url, endpoints.evm_chain,
                                   endpoints.samples)
            self.crawled_here = True
            return self.discovery
        endpoints.identifiers.bind(run)

    def spent_elsewhere(self) -> int:
        """Requests the controller's crawl spent, which the workers' shares of --max-requests leave out."""
        wire = getattr(self.config, "workerinput", {}).get(WIRE_KEY)
        return int(wire.get("requests", 0)) if wire else 0

    def found(self, name: str) -> str | None:
        """An identifier the run's crawl found (None when it did not run or found none)."""
        return self.discovery.value(name) if self.discovery is not None else None

    def section(self, target: Target) -> dict[str, Any]:
        """The report's identifiers: given ones and discovered ones with their sources, and the crawl's requests."""
        given = {**dict(target.samples), **({"evm_chain": target.evm_chain} if target.evm_chain else {})}
        return listing(given, self.discovery)


def crawl(http: HttpSession, target: Target, node_url: str | None, data_url: str | None, evm_chain: str | None,
          given: dict[str, str]) -> Discovery:
    return discover(http, apis=target.apis, node_url=node_url, data_url=data_url, evm_rpc_url=target.evm_rpc_url,
                    evm_chain=evm_chain, given=given, send_key=bool(target.api_key), budget=BUDGET)


def crawl_limits(target: Target) -> Limits:
    """The run's limits for a crawl made outside the tests' sessions: its rate, timeouts and duration."""
    limits = Limits(read_timeout=target.timeout, rate_limit=target.rate_limit,
                    max_requests=min(BUDGET, target.max_requests) if target.max_requests else None)
    if target.max_duration:
        limits.deadline = time.monotonic() + target.max_duration
    return limits


def discovery_run(config: pytest.Config) -> DiscoveryRun:
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if found is None:
        found = DiscoveryRun(config)
        config.pluginmanager.register(found, PLUGIN_NAME)
    return found
