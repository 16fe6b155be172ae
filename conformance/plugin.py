"""The pytest plugin: options, the target's fixtures, rule marks, and the suite's own exit codes."""
from __future__ import annotations

import datetime as dt
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import settings

from conformance import config as conf
from conformance import cases_ahead, concurrency, evidence, selection
from conformance import workers as workers_
from conformance.clients.http import HttpSession, Limits, redacted
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.errors import ConfigError, SuiteError, Violation, Violations
from conformance.reporting import build as report_build
from conformance.reporting import expectations as expect
from conformance.reporting import outcomes
from conformance.reporting.operations import OperationTimes
from conformance.reporting.terminal import ProgressLine, end_table
from conformance.reporting.outcomes import (BLOCKED_KEY, EVIDENCE_KEY, OBSERVATION_KEY, OUTCOME_KEY, RULES_KEY, VIOLATION_KEY,
                                            VIOLATIONS_KEY, OutcomeRecorder)
from conformance.profiles import PROFILES, Profile
from conformance.rules import Catalogue, UnknownRule, load_catalogue
from conformance.discovery.session import discovery_run
from conformance.session import Endpoints, open_endpoints

__all__ = ["OBSERVATION_KEY", "OUTCOME_KEY", "RULES_KEY", "VIOLATION_KEY", "rule_ids"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "API contract conformance")
    for setting in conf.SETTINGS:
        conf.add_option(group.addoption, setting, setting.pytest_flag)
    add = group.addoption
    add("--conformance-progress", action="store_true", default=False,
        help="one progress line instead of pytest's per-test letters")
    add("--suite-tracebacks", action="store_true", default=False,
        help="show the traceback of a defect of the suite itself (by default one line says what and where)")
    add("--reference-target", action="store_true", default=False, help=argparse_suppress())


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the catalogue rules this test proves")
    config.addinivalue_line("markers", "mutating: changes node state; runs only with --allow-mutations")
    config.addinivalue_line("markers", "serial: runs alone, never while another test's requests are in flight")
    config.addinivalue_line("markers", "exhaustive: a further variant of a decided rule; left out of profiles "
                                       "that are not exhaustive (quick)")
    state = RunState(config)
    config.stash[_STATE] = state
    try:
        resolved: conf.Target | None = resolved_target(config)
    except pytest.UsageError:
        resolved = None   # reported at collection, where a run that collected tests stops on it
    concurrency.install(config, resolved.concurrency if resolved else 1)
    workers_.install(config)
    cases_ahead.install(config, resolved.draw_ahead if resolved else False)
    # A cleanup, not pytest_unconfigure: registered before pytest's own, it runs after them, and pytest's last
    # collections of garbage (five full passes) still skip what the run froze.
    config.add_cleanup(state.thaw)
    config.pluginmanager.register(state, "conformance-run-state")
    discovery_run(config)
    if config.getoption("conformance_progress", False) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(ProgressLine(config), "conformance-progress")


def argparse_suppress() -> str:
    import argparse
    return argparse.SUPPRESS


#: New objects between two collections of the youngest generation while the suite runs (Python's default: 700).
YOUNG_COLLECTION = 10_000
#: Collections of the youngest generation between two of the middle one while the suite runs (Python's: 10).
MIDDLE_COLLECTION = 100


