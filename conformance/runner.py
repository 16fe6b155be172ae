"""`conformance run`: resolve the target, start the reference when needed, and run the suite through pytest."""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from conformance import config, signals
from conformance.clients.deadline import why_silent
from conformance.engine.memory import hand_back_large_blocks
from conformance.errors import EXIT_INCOMPLETE, EXIT_USAGE, ConfigError, TargetUnreachable
from conformance.session import Endpoints, open_endpoints

#: pytest's own exit codes mapped onto the suite's: usage errors and empty selections are usage errors (2).
_PYTEST_EXIT = {int(pytest.ExitCode.USAGE_ERROR): EXIT_USAGE, int(pytest.ExitCode.NO_TESTS_COLLECTED): EXIT_USAGE,
                int(pytest.ExitCode.INTERRUPTED): EXIT_INCOMPLETE, int(pytest.ExitCode.INTERNAL_ERROR): EXIT_INCOMPLETE}


def run(args: argparse.Namespace) -> int:
    if getattr(args, "workers", None) or any(_asks_for_workers(arg) for arg in getattr(args, "pytest_args", [])):
        from conformance.plugin.options import NO_WORKERS
        raise ConfigError(NO_WORKERS)   # before any target is started or report folder made
    # the command's own process: a pytest session that loads the plugin keeps its allocator as it was
    hand_back_large_blocks()
    cli = {name: getattr(args, name, None) for name in config.OPTIONS}
    target = config.resolve(cli)
    report_dir = Path(target.report_dir) if target.report_dir else None
    made = report_dir is not None and not report_dir.exists()
    if report_dir is not None:
        try:
            report_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--report-dir: cannot create {report_dir} ({exc.strerror})") from None
        writable(report_dir)
    if target.har:
        try:
            Path(target.har).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--har: cannot create the folder of {target.har} ({exc.strerror})") from None
    if target.rules:
        from conformance.rules import load_catalogue
        from conformance.selection import check_rules
        # a --rule that names nothing is refused before any request, and before an earlier run's reports are replaced
        check_rules(target.rules, load_catalogue(), target.apis)
    if target.expectations:
        from conformance.reporting.expectations import load
        from conformance.rules import load_catalogue
        load(target.expectations, load_catalogue())  # a missing or malformed file is a usage error, before any request
    if target.history:
        from conformance.history.store import check
        check(target.history)  # a file that is not a history file is a usage error, before any request
    started = time.time()
    verdict = _Verdict()
    kept = signals.restore()   # a signal kept while the command started stops the run here, reports written
    try:
        with signals.raising():
            if kept is not None:
                raise KeyboardInterrupt
            code = _run(args, target, report_dir, verdict)
    except KeyboardInterrupt:
        code = EXIT_INCOMPLETE
        print("conformance: interrupted", file=sys.stderr, flush=True)
    # the run is over: a signal from here on ends the command at once with its code (reports as they are)
    with signals.ending(code, reported=verdict.code is not None and not verdict.missing):
        return _finish(args, target, report_dir, verdict, code, started, made)


def _finish(args: argparse.Namespace, target: config.Target, report_dir: Path | None, verdict: _Verdict, code: int,
            started: float, made: bool) -> int:
    """The last lines of a run: an aborted report if the run wrote none, then what was tested and the exit code."""
    if code == EXIT_INCOMPLETE and report_dir is not None and not verdict.missing \
            and not _written_since(report_dir, started):
        # Stopped before the run's own reports (starting the target, collecting): reports still say so. A run
        # whose reports were written but for some (`missing`) keeps those it wrote: they are its verdict.
        write_aborted_report(target, None, report_dir, "interrupted before any test ran", incomplete=True)
    written = f"reports in {report_dir}/" if report_dir is not None else "no reports written"
    if verdict.missing:
        written = f"reports NOT written: {', '.join(verdict.missing)} missing in {report_dir}/"
    if verdict.code is None and code == EXIT_USAGE and args.pytest_args:
        # pytest refused what was given after `--`, or selected no test with it (its lines above say which)
        if made and report_dir is not None:
            with contextlib.suppress(OSError):
                report_dir.rmdir()   # only when empty: the folder this run made for reports it never wrote
        print(f"conformance: nothing tested: pytest refused the arguments after --, or ran no test with them "
              f"({' '.join(args.pytest_args)}) ; exit {code}", flush=True)
        return code
    print(f"conformance: tested {target.describe()}; {written} ; exit {code}", flush=True)
    return code


