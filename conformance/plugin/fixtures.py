"""The fixtures every suite test can ask for: the run's settings, the target's clients, identifiers, observations,
what the run reads once, and the cases of generated tests."""
from __future__ import annotations

import time
from typing import Any
from collections.abc import Callable, Iterator

import pytest

from conformance import config as conf
from conformance.clients.http import HttpSession, Limits
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.discovery.session import discovery_run
from conformance.engine.cache import RunCache
from conformance.engine import loop
from conformance.engine.cases import DrawnCases, drawn_for
from conformance.errors import SuiteError
from conformance.plugin import state
from conformance.profiles import PROFILES, Profile
from conformance.reporting.outcomes import Findings, observation
from conformance.rules import Catalogue, UnknownRule, load_catalogue
from conformance.meaning.spellings import spelled_by
from conformance.session import Endpoints, open_endpoints


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return load_catalogue()


# The session fixtures every test asks for take pytestconfig, not request: pytest makes a new definition of
# `request` each time a fixture that asks for it is resolved, for every test.
@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> conf.Target:
    """The resolved, frozen target of this run."""
    return state.resolved_target(pytestconfig)


@pytest.fixture(scope="session")
def profile(target: conf.Target) -> Profile:
    return PROFILES[target.profile]


@pytest.fixture(scope="session")
def endpoints(target: conf.Target, http: HttpSession, pytestconfig: pytest.Config) -> Iterator[Endpoints]:
    """Base URLs and discovered identifiers; starts the embedded reference when no URL is configured."""
    with open_endpoints(target) as opened:
        discovery_run(pytestconfig).bind(opened, target, http)
        state.run_state(pytestconfig).meaning.spell(spelled_by(opened))
        yield opened


@pytest.fixture(scope="session")
def http(target: conf.Target, pytestconfig: pytest.Config) -> Iterator[HttpSession]:
    """The run's one HTTP session: one rate limit, one request budget, every request recorded for the report."""
    limits = Limits(read_timeout=target.timeout, in_flight=target.concurrency, rate_limit=target.rate_limit,
                    max_requests=target.max_requests, outage_window=target.outage_window)
    if target.max_duration:
        limits.deadline = time.monotonic() + target.max_duration
    secrets = {target.api_key_header: target.api_key} if target.api_key else {}
    session = HttpSession(limits, secret_headers=secrets)
    run = state.run_state(pytestconfig)
    session.listeners.append(run.operations.record)
    run.coverage.has_key = bool(target.api_key)
    session.listeners.append(run.coverage.record)
    run.listen(session)
    tests_in_flight = pytestconfig.pluginmanager.get_plugin(loop.PLUGIN_NAME)
    if tests_in_flight is not None:   # it paces itself by the answers it sees
        tests_in_flight.listen(session)
    run.http = session
    run.stopping.on_stop(session.stop)
    # A target down past the outage window stops the run as a signal does, so that every report is written.
    session.when_down.append(run.stopping.stop)
    yield session
    run.requests += session.requests_sent
    run.close_har()
    session.close()


@pytest.fixture(scope="session")
def rpc_at(http: HttpSession, endpoints: Endpoints) -> Callable[[str], JsonRpcClient]:
    """A JSON-RPC client for a path under the node URL, e.g. rpc_at("/ext/index/X/tx")."""
    def client(path: str) -> JsonRpcClient:
        if endpoints.node_url is None:
            pytest.skip("no node URL configured")
        return JsonRpcClient(http, endpoints.node_url + path)
    return client


@pytest.fixture(scope="session")
def admin(rpc_at: Callable[[str], JsonRpcClient]) -> JsonRpcClient:
    return rpc_at("/ext/admin")


@pytest.fixture(scope="session")
def evm_chain(endpoints: Endpoints) -> str:
    """The EVM chain's blockchain ID or alias: --evm-chain, else the one discovery found the node serving."""
    chain = endpoints.sample("evm_chain")
    if not chain:
        pytest.skip(endpoints.missing("evm_chain"))
    return chain


@pytest.fixture(scope="session")
def evm(request: pytest.FixtureRequest, target: conf.Target, http: HttpSession) -> JsonRpcClient:
    """The EVM chain RPC: --evm-rpc-url, else {node_url}/ext/bc/<evm_chain>/rpc."""
    if target.evm_rpc_url:
        return JsonRpcClient(http, target.evm_rpc_url)
    return request.getfixturevalue("rpc_at")(f"/ext/bc/{request.getfixturevalue('evm_chain')}/rpc")


@pytest.fixture(scope="session")
def validators(rpc_at: Callable[[str], JsonRpcClient], evm_chain: str) -> JsonRpcClient:
    return rpc_at(f"/ext/bc/{evm_chain}/validators")


@pytest.fixture(scope="session")
def data_api(http: HttpSession, endpoints: Endpoints, target: conf.Target) -> RestClient:
    if endpoints.data_url is None:
        pytest.skip("no Data API URL configured")
    return RestClient(http, endpoints.data_url, send_key=bool(target.api_key))


@pytest.fixture(scope="session")
def metrics_api(http: HttpSession, endpoints: Endpoints) -> RestClient:
    if endpoints.metrics_url is None:
        pytest.skip("no Metrics API URL configured")
    return RestClient(http, endpoints.metrics_url)


@pytest.fixture(scope="session")
def sample(endpoints: Endpoints) -> Callable[[str], str]:
    """An identifier given with --sample NAME=VALUE, else discovered; skips the test, saying what was searched,
    without it."""
    def lookup(name: str) -> str:
        value = endpoints.sample(name)
        if value is None:
            pytest.skip(endpoints.missing(name))
        return value
    return lookup


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    """Records what the target did for an `observe` rule; never fails the test."""
    catalogue = load_catalogue()

    def record(rule_id: str, seen: Any) -> None:
        try:
            catalogue[rule_id]
        except UnknownRule as exc:
            raise SuiteError(str(exc)) from None
        Findings.of_test(request.node).observations.append(observation(rule_id, seen))
    return record


@pytest.fixture(scope="session")
def once(pytestconfig: pytest.Config) -> RunCache:
    """What the run reads once: `once(lambda: busy_block(evm), evm.url)` is computed the first time a test asks,
    keyed by the place the lambda is written and the arguments after it."""
    return state.run_state(pytestconfig).cache


@pytest.fixture
def generated_cases(request: pytest.FixtureRequest, profile: Profile, pytestconfig: pytest.Config) -> DrawnCases:
    """The cases of a generated test (`conformance.generated.cases`): kept from an earlier run, or drawn while it
    is set up."""
    run = state.run_state(pytestconfig)
    return drawn_for(request, profile, run.cases, run.seed)
