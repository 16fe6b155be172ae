"""What one session of the suite gathered, its resolved settings, and the reports it writes at its end."""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from conformance import __version__, evidence
from conformance import config as conf
from conformance.clients.http import HttpSession, redacted
from conformance.coverage import effects as effects_coverage
from conformance.engine.cache import RunCache
from conformance.engine.store import CaseStore
from conformance.coverage.recorder import CoverageRecorder
from conformance.meaning.watch import Watch
from conformance.signals import Stopping
from conformance.engine.memory import MemoryBound, peak_bytes
from conformance.discovery.session import discovery_run
from conformance.errors import EXIT_INCOMPLETE, ConfigError
from conformance.history.session import RunHistory
from conformance.reporting import build as report_build
from conformance.reporting import contract
from conformance.reporting import expectations as expect
from conformance.reporting.har import HarWriter
from conformance.reporting.operations import OperationTimes
from conformance.reporting.outcomes import RULES_KEY, OutcomeRecorder
from conformance.reporting.terminal import end_table
from conformance.rules import Catalogue, load_catalogue


class RunState:
    """Gathers what the tests of one session did, writes the reports, and decides the suite's exit code."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.active = False            # the session collected conformance tests
        self.requests = 0              # HTTP requests sent to the target
        self.http: HttpSession | None = None
        self.stopping = Stopping()     # why the run stopped early, if it did
        self.collected: dict[str, list[str]] = {}   # node ID -> the rules it carries
        self.left_out: dict[str, str] = {}   # rule -> why its only tests were left out of the run (the profile)
        self.memory = MemoryBound(conf.DEFAULT_MAX_MEMORY_MB * 2**20)
        self.cache = RunCache(self.memory)   # what the run reads once (the `once` fixture)
        self.cases: CaseStore | None = None   # the cases of generated tests kept from earlier runs
        self.seed = 0                          # what they are drawn with
        self.target: conf.Target | None = None
        self.outcomes = OutcomeRecorder()
        self.operations = OperationTimes()
        self.coverage = CoverageRecorder()   # fed by the run's HttpSession, like `operations`
        self.meaning = Watch()   # judges every answer against the declared invariants and identities
        self.started = dt.datetime.now(dt.UTC)
        self.report: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.write_error: str | None = None
        self.missing_reports: list[str] = []   # reports the run was asked for and could not write
        self._expectations: list[expect.Expectation] | None = None
        self.har: HarWriter | None = None   # --har: every exchange of the run, streamed to its file

    @staticmethod
    def seed_of(target: conf.Target, config: pytest.Config) -> int:
        """The seed generated data is drawn with: the run's (`--seed`, or pytest's `--hypothesis-seed`), else 0: a run
        draws the cases the last one drew, read from the store, and another seed draws others."""
        if target.seed is not None:
            return target.seed
        given = config.getoption("hypothesis_seed", None)
        try:
            return int(given) if given is not None else 0
        except ValueError:
            return 0

    def listen(self, session: HttpSession) -> None:
        """Follows every exchange of the run's session: the running test's evidence names the exchanges its checks
        judged, and with --har each one is written to the archive as it completes."""
        session.listeners.append(evidence.saw)
        self.meaning.listen(session)
        target = resolved_target(self.config)
        if target.har and self.har is None:
            try:
                self.har = HarWriter(target.har, secrets=secrets(self.config), creator_version=__version__)
            except OSError as exc:
                raise ConfigError(f"--har: cannot write {target.har} ({exc.strerror or exc})") from None
        if self.har is not None:
            session.listeners.append(self.har)

    def close_har(self) -> None:
        """Ends the HAR archive, whatever ended the run: it stays a valid archive of what was sent."""
        if self.har is not None:
            self.har.close(f"interrupted: {self.stopping.reason}" if self.stopping.reason else None)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """What the run holds: the rules each test carries, so that a run stopped early names the rules it did not
        reach; and the signals that stop it, handled from here on."""
        self.collected = {item.nodeid: [rule for mark in item.iter_markers("rule") for rule in mark.args]
                          for item in session.items}
        if self.active:
            self.stopping.on_stop(lambda reason: setattr(session, "shouldstop", reason))
            self.stopping.install()

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.stopping.uninstall()
        self.close_har()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not any(key == RULES_KEY for key, _ in report.user_properties):
            return
        self.outcomes.add(report)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.report is not None and self.report["summary"]["tests"]:
            terminalreporter.write_line("")
            for line in end_table(self.report):
                terminalreporter.write_line(line)
        if self.active and self.requests:
            terminalreporter.write_line(f"conformance: {self.requests} requests sent to the target")
        if self.report is not None:
            ridden, down = report_build.ridden_line(self.report["suite"]), report_build.down_line(self.report["suite"])
            if ridden:
                terminalreporter.write_line(f"conformance: {ridden}")
            if down:
                terminalreporter.write_line(f"conformance: {down}", red=True)
        if self.written:
            terminalreporter.write_line(f"conformance: reports written: {', '.join(p.name for p in self.written)}")
        if self.report is not None and self.report["summary"].get("coverage_gate"):
            terminalreporter.write_line(f"conformance: {self.report['summary']['coverage_gate']}", red=True)
        if self.write_error:
            terminalreporter.write_line(f"conformance: error: {self.write_error}", red=True)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.close_har()
        if self.cases is not None and self.cases.written:
            self.cases.tidy()
        if not (self.active or self.outcomes.tests):
            return
        if exitstatus == pytest.ExitCode.USAGE_ERROR:
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED and self.stopping.reason is None:
            self.stopping.stop("interrupted")
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR and self.stopping.reason is None:
            self.stopping.stop("an error of the suite itself")
        self.report = self._build_report(session)
        code = self.report["summary"]["exit_code"]
        if self.report["summary"]["tests"] and (code or exitstatus in (pytest.ExitCode.OK,
                                                                       pytest.ExitCode.TESTS_FAILED)) \
                or self.stopping.reason is not None:
            session.exitstatus = code
        report_dir = resolved_target(session.config).report_dir
        if report_dir:
            from conformance.reporting.write import ReportNotWritten, write_reports
            try:
                self.written = write_reports(self.report, Path(report_dir))
                self.stopping.reported = True
            except ReportNotWritten as exc:
                self.written, self.missing_reports = exc.written, exc.missing
                self.write_error = f"{', '.join(exc.missing)} not written to {report_dir}: {exc}"
                # A run whose reports are missing did not do its job, whatever its verdict: never exit 0.
                session.exitstatus = EXIT_INCOMPLETE

    @property
    def exit_code(self) -> int | None:
        """The run's exit code: its report's, unless a report it was asked for could not be written."""
        if self.report is None:
            return None
        return EXIT_INCOMPLETE if self.missing_reports else int(self.report["summary"]["exit_code"])

    def _build_report(self, session: pytest.Session) -> dict[str, Any]:
        config = session.config
        catalogue = load_catalogue()
        target = resolved_target(config)
        entries = self.expectation_entries(catalogue)
        tests = list(self.outcomes.tests.values())
        verdicts = expect.apply(entries, tests, dt.date.today())
        embedded = bool(config.getoption("reference_target", False) or target.reference)
        history = RunHistory.of(target, embedded)
        try:
            old_failures = history.old_failures() if history else frozenset()
        except ConfigError as exc:
            self.write_error, history, old_failures = f"history: {exc}", None, frozenset()
        facts = report_build.RunFacts(
            apis=target.apis, profile=target.profile,
            urls={"node": target.node_url, "evm_rpc": target.evm_rpc_url, "data": target.data_url,
                  "metrics": target.metrics_url},
            evm_chain=target.evm_chain or discovery_run(config).found("evm_chain"),
            reference=embedded,
            seed=self.seed,
            started=self.started, finished=dt.datetime.now(dt.UTC),
            requests=self.requests, gate=target.gate, expectations_file=target.expectations,
            discovery=discovery_run(config).section(target),
            # a run whose memory passed its bound did not run as asked: it says so, and is not called conformant
            interrupted=self.stopping.reason or self.memory.exceeded(),
            not_reached=self._not_reached(), left_out=self.left_out, flaky_fails=target.flaky == "fail",
            old_failures=old_failures,
            memory={"max_mb": target.max_memory, "peak_mb": round(peak_bytes() / 2**20),
                    "most_kept_mb": round(self.memory.most_kept / 2**20),
                    "trimmed_bodies": self.http.trimmed_bodies if self.http is not None else 0,
                    "evicted": self.memory.evicted},
            contract=contract.pinned_contract(), options=contract.run_options(target),
            har={"file": str(self.har.path), "entries": self.har.entries} if self.har is not None else None,
            coverage=effects_coverage.merge(self.coverage.report(target.apis),
                                            {mark for test in tests for mark in test.verified}),
            min_coverage=target.min_coverage,
            transport=self.http.outage.section() if self.http is not None else None)
        # Server headers and every other text a target sent may echo its key back.
        report = redacted(report_build.build(tests, catalogue, facts, self.operations, verdicts), secrets(config))
        if history is not None:
            try:
                history.keep(report)
            except ConfigError as exc:
                self.write_error = f"history: {exc}"
        return report

    def _not_reached(self) -> frozenset[str]:
        """Rules carried only by tests the run did not decide (it stopped first)."""
        if self.stopping.reason is None:
            return frozenset()
        reached = {rule for test in self.outcomes.tests.values() if test.outcome != "skipped"
                   or not test.message.startswith("interrupted") for rule in test.rules}
        return frozenset(rule for nodeid, rules in self.collected.items() for rule in rules
                         if rule not in reached)

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


def run_state(config: pytest.Config) -> RunState:
    return config.stash[_STATE]


def started_state(config: pytest.Config) -> RunState | None:
    """The session's state, or None when the plugin never started (pytest refused its arguments first)."""
    return config.stash.get(_STATE, None)


def start(config: pytest.Config) -> RunState:
    state = config.stash[_STATE] = RunState(config)
    config.pluginmanager.register(state, "conformance-run-state")
    return state


def resolved_target(config: pytest.Config) -> conf.Target:
    """The run's settings: as `conformance run` handed them over, else resolved once from this session's options,
    the environment and the config file."""
    state = config.stash[_STATE]
    if state.target is None:
        try:
            state.target = conf.resolve({name: config.getoption(name, None) for name in conf.OPTIONS})
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    state.memory.max_bytes = state.target.max_memory * 2**20
    return state.target


def secrets(config: pytest.Config) -> tuple[str, ...]:
    """What no output of the run may show: the API key."""
    try:
        key = resolved_target(config).api_key
    except pytest.UsageError:
        return ()
    return (key,) if key else ()
