"""What a test proved: its evidence ledger around setup and call, a violation told apart from an error of the suite,
and the one way every count of a run classifies a test."""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any
from collections.abc import Generator, Iterator

import pluggy
import pytest

from conformance import evidence
from conformance.clients.http import redacted
from conformance.errors import BudgetExhausted, SuiteError, Violation, Violations
from conformance.engine import pytest_internals
from conformance.plugin import recheck, state
from conformance.plugin.collection import rule_ids
from conformance.reporting import outcomes
from conformance.reporting.expectations import excuse
from conformance.rules import load_catalogue
from conformance.reporting.outcomes import Findings


_LEDGER = pytest.StashKey[evidence.Ledger]()
_REPORTED = pytest.StashKey[dict[str, list[int]]]()


def _ledger(item: pytest.Item) -> evidence.Ledger:
    if _LEDGER not in item.stash:
        item.stash[_LEDGER] = evidence.Ledger(changes_state=item.get_closest_marker("mutating") is not None)
    return item.stash[_LEDGER]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    # Fixtures check what they read too (a page a test then walks): that evidence belongs to the test.
    if not rule_ids(item):   # not a conformance test: checks called from it raise as plain functions do
        return (yield)
    ledger = _ledger(item)
    with evidence.recording(ledger):
        try:
            return (yield)
        except BudgetExhausted as exc:
            _stopping(item, exc)
        except SuiteError:
            # The target could not be reached now: the next test that needs the fixture asks again.
            pytest_internals.forget_failures(item, (SuiteError,))
            raise
        except Violation:
            # A fixture saw a deviation: observed afresh before it is reported, like one the test itself sees.
            if not ledger.violations:
                raise
            ledger.violations = recheck.reproduced(item, ledger, setup=True)
            if ledger.violations:
                raise
            return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Runs the test with its ledger; a test whose independent checks broke fails at its end with all of them,
    unless running it again shows the deviation was a one-off (then its rules are flaky)."""
    if not rule_ids(item):
        return (yield)
    ledger = _ledger(item)
    with evidence.recording(ledger):
        try:
            result = yield
        except BudgetExhausted as exc:
            if not ledger.violations:
                _stopping(item, exc)
            stopped: BaseException | None = None
        except (Exception, pytest.skip.Exception, pytest.fail.Exception) as exc:
            # A violation recorded before the test stopped stays its verdict, whatever stopped it.
            if not ledger.violations:
                raise
            stopped = exc
        else:
            stopped = None
    if ledger.violations:
        ledger.violations = recheck.reproduced(item, ledger)
        if ledger.violations:
            raise _all_of(ledger) from stopped
        return None
    return result


def _stopping(item: pytest.Item, exc: BudgetExhausted) -> None:
    """The run's budget or duration is spent, or it was stopped: it stops after this test, which decides nothing."""
    run = state.run_state(item.config)
    run.stopping.stop(str(exc))
    item.session.shouldstop = str(exc)
    pytest.skip(f"interrupted: {exc}")


def _all_of(ledger: evidence.Ledger) -> Violation:
    return ledger.violations[0] if len(ledger.violations) == 1 else Violations(ledger.violations)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
        item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    outcome = yield
    report = outcome.get_result()
    if rule_ids(item):
        found = Findings.of_test(item)
        _classify(item, call, report, found)
        _attach_evidence(item, report, found)
        _excuse(item, report, found)
        found.taken().attach(report)
    secrets = state.secrets(item.config)
    if secrets:  # the terminal and JUnit read the test report: neither may show the key
        if isinstance(report.longrepr, (str, tuple)):  # a skip's is (path, line, reason)
            report.longrepr = redacted(report.longrepr, secrets)
        elif report.longrepr is not None and any(secret in str(report.longrepr) for secret in secrets):
            report.longrepr = redacted(str(report.longrepr), secrets)
        report.user_properties = [redacted(prop, secrets) for prop in report.user_properties]


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """pytest counts a failed setup as an error and a failed call as a failure; the suite counts a violation as a
    failure and anything else as an error, whichever phase found it, and a deviation that did not show again as
    flaky: its line says what the reports say."""
    if Findings.on(report) is None:
        return None
    found = outcomes.category(report)
    if found == "failed":
        return "failed", "F", "FAILED"
    if found == "error":
        return "error", "E", "ERROR"
    if found == "flaky":
        return "flaky", "R", "FLAKY"
    return None