class RunState:
    """Gathers what the tests of one session did, writes the reports, and decides the suite's exit code."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.active = False            # the session collected conformance tests
        self._thresholds: tuple[int, ...] | None = None   # the collector's, while the run freezes what it holds
        self.requests = 0              # HTTP requests sent by this process (and, on a controller, its workers)
        self.target: conf.Target | None = None
        self.outcomes = OutcomeRecorder()
        self.operations = OperationTimes()
        self.started = dt.datetime.now(dt.timezone.utc)
        self.report: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.write_error: str | None = None
        self._expectations: list[expect.Expectation] | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Iterator[Any]:
        # Collecting only adds what the run keeps (modules, documents, the tests): a pass of the cyclic collector
        # meanwhile, a full one among them, would find nothing to free.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return (yield)
        finally:
            if enabled:
                gc.enable()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # What the run holds once its tests are collected (modules, documents, strategies, the tests) lives until
        # it ends. Frozen, the cyclic collector's full passes no longer walk it again and again (a fifth of a
        # second of a standard run), and a forked helper's pages stay shared (the collector writes to what it
        # walks). Only for the run's own length: an earlier run of the same process can still be collected.
        # Parsed answers are trees, not cycles: the youngest generation is collected every 10,000 new objects
        # rather than 700 (a twentieth as many passes, finding as little), and the middle one after 100 of those
        # rather than 10 (its passes walk every answer still held, tens of milliseconds each).
        if self.active and self._thresholds is None:
            gc.freeze()
            self._thresholds = gc.get_threshold()
            young, middle, old = self._thresholds
            gc.set_threshold(max(young, YOUNG_COLLECTION), max(middle, MIDDLE_COLLECTION), old)

    def thaw(self) -> None:
        """Undoes what `pytest_collection_finish` did to the collector."""
        if self._thresholds is not None:
            gc.unfreeze()
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not any(key == RULES_KEY for key, _ in report.user_properties):
            return
        self.outcomes.add(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker finished; add the requests it sent."""
        output = getattr(node, "workeroutput", {})
        self.requests += int(output.get("conformance_requests", 0))
        self.operations.merge_wire(output.get("conformance_operations", {}))
        if output.get("conformance_active"):
            self.active = True

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.report is not None and self.report["summary"]["tests"]:
            terminalreporter.write_line("")
            for line in end_table(self.report):
                terminalreporter.write_line(line)
        if self.active and self.requests:
            terminalreporter.write_line(f"conformance: {self.requests} requests sent to the target")
        if self.written:
            terminalreporter.write_line(f"conformance: reports written: {', '.join(p.name for p in self.written)}")
        if self.write_error:
            terminalreporter.write_line(f"conformance: error: {self.write_error}", red=True)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(session.config, "workeroutput"):
            session.config.workeroutput["conformance_requests"] = self.requests  # type: ignore[attr-defined]
            session.config.workeroutput["conformance_operations"] = self.operations.to_wire()  # type: ignore[attr-defined]
            session.config.workeroutput["conformance_active"] = self.active  # type: ignore[attr-defined]
            return
        if not (self.active or self.outcomes.tests):
            return
        if exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.USAGE_ERROR):
            return
        self.report = self._build_report(session)
        code = self.report["summary"]["exit_code"]
        if self.report["summary"]["tests"] and (code or exitstatus in (pytest.ExitCode.OK,
                                                                       pytest.ExitCode.TESTS_FAILED)):
            session.exitstatus = code
        report_dir = resolved_target(session.config).report_dir
        if report_dir:
            from conformance.reporting.write import write_reports
            try:
                self.written = write_reports(self.report, Path(report_dir))
            except OSError as exc:
                self.write_error = f"cannot write reports to {report_dir} ({exc.strerror or exc})"
                session.exitstatus = max(int(session.exitstatus), 3)

    def _build_report(self, session: pytest.Session) -> dict[str, Any]:
        config = session.config
        catalogue = load_catalogue()
        target = resolved_target(config)
        entries = self.expectation_entries(catalogue)
        tests = list(self.outcomes.tests.values())
        verdicts = expect.apply(entries, tests, dt.date.today())
        embedded = bool(config.getoption("reference_target", False) or target.reference)
        facts = report_build.RunFacts(
            apis=target.apis, profile=target.profile,
            urls={"node": target.node_url, "evm_rpc": target.evm_rpc_url, "data": target.data_url,
                  "metrics": target.metrics_url},
            evm_chain=target.evm_chain or discovery_run(config).found("evm_chain"),
            reference=embedded,
            seed=target.seed if target.seed is not None else (0 if embedded else None),
            started=self.started, finished=dt.datetime.now(dt.timezone.utc),
            requests=self.requests, gate=target.gate, expectations_file=target.expectations,
            discovery=discovery_run(config).section(target))
        # Server headers and every other text a target sent may echo its key back.
        return redacted(report_build.build(tests, catalogue, facts, self.operations, verdicts), _secrets(config))

    def expectation_entries(self, catalogue: Catalogue) -> list[expect.Expectation]:
        """The --expectations entries, read once: at collection (so a bad file stops the run) and reused after."""
        if self._expectations is None:
            path = resolved_target(self.config).expectations
            try:
                self._expectations = expect.load(path, catalogue) if path else []
            except ConfigError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._expectations