def _asks_for_workers(arg: str) -> bool:
    """Whether a pytest argument asks pytest-xdist for worker processes (-n 2, -n2, --numprocesses=2)."""
    return arg in ("-n", "--numprocesses") or arg.startswith("--numprocesses=") or (
        arg.startswith("-n") and arg[2:].isdigit()) or arg in ("-nauto", "-nlogical")


def writable(report_dir: Path) -> None:
    """A report directory the run could not write into is found before the first request, not after the run: a CI
    gate would otherwise read a run that wrote nothing as its verdict."""
    import tempfile
    try:
        with tempfile.NamedTemporaryFile(dir=report_dir, prefix=".conformance-", suffix=".probe"):
            pass
    except OSError as exc:
        raise ConfigError(f"--report-dir: cannot write to {report_dir} ({exc.strerror or exc})") from None


def _written_since(report_dir: Path, started: float) -> bool:
    report = report_dir / "report.json"
    return report.is_file() and report.stat().st_mtime >= started


def _run(args: argparse.Namespace, target: config.Target, report_dir: Path | None, verdict: _Verdict) -> int:
    with open_endpoints(target) as endpoints:
        if target.reference:
            print(f"conformance: started the embedded reference target at {endpoints.node_url}", flush=True)
        else:
            try:
                preflight(endpoints, timeout=min(target.timeout, 10.0), extra=(target.evm_rpc_url,))
                speaks(target, timeout=min(target.timeout, 10.0))
            except TargetUnreachable as exc:
                # The report is still written: a CI job that publishes it shows why nothing was tested.
                if report_dir is not None:
                    write_aborted_report(target, endpoints, report_dir, str(exc))
                raise
        from conformance.fleet import answers
        if report_dir is not None and answers.wanted(target):
            # The answers the targets of a fleet serving this chain are compared on (conformance.fleet).
            urls = {"node": endpoints.node_url, "data": endpoints.data_url, "metrics": endpoints.metrics_url}
            answers.record_for_run(target, urls, dict(endpoints.samples), endpoints.evm_chain, report_dir)
        from conformance.plugin.options import HandedTarget
        handed = HandedTarget(as_opened(target, endpoints))
        with contextlib.redirect_stdout(sys.stdout):
            code = int(pytest.main(_pytest_args(args, target), plugins=[verdict, handed]))
    # The suite's own code when the run built its report (pytest's codes overlap the suite's), else pytest's mapped.
    return verdict.code if verdict.code is not None else _PYTEST_EXIT.get(code, code)


class _Verdict:
    """Reads the exit code the run's report decided, once the session is over."""

    def __init__(self) -> None:
        self.code: int | None = None
        self.missing: list[str] = []   # reports the run could not write

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        from conformance.plugin.state import started_state

        state = started_state(config)   # None when pytest stopped before the plugin started (a usage error)
        if state is not None:
            self.code, self.missing = state.exit_code, list(state.missing_reports)


def write_aborted_report(target: config.Target, endpoints: Endpoints | None, report_dir: Path, reason: str, *,
                         incomplete: bool = False) -> None:
    """The reports of a run that tested nothing: why (the target did not answer, the run was stopped first)."""
    import datetime as dt

    from conformance.history.session import RunHistory
    from conformance.reporting.build import RunFacts, build
    from conformance.reporting.contract import pinned_contract, run_options
    from conformance.reporting.expectations import Verdicts
    from conformance.reporting.operations import OperationTimes
    from conformance.reporting.write import ReportNotWritten, write_reports
    from conformance.rules import load_catalogue

    now = dt.datetime.now(dt.UTC)
    urls = {"node": target.node_url, "data": target.data_url, "metrics": target.metrics_url}
    if endpoints is not None:
        urls = {"node": endpoints.node_url, "data": endpoints.data_url, "metrics": endpoints.metrics_url}
    facts = RunFacts(apis=target.apis, profile=target.profile, evm_chain=target.evm_chain, reference=target.reference,
                     urls=urls, seed=target.seed, started=now, finished=now, requests=0, gate=target.gate,
                     aborted=None if incomplete else reason, interrupted=reason if incomplete else None,
                     contract=pinned_contract(), options=run_options(target))
    report = build([], load_catalogue(), facts, OperationTimes(), Verdicts())
    history = RunHistory.of(target)
    if history is not None:
        # Kept like any run (its trend shows the gap); it decides no rule, so it changes no rule's history.
        with contextlib.suppress(ConfigError):
            history.keep(report)
    with contextlib.suppress(OSError, ReportNotWritten):
        # junit.xml among them: one errored test case, so a CI view shows why nothing was tested.
        write_reports(report, report_dir)
    if target.har and (not incomplete or not Path(target.har).exists()):
        # No request was sent: the archive asked for still exists, empty, and says why.
        from conformance import __version__
        from conformance.reporting.har import HarWriter
        with contextlib.suppress(OSError):
            HarWriter(target.har, creator_version=__version__).close(reason)


