"""The terminal while a run goes: one progress line, and a short table at the end."""
from __future__ import annotations

import shutil
import threading
import time
from typing import Any, Protocol
from collections.abc import Callable

import pytest

from conformance import config as conf
from conformance.clients.http import HttpSession
from conformance.reporting.build import API_STATUSES, NOT_SELECTED
from conformance.reporting.operations import OperationTimes
from conformance.reporting.outcomes import category
from conformance.reporting import undecided


class RunSoFar(Protocol):
    """What the progress line reads of the run: the plugin's state of the session (plugin/state.py's RunState)."""

    @property
    def http(self) -> HttpSession | None: ...

    @property
    def target(self) -> conf.Target | None: ...

    @property
    def operations(self) -> OperationTimes: ...


class ProgressLine:
    """Replaces pytest's dots with a progress line: tests done of all, failures, errors, requests sent and the
    slowest operation so far; every two seconds on a terminal (rewritten in place), every fifteen elsewhere (a CI
    log), whether or not a test ended meanwhile."""

    EVERY_ON_A_TTY = 2.0
    EVERY_IN_A_LOG = 15.0

    def __init__(self, config: pytest.Config, run: Callable[[], RunSoFar | None]) -> None:
        """`run` gives the run's state as it is when the line is drawn (None before the plugin started): handed in
        by the plugin, so that reporting never imports the plugin that imports it."""
        self.config = config
        self._run = run
        self.total = 0
        self.done = 0
        self.failed = 0
        self.errors = 0
        self.started = time.monotonic()
        self._width = 0
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._writing = threading.Lock()

    @property
    def _writer(self) -> Any:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        return reporter._tw if reporter is not None else None

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        # pytest's reporter still files the report under the category (its failure sections and short
        # summary stay as they are); only the per-test letter is silenced.
        if hasattr(report, "wasxfail"):
            return "xfailed", "", ""   # counted as pytest counts it; the end lists it as excused, not failed
        found = category(report)
        if found is not None:
            return found, "", ""
        if report.when in ("setup", "teardown"):
            if report.failed:
                return "error", "", ""
            return ("skipped", "", "") if report.skipped else ("", "", "")
        return report.outcome, "", ""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)
        if self._ticker is None and self.total:
            self._show()
            self._ticker = threading.Thread(target=self._tick, name="conformance-progress", daemon=True)
            self._ticker.start()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.done += 1
        if category(report) == "failed":
            self.failed += 1
        elif category(report) == "error":
            self.errors += 1

    def _tty(self) -> bool:
        stream = getattr(self._writer, "_file", None)
        return bool(getattr(stream, "isatty", lambda: False)())

    def _tick(self) -> None:
        every = self.EVERY_ON_A_TTY if self._tty() else self.EVERY_IN_A_LOG
        due = time.monotonic() + every
        # each line is due at a whole number of periods from the first: one shown late does not put off the next
        while not self._stop.wait(max(0.0, due - time.monotonic())):
            self._show()
            due = max(due + every, time.monotonic() + every / 2)

    def line(self) -> str:
        """What the progress line says now."""
        run = self._run()
        total = self.total or self.done
        parts = [f"conformance: {self.done}/{total} tests", f"{self.failed} failed", f"{self.errors} errors"]
        if run is not None and run.http is not None:
            parts.append(f"{run.http.requests_sent} requests")
        # of the APIs the run tests: discovery's requests to another API are not what the run waits for
        apis = set(run.target.apis) if run is not None and run.target is not None else None
        slowest = _slowest(run.operations.times, apis) if run is not None else None
        if slowest is not None:
            parts.append(f"slowest {slowest}")
        return " · ".join([*parts, f"{time.monotonic() - self.started:.0f}s"])

    def _show(self, final: bool = False) -> None:
        writer = self._writer
        if writer is None:
            return
        with self._writing:
            line = self.line()
            if self._tty():
                # kept inside the terminal's width: a line that wraps would leave its first half behind at each redraw
                line = line[:max(20, shutil.get_terminal_size().columns - 1)]
                writer.write("\r" + line.ljust(self._width))
                self._width = len(line)
                if final:
                    writer.write("\n")
            else:
                writer.line(line)
            writer.flush()

    def pytest_sessionfinish(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=5)
        self._show(final=True)