_STATE = pytest.StashKey[RunState]()
_RULES = pytest.StashKey[tuple[str, ...]]()


def resolved_target(config: pytest.Config) -> conf.Target:
    """The run's Target, resolved once from this session's options."""
    state = config.stash[_STATE]
    if state.target is None:
        try:
            state.target = conf.resolve({name: config.getoption(name, None) for name in conf.OPTIONS})
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    return state.target


def rule_ids(item: pytest.Item) -> list[str]:
    # Asked for several times in each phase of every test; the marks of a collected test do not change.
    found = item.stash.get(_RULES, None)
    if found is None:
        found = item.stash[_RULES] = tuple(rule_id for mark in item.iter_markers("rule") for rule_id in mark.args)
    return list(found)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any(rule_ids(item) for item in items):
        return
    config.stash[_STATE].active = True
    if config.option.tbstyle == "auto" and all(rule_ids(item) for item in items):
        # A failure reads as its bug report; pytest's default style would first re-parse every module of its
        # traceback (about 0.1 s a failure), minutes against a target that fails everything.
        config.option.tbstyle = "native"
    catalogue = load_catalogue()
    config.stash[_STATE].expectation_entries(catalogue)  # a malformed file stops the run before any request
    target = resolved_target(config)
    settings.load_profile(PROFILES[target.profile].hypothesis_profile)
    unknown = sorted({rid for item in items for rid in rule_ids(item) if rid not in catalogue})
    if unknown:
        raise pytest.UsageError(f"tests carry rule IDs that are not in the catalogue: {', '.join(unknown)}")
    wanted = target.rules
    keep, drop = [], []
    for item in items:
        ids = rule_ids(item)
        if not ids:
            keep.append(item)
            continue
        if not selection.apis_of(item, {api for rid in ids for api in catalogue[rid].apis}) & set(target.apis):
            continue   # a test of an API the run does not select is not part of it
        chosen = any(rid.startswith(prefix) for rid in ids for prefix in wanted) if wanted else True
        chosen = chosen and (PROFILES[target.profile].exhaustive or not item.get_closest_marker("exhaustive"))
        (keep if chosen else drop).append(item)
        item.extra_keyword_matches.update(ids)
        item.user_properties.extend((RULES_KEY, rid) for rid in ids)
        if item.get_closest_marker("mutating") and not target.allow_mutations:
            item.add_marker(pytest.mark.skip(reason="changes node state: run with --allow-mutations"))
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = cases_ahead.drawing_modules_last(keep)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The folder of an API the run does not select is not collected at all."""
    api = selection.folder_api(collection_path)
    if api is None:
        return None
    try:
        return True if api not in resolved_target(config).apis else None
    except pytest.UsageError:
        return None


_LEDGER = pytest.StashKey[evidence.Ledger]()
_REPORTED = pytest.StashKey[dict[str, list[int]]]()


def _ledger(item: pytest.Item) -> evidence.Ledger:
    if _LEDGER not in item.stash:
        item.stash[_LEDGER] = evidence.Ledger()
    return item.stash[_LEDGER]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    # Fixtures check what they read too (a page a test then walks): that evidence belongs to the test.
    if not rule_ids(item):   # not a conformance test: checks called from it raise as plain functions do
        return (yield)
    with evidence.recording(_ledger(item)):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Runs the test with its ledger; a test whose independent checks broke fails at its end with all of them."""
    if not rule_ids(item):
        return (yield)
    ledger = _ledger(item)
    with evidence.recording(ledger):
        try:
            result = yield
        except (Exception, pytest.skip.Exception, pytest.fail.Exception):
            # A violation recorded before the test stopped stays its verdict, whatever stopped it.
            if ledger.violations:
                raise _all_of(ledger) from None
            raise
    if ledger.violations:
        raise _all_of(ledger)
    return result


