"""The pytest plugin: options, the target's fixtures, rule marks, and the suite's own exit codes."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator

import pytest
from hypothesis import settings

from conformance import config as conf
from conformance.clients.http import HttpSession, Limits
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.errors import ConfigError, SuiteError, Violation
from conformance.profiles import PROFILES, Profile
from conformance.rules import Catalogue, UnknownRule, load_catalogue
from conformance.session import Endpoints, open_endpoints

OUTCOME_KEY = "conformance_outcome"   # user property: "violation" | "suite-error" on failed tests
RULES_KEY = "rule"                    # one user property per rule a test carries (reaches JUnit)
OBSERVATION_KEY = "observation"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "API contract conformance")
    add = group.addoption
    add("--target-url", help="one base URL for all three APIs")
    add("--node-url", help="base URL of the node (JSON-RPC under /ext/...)")
    add("--data-url", help="base URL of the Data API")
    add("--metrics-url", help="base URL of the Metrics API")
    add("--api", help="comma-separated APIs to test: admin,index,evm,validators,data,metrics")
    add("--conformance-profile", dest="profile", choices=sorted(PROFILES), help="quick | standard | thorough")
    add("--evm-chain", help="blockchain ID or alias of the EVM chain (and its validators)")
    add("--api-key", help="Data API key (never printed)")
    add("--api-key-header", help="header carrying the API key (default x-data-api-key)")
    add("--allow-mutations", action="store_true", default=False, help="run tests that change node state")
    add("--conformance-seed", dest="seed", help="seed of the embedded reference target")
    add("--request-timeout", dest="timeout", help="per-request read timeout in seconds")
    add("--rate-limit", help="at most N requests a second, e.g. 20/s")
    add("--max-requests", help="request budget of the run")
    add("--max-duration", help="seconds after which no new request starts")
    add("--sample", action="append", default=[], metavar="NAME=VALUE",
        help="an identifier for tests that cannot discover one (repeatable), e.g. evm_address=0x…")
    add("--rule", action="append", default=[], help="run only tests carrying this rule ID (or ID prefix)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the catalogue rules this test proves")
    config.addinivalue_line("markers", "mutating: changes node state; runs only with --allow-mutations")
    config.addinivalue_line("markers", "exhaustive: a further variant of a decided rule; left out of profiles "
                                       "that are not exhaustive (quick)")
    state = RunState()
    config.stash[_STATE] = state
    config.pluginmanager.register(state, "conformance-run-state")


class RunState:
    """Counts violations and suite errors of one session and turns them into the suite's exit code."""

    def __init__(self) -> None:
        self.active = False            # the session collected conformance tests
        self.violations = 0
        self.suite_errors = 0
        self.passed = 0
        self.requests = 0              # HTTP requests sent by this process (and, on a controller, its workers)
        self.target: conf.Target | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not any(key == RULES_KEY for key, _ in report.user_properties):
            return
        if report.failed:
            if dict(report.user_properties).get(OUTCOME_KEY) == "suite-error" or report.when != "call":
                self.suite_errors += 1
            else:
                self.violations += 1
        elif report.passed and report.when == "call":
            self.passed += 1

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker finished; add the requests it sent."""
        self.requests += int(getattr(node, "workeroutput", {}).get("conformance_requests", 0))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.active and self.requests:
            terminalreporter.write_line(f"conformance: {self.requests} requests sent to the target")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(session.config, "workeroutput"):
            session.config.workeroutput["conformance_requests"] = self.requests  # type: ignore[attr-defined]
        if not (self.active or self.violations or self.suite_errors or self.passed):
            return
        if self.violations:
            session.exitstatus = 1
        elif self.suite_errors:
            session.exitstatus = 3
        elif exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) and self.passed:
            session.exitstatus = 0


_STATE = pytest.StashKey[RunState]()


def resolved_target(config: pytest.Config) -> conf.Target:
    """The run's Target, resolved once from this session's options."""
    state = config.stash[_STATE]
    if state.target is None:
        try:
            state.target = conf.resolve({name: config.getoption(name, default=None) for name in conf.OPTIONS})
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    return state.target


def rule_ids(item: pytest.Item) -> list[str]:
    return [rule_id for mark in item.iter_markers("rule") for rule_id in mark.args]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any(rule_ids(item) for item in items):
        return
    config.stash[_STATE].active = True
    catalogue = load_catalogue()
    target = resolved_target(config)
    settings.load_profile(PROFILES[target.profile].hypothesis_profile)
    unknown = sorted({rid for item in items for rid in rule_ids(item) if rid not in catalogue})
    if unknown:
        raise pytest.UsageError(f"tests carry rule IDs that are not in the catalogue: {', '.join(unknown)}")
    wanted = config.getoption("rule")
    keep, drop = [], []
    for item in items:
        ids = rule_ids(item)
        if not ids:
            keep.append(item)
            continue
        apis = {api for rid in ids for api in catalogue[rid].apis}
        chosen = any(rid.startswith(prefix) for rid in ids for prefix in wanted) if wanted else True
        chosen = chosen and (PROFILES[target.profile].exhaustive or not item.get_closest_marker("exhaustive"))
        (keep if chosen and apis & set(target.apis) else drop).append(item)
        item.extra_keyword_matches.update(ids)
        item.user_properties.extend((RULES_KEY, rid) for rid in ids)
        if item.get_closest_marker("mutating") and not target.allow_mutations:
            item.add_marker(pytest.mark.skip(reason="changes node state: run with --allow-mutations"))
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or not rule_ids(item):
        return
    if call.excinfo.errisinstance(Violation):
        report.longrepr = str(call.excinfo.value)
        report.user_properties.append((OUTCOME_KEY, "violation"))
    elif call.excinfo.errisinstance(SuiteError):
        report.longrepr = f"{type(call.excinfo.value).__name__}: {call.excinfo.value}"
        report.user_properties.append((OUTCOME_KEY, "suite-error"))


# Fixtures -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> conf.Target:
    """The resolved, frozen target of this run."""
    return resolved_target(request.config)


@pytest.fixture(scope="session")
def profile(target: conf.Target) -> Profile:
    return PROFILES[target.profile]


@pytest.fixture(scope="session")
def endpoints(target: conf.Target) -> Iterator[Endpoints]:
    """Base URLs and discovered identifiers; starts the embedded reference when no URL is configured."""
    with open_endpoints(target) as opened:
        yield opened


@pytest.fixture(scope="session")
def http(target: conf.Target, request: pytest.FixtureRequest) -> Iterator[HttpSession]:
    limits = Limits(read_timeout=target.timeout, rate_limit=target.rate_limit, max_requests=target.max_requests)
    if target.max_duration:
        import time
        limits.deadline = time.monotonic() + target.max_duration
    secrets = {target.api_key_header: target.api_key} if target.api_key else {}
    session = HttpSession(limits, secret_headers=secrets)
    yield session
    request.config.stash[_STATE].requests += session.requests_sent
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
    """The EVM chain's blockchain ID or alias (--evm-chain, or the reference's)."""
    if not endpoints.evm_chain:
        pytest.skip("no EVM chain given: pass --evm-chain BLOCKCHAIN_ID_OR_ALIAS")
    return endpoints.evm_chain


@pytest.fixture(scope="session")
def evm(rpc_at: Callable[[str], JsonRpcClient], evm_chain: str) -> JsonRpcClient:
    return rpc_at(f"/ext/bc/{evm_chain}/rpc")


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
    """An identifier given with --sample NAME=VALUE (or advertised by the reference); skips the test without it."""
    def lookup(name: str) -> str:
        value = endpoints.sample(name)
        if value is None:
            pytest.skip(f"needs an identifier the API cannot list: pass --sample {name}=VALUE")
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
        request.node.user_properties.append((OBSERVATION_KEY, json.dumps({"rule": rule_id, "seen": seen},
                                                                           default=str)))
    return record