def _attach_evidence(item: pytest.Item, report: pytest.TestReport, found: Findings) -> None:
    """Adds to the phase's findings the evidence gathered since the last phase."""
    if _LEDGER not in item.stash:
        return
    counts = item.stash[_LEDGER].counts()
    before = item.stash.get(_REPORTED, {})
    delta = {rule: [held - before.get(rule, [0, 0])[0], broke - before.get(rule, [0, 0])[1]]
             for rule, (held, broke) in counts.items()}
    delta = {rule: pair for rule, pair in delta.items() if any(pair)}
    item.stash[_REPORTED] = counts
    found.evidence = delta
    found.exchanges = item.stash[_LEDGER].take_exchanges()
    found.verified = item.stash[_LEDGER].take_verified()
    if report.skipped:
        found.blocked_by = list(item.stash[_LEDGER].blocked)


def _classify(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport, found: Findings) -> None:
    """Marks a failed test as a violation of the target or an error of the suite, its report a bug report."""
    if call.excinfo is None or call.excinfo.errisinstance(pytest.skip.Exception):
        return
    violation = _first(call.excinfo.value, Violation)
    if violation is not None:
        report.longrepr = str(violation)
        found.failure = "violation"
        found.violations = [_violation_entry(v) for v in getattr(violation, "all", None) or [violation]]
        return
    error = _first(call.excinfo.value, SuiteError)
    if error is not None:
        report.longrepr = f"{type(error).__name__}: {error}"
    elif not item.config.getoption("suite_tracebacks", False):
        report.longrepr = _defect_line(call.excinfo)
    # Anything else is a defect of the suite, not a deviation of the target: never counted against it.
    found.failure = "suite-error"


def _excuse(item: pytest.Item, report: pytest.TestReport, found: Findings) -> None:
    """A failed phase whose every problem an expectation excuses is reported to pytest as an expected failure
    (xfailed, with the entry's reason): pytest's line and junit.xml then count it as report.json does, once, as
    excused. The findings still say what failed, for the run's reports."""
    if not report.failed or report.when not in ("setup", "call") or found.failure is None:
        return
    entries = state.run_state(item.config).expectation_entries(load_catalogue())
    if not entries:
        return
    test = outcomes.TestOutcome(outcomes.test_id(item.nodeid), rule_ids(item),
                                "failed" if found.failure == "violation" else "error",
                                violations=list(found.violations))
    reason = excuse(entries, test, dt.date.today())
    if reason is not None:
        found.excused = reason
        report.outcome = "skipped"
        report.wasxfail = f"expected failure: {reason}"   # pytest's own mark of an expected failure


def _violation_entry(violation: Violation) -> dict[str, Any]:
    """A violation as report.json lists it."""
    return {"rule": violation.rule.id, "summary": violation.summary, "expected": violation.expected,
            "received": violation.received, "reproducer": violation.reproducer, "response": violation.response,
            "exchange": getattr(violation, "exchange_id", None)}


def _defect_line(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """One line for an unexpected exception: what it was and the innermost place in the suite it came from.

    A target can make the suite meet what nobody foresaw; the run reports that as an error of the suite in a
    line, not as a page of traceback (--suite-tracebacks shows it).
    """
    package = Path(__file__).resolve().parents[1]
    entries = list(excinfo.traceback)
    # The plugin's own hook wrappers and the loop that runs tests run every test: they are never where a defect is.
    running = {package / "plugin", package / "engine"}
    entries = [entry for entry in entries if Path(str(entry.path)).resolve().parent not in running]
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