def _all_of(ledger: evidence.Ledger) -> Violation:
    return ledger.violations[0] if len(ledger.violations) == 1 else Violations(ledger.violations)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    _classify(item, call, report)
    _attach_evidence(item, report)
    secrets = _secrets(item.config)
    if secrets:  # the terminal, JUnit and report.json all read the test report: none may show the key
        if isinstance(report.longrepr, (str, tuple)):  # a skip's is (path, line, reason)
            report.longrepr = redacted(report.longrepr, secrets)
        elif report.longrepr is not None and any(secret in str(report.longrepr) for secret in secrets):
            report.longrepr = redacted(str(report.longrepr), secrets)
        report.user_properties = [redacted(prop, secrets) for prop in report.user_properties]


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """pytest counts a failed setup as an error and a failed call as a failure; the suite counts a violation as a
    failure and anything else as an error, whichever phase found it: its line says what the reports say."""
    if not any(key == RULES_KEY for key, _ in report.user_properties):
        return None
    found = outcomes.category(report)
    if found == "failed":
        return "failed", "F", "FAILED"
    if found == "error":
        return "error", "E", "ERROR"
    return None


def _attach_evidence(item: pytest.Item, report: pytest.TestReport) -> None:
    """Adds to the phase's report the evidence gathered since the last phase (reports cross xdist workers)."""
    if not rule_ids(item) or _LEDGER not in item.stash:
        return
    counts = item.stash[_LEDGER].counts()
    before = item.stash.get(_REPORTED, {})
    delta = {rule: [held - before.get(rule, [0, 0])[0], broke - before.get(rule, [0, 0])[1]]
             for rule, (held, broke) in counts.items()}
    delta = {rule: pair for rule, pair in delta.items() if any(pair)}
    item.stash[_REPORTED] = counts
    if delta:
        report.user_properties.append((EVIDENCE_KEY, json.dumps(delta)))
    if report.skipped and item.stash[_LEDGER].blocked:
        report.user_properties.append((BLOCKED_KEY, json.dumps(item.stash[_LEDGER].blocked)))


def _secrets(config: pytest.Config) -> tuple[str, ...]:
    try:
        key = resolved_target(config).api_key
    except pytest.UsageError:
        return ()
    return (key,) if key else ()