def _slowest(times: dict[str, list[float]], apis: set[str] | None = None) -> str | None:
    """The operation (of `apis`, when given) whose slowest answer so far took longest, with that time."""
    longest = max(((max(values), key) for key, values in list(times.items())
                   if values and (apis is None or key.split(" ", 1)[0] in apis)), default=None)
    if longest is None:
        return None
    ms, key = longest
    return f"{key.split(' ', 1)[1]} {ms / 1000:.1f}s" if ms >= 1000 else f"{key.split(' ', 1)[1]} {ms:.0f}ms"


def end_table(report: dict[str, Any]) -> list[str]:
    """A few lines for the end of the run: each test that failed or errored, then per API its score and rule
    statuses, and the counts."""
    lines = []
    shown = {"failed": "FAILED", "error": "ERROR", "excused": "EXCUSED"}
    for test in report["tests"]:
        if test["outcome"] in shown:
            violation = test.get("violation") or {}
            headline = f"[{violation['rule']}] {violation.get('summary', '')}" if violation.get("rule") else \
                (test.get("message") or "").split("\n")[0]
            reason = str(test.get("excused", ""))
            why = f" (expected: {reason[:80]}{'…' if len(reason) > 80 else ''})" if test["outcome"] == "excused" else ""
            lines.append(f"{shown[test['outcome']]} {test['id']} - {headline[:160]}{why}")
    if lines:
        lines.append("")
    head = f"{'API':<11}{'score':>18}  " + " ".join(f"{s:>8}" for s in API_STATUSES) + f"{'decided':>12}"
    lines += [head, "-" * len(head)]
    for api, data in report["apis"].items():
        score = data["score"]
        ratio = f"{score['ratio']:.1%}" if score["ratio"] is not None else "-"
        scored = f"{ratio} ({score['passed']}/{score['tested']})"
        # a score is of the rules decided: how many of the API's gated rules that is stands beside it
        decided = f"{score['tested']} of {score['required']}" if "required" in score else ""
        lines.append(f"{api:<11}{scored:>18}  "
                     + " ".join(f"{data['statuses'].get(s, 0):>8}" for s in API_STATUSES) + f"{decided:>12}")
    excused = [rule["id"] for rule in report["rules"] if rule["status"] == "fail" and rule.get("expected")]
    if excused:
        lines.append(f"{len(excused)} failing rule(s) excused by the expectations, not failing the run: "
                     f"{', '.join(excused[:12])}{' …' if len(excused) > 12 else ''}")
    lines += undecided.lines(report)
    not_selected = sum(rule["status"] == NOT_SELECTED for rule in report["rules"])
    if not_selected:
        lines.append(f"{not_selected} rules of APIs not selected in this run")
    lines += history_lines(report.get("history"))
    summary = report["summary"]
    flaky = f", {summary['flaky']} flaky" if summary.get("flaky") else ""
    lines.append(f"tests: {summary['passed']} passed, {summary['failed']} failed, {summary['errors']} errors, "
                 f"{summary['skipped']} skipped{flaky}, {summary['expected_failures']} expected failures; "
                 f"{summary['requests']} requests; verdict: {summary['verdict']}")
    if summary["tests"] and summary["tests"] == summary["skipped"]:
        lines.append("every test skipped: nothing of the target could be tested (see the skip reasons with -rs)")
    expectations = report["expectations"]
    for entry in expectations["expired"]:
        lines.append(f"expired expectation: {entry['rule']} (expired {entry['expires']}): {entry['reason']}")
    for entry in expectations["unexpected_passes"]:
        lines.append(f"unexpected pass: {entry['rule']} now passes; remove its expectation ({entry['reason']})")
    return lines


def history_lines(history: dict[str, Any] | None) -> list[str]:
    """One line on what changed since the runs of this target kept in the history file, if it keeps one."""
    if not history:
        return []
    if history.get("previous") is None:
        return [f"history ({history['target']}): the first run kept; its {len(history['new'])} failing rules are new"]
    still = history["still_failing"]
    longest = max((entry["runs"] for entry in still), default=0)
    return [f"history ({history['target']}): {len(history['new'])} new, {len(history['fixed'])} fixed, "
            f"{len(still)} still failing" + (f" (the longest for {longest} runs)" if still else "")
            + (f"; new: {', '.join(entry['rule'] for entry in history['new'][:10])}" if history["new"] else "")]