def preflight(endpoints: Endpoints, *, timeout: float, extra: tuple[str | None, ...] = ()) -> None:
    """Fails fast, as one line and exit 3, when a configured base URL does not answer at all."""
    urls = (endpoints.node_url, endpoints.data_url, endpoints.metrics_url, *extra)
    for url in dict.fromkeys(u for u in urls if u):
        reason = why_silent(url, timeout)
        if reason is not None:
            raise TargetUnreachable(f"{url} does not answer ({reason})")


def speaks(target: config.Target, *, timeout: float) -> None:
    """Fails fast, as one line and exit 3, when no selected API answers a documented read as JSON of the API (a
    static file server, an error page): the target is not the API at all."""
    from conformance.clients.speaks import unspoken

    reason = unspoken(target, timeout)
    if reason is not None:
        raise TargetUnreachable(reason)


SUITE_DIR = Path(__file__).resolve().parent / "suite"


def _pytest_args(args: argparse.Namespace, target: config.Target) -> list[str]:
    """The session's arguments: pytest's, and the plugin's that are not settings (the settings reach the plugin
    resolved: HandedTarget)."""
    out = ["--pyargs", "conformance.suite", "-p", "conformance.plugin", "-p", "no:cacheprovider",
           # pytest's log capture: the suite logs nothing, and the reports carry each test's exchanges
           "-p", "no:logging",
           # schemathesis' pytest plugin: the suite drives schemathesis itself, and the plugin's imports add a
           # tenth of a second to every run's start
           "-p", "no:schemathesis",
           # anyio's plugin, for async tests the suite does not have, is called at every fixture's setup
           "-p", "no:anyio",
           # pytest's watch for unraisable exceptions and exceptions of threads collects the garbage five times
           # over at the end of every session and after every test's teardown: seconds of a long run on a large
           # heap; the suite's threads report through the run's ledgers
           "-p", "no:unraisableexception", "-p", "no:threadexception",
           # pytest rewrites the asserts of every module of a plugin's package, ours included, and where bytecode
           # is not written (PYTHONDONTWRITEBYTECODE) it does so on every run: a twentieth of a second of each
           # session. The suite's checks report through rule IDs, not through assert introspection.
           "--assert=plain",
           # the suite lists failed tests itself, by their IDs in the suite (pytest's list shows paths relative to
           # the folder the run started in)
           "-o", "addopts=", "-o", "testpaths=", "-q", "-rN",
           # pytest's own traceback style re-parses every module of a traceback, about 0.1 s a failure: a target
           # that goes down mid-run would otherwise cost minutes of formatting for reports that replace it anyway.
           "--tb=native",
           # pytest takes the common folder of every argument that names a path as its root; a report
           # directory elsewhere would move it (and the test IDs printed). The suite's own folder is the root.
           f"--rootdir={SUITE_DIR}", "-o", "console_output_style=classic", "--conformance-progress"]
    if target.reference:
        out.append("--reference-target")
    if target.seed is not None:
        # the seed of generated data too: the same seed draws the same cases, so two runs send the same requests
        out.append(f"--hypothesis-seed={target.seed}")
    return out + list(args.pytest_args)


def as_opened(target: config.Target, endpoints: Endpoints) -> config.Target:
    """The target as the session tests it: at the URLs, with the EVM chain and the identifiers, of the endpoints
    opened for it. Not `reference` even when they are the embedded reference's: the session sends to the one this
    run started (--reference-target tells its reports so) and must not start one of its own."""
    return replace(target, node_url=endpoints.node_url, data_url=endpoints.data_url,
                   metrics_url=endpoints.metrics_url, evm_chain=endpoints.evm_chain,
                   samples=tuple(endpoints.samples.items()), reference=False)