def _classify(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Marks a failed test as a violation of the target or an error of the suite, its report a bug report."""
    if call.excinfo is None or not rule_ids(item) or call.excinfo.errisinstance(pytest.skip.Exception):
        return
    violation = _first(call.excinfo.value, Violation)
    if violation is not None:
        found = getattr(violation, "all", None) or [violation]
        report.longrepr = str(violation)
        report.user_properties.append((OUTCOME_KEY, "violation"))
        report.user_properties.append((VIOLATION_KEY, json.dumps(_violation_json(found[0]))))
        report.user_properties.append((VIOLATIONS_KEY, json.dumps([_violation_json(v) for v in found])))
        return
    error = _first(call.excinfo.value, SuiteError)
    if error is not None:
        report.longrepr = f"{type(error).__name__}: {error}"
    elif not item.config.getoption("suite_tracebacks", False):
        report.longrepr = _defect_line(call.excinfo)
    # Anything else is a defect of the suite, not a deviation of the target: never counted against it.
    report.user_properties.append((OUTCOME_KEY, "suite-error"))


def _violation_json(violation: Violation) -> dict[str, Any]:
    return {"rule": violation.rule.id, "summary": violation.summary, "expected": violation.expected,
            "received": violation.received, "reproducer": violation.reproducer, "response": violation.response}


def _defect_line(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """One line for an unexpected exception: what it was and the innermost place in the suite it came from.

    A target can make the suite meet what nobody foresaw; the run reports that as an error of the suite in a
    line, not as a page of traceback (--suite-tracebacks shows it).
    """
    package = Path(__file__).resolve().parent
    entries = list(excinfo.traceback)
    # The plugin's own hook wrappers and the loop that runs tests run every test: they are never where a defect is.
    running = {Path(__file__).resolve(), package / "concurrency.py"}
    entries = [entry for entry in entries if Path(str(entry.path)).resolve() not in running]
    ours = [entry for entry in entries if package in Path(str(entry.path)).resolve().parents]
    where = (ours or entries)[-1] if entries else None
    text = str(excinfo.value).splitlines()[0][:300] if str(excinfo.value) else ""
    place = ""
    if where is not None:
        path = Path(str(where.path)).resolve()
        shown = path.relative_to(package.parent) if package.parent in path.parents else path
        place = f" at {shown}:{where.lineno + 1} in {where.name}"
    return (f"{excinfo.typename}: {text} (an error of the suite{place}; --suite-tracebacks shows the traceback)")


def _first(exc: BaseException, kind: type[BaseException]) -> Any:
    """`exc` itself, or the first exception of that kind inside an exception group (hypothesis raises those)."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _first(inner, kind)
            if found is not None:
                return found
    return None


# Fixtures -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return load_catalogue()


# The session fixtures every test asks for take pytestconfig, not request: pytest makes a new definition of
# `request` each time a fixture that asks for it is resolved, for every test.
@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> conf.Target:
    """The resolved, frozen target of this run."""
    return resolved_target(pytestconfig)


@pytest.fixture(scope="session")
def profile(target: conf.Target) -> Profile:
    return PROFILES[target.profile]


@pytest.fixture(scope="session")
def endpoints(target: conf.Target, http: HttpSession, pytestconfig: pytest.Config) -> Iterator[Endpoints]:
    """Base URLs and discovered identifiers; starts the embedded reference when no URL is configured."""
    with open_endpoints(target) as opened:
        discovery_run(pytestconfig).bind(opened, target, http)
        yield opened


@pytest.fixture(scope="session")
def http(target: conf.Target, pytestconfig: pytest.Config) -> Iterator[HttpSession]:
    # Under pytest-xdist each worker has its own session: they keep one rate schedule and one request count for the
    # run in a folder their controller made; where files cannot be locked, the run's rate and budget are shared out
    # among them. Either way the target never sees more than the run allows.
    shared = workers_.shared_limits(pytestconfig)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1) \
        if hasattr(pytestconfig, "workerinput") and shared is None else 1
    limits = Limits(read_timeout=target.timeout, in_flight=target.concurrency,
                    rate_limit=target.rate_limit / workers if target.rate_limit else None,
                    max_requests=-(-max(1, target.max_requests - discovery_run(pytestconfig).spent_elsewhere())
                                   // workers) if target.max_requests else None)
    if target.max_duration:
        import time
        limits.deadline = time.monotonic() + target.max_duration
    secrets = {target.api_key_header: target.api_key} if target.api_key else {}
    session = HttpSession(limits, secret_headers=secrets, shared=shared)
    session.listeners.append(pytestconfig.stash[_STATE].operations.record)
    yield session
    pytestconfig.stash[_STATE].requests += session.requests_sent
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
        request.node.user_properties.append((OBSERVATION_KEY, json.dumps({"rule": rule_id, "seen": seen},
                                                                           default=str)))
    return record
