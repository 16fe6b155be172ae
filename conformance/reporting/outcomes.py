"""What each test did, gathered from pytest's reports: each phase's report carries what the suite found in it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, cast

import pytest

from conformance.evidence import EXCHANGES_PER_RULE

RULES_KEY = "rule"   # one user property per rule a test carries (reaches pytest's own JUnit XML)
#: Why a phase of a test failed: the target broke a rule, or the suite could not test it.
Failure = Literal["violation", "suite-error"]


@dataclass
class Findings:
    """What the suite found in a test: kept on the test while it runs (`of_test`), and, for each phase, handed to
    that phase's report (`taken`, `on`), where the terminal and the run's reports read it."""

    failure: Failure | None = None   # a failed phase's: why it failed
    violations: list[dict[str, Any]] = field(default_factory=list)   # a failed phase's: the headline first
    evidence: dict[str, list[int]] = field(default_factory=dict)     # rule -> [checks held, checks broken]
    exchanges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)   # rule -> exchanges judged (bounded)
    verified: set[tuple[str, str, str]] = field(default_factory=set)   # declared relations a check verified
    blocked_by: list[str] = field(default_factory=list)   # a skipped phase's: the broken rules that stopped it
    #: What the test observed so far (rule, seen): a report has every one made before it.
    observations: list[dict[str, Any]] = field(default_factory=list)
    #: Deviations the test saw so far that did not show again when it ran again.
    flaky: list[dict[str, Any]] = field(default_factory=list)
    #: A failed phase's: the reason of the expectation that excuses it (pytest then counts it as xfailed).
    excused: str | None = None

    @staticmethod
    def of_test(item: pytest.Item) -> Findings:
        """The findings of the running test not yet handed to a report."""
        if _FINDINGS not in item.stash:
            item.stash[_FINDINGS] = Findings()
        return item.stash[_FINDINGS]

    def taken(self) -> Findings:
        """What a phase's report carries: the phase's own findings, which the next phase starts without, and the
        observations and flaky deviations so far, which the test keeps."""
        phase = Findings(self.failure, self.violations, self.evidence, self.exchanges, self.verified, self.blocked_by,
                         list(self.observations), list(self.flaky), self.excused)
        self.failure, self.violations, self.evidence, self.exchanges = None, [], {}, {}
        self.verified, self.blocked_by, self.excused = set(), [], None
        return phase

    def attach(self, report: pytest.TestReport) -> None:
        """Hands these findings to a phase's report."""
        setattr(report, _ON_REPORT, self)

    @staticmethod
    def on(report: pytest.TestReport) -> Findings | None:
        """The findings a report of a conformance test carries; None on any other test's."""
        found = getattr(report, _ON_REPORT, None)
        return found if isinstance(found, Findings) else None


_FINDINGS = pytest.StashKey[Findings]()
# A report keeps what it is given, as pytest's own `wasxfail`; the run never sends reports to another process
# (it refuses -n), so the findings stay objects from the test to the report.
_ON_REPORT = "conformance_findings"


def observation(rule_id: str, seen: Any) -> dict[str, Any]:
    """An observation as reports keep it: a copy of `seen` made of what report.json holds (lists, objects, text,
    numbers), taken when it is recorded (the test may go on changing what it passed), anything else as its text."""
    return {"rule": rule_id, "seen": _plain(seen)}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key if key is None or isinstance(key, (str, int, float)) else str(key): _plain(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float)):
        return value
    return str(value)


def test_id(nodeid: str) -> str:
    """A test's ID as reports and expectation files name it: its node ID from the suite's own folder on."""
    marker = "conformance/suite/"
    at = nodeid.find(marker)
    return nodeid[at + len(marker):] if at >= 0 else nodeid


@dataclass
class TestOutcome:
    id: str
    rules: list[str] = field(default_factory=list)
    outcome: str = "passed"             # passed | failed | error | skipped
    duration_s: float = 0.0
    violation: dict[str, Any] | None = None          # the headline of a failed test
    violations: list[dict[str, Any]] = field(default_factory=list)   # all of them, each under its own rule
    message: str = ""                   # the failure or error as reported, or the reason of a skip
    observations: list[dict[str, Any]] = field(default_factory=list)
    evidence: dict[str, list[int]] = field(default_factory=dict)      # rule -> [held, broke]
    blocked_by: list[str] = field(default_factory=list)   # a skipped test's: the broken rules that stopped it
    flaky: list[dict[str, Any]] = field(default_factory=list)   # deviations seen once, not when it ran again
    exchanges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)   # rule -> exchanges that decided it
    verified: set[tuple[str, str, str]] = field(default_factory=set)   # declared relations a check verified

    @property
    def broken_rules(self) -> list[str]:
        """The rules this test found broken, in the order it found them."""
        return list(dict.fromkeys(v["rule"] for v in self.violations if v.get("rule")))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "outcome": self.outcome, "rules": self.rules,
                               "duration_s": round(self.duration_s, 4)}
        if self.evidence:
            out["evidence"] = {rule: {"held": held, "broke": broke} for rule, (held, broke) in self.evidence.items()}
        if self.violation:
            out["violation"] = self.violation
        if len(self.violations) > 1:
            out["violations"] = self.violations
        if self.message:
            out["message"] = self.message
        if self.blocked_by:
            out["blocked_by"] = self.blocked_by
        if self.flaky:
            out["flaky"] = self.flaky
        return out


class OutcomeRecorder:
    """Turns the setup/call/teardown reports of each test into one TestOutcome."""

    def __init__(self) -> None:
        self.tests: dict[str, TestOutcome] = {}

    def add(self, report: pytest.TestReport) -> None:
        # other plugins' user properties are only passed over
        rules = [value for key, value in cast("list[tuple[str, str]]", report.user_properties) if key == RULES_KEY]
        if not rules:
            return
        test = self.tests.setdefault(report.nodeid, TestOutcome(test_id(report.nodeid), list(dict.fromkeys(rules))))
        test.duration_s += report.duration
        found = Findings.on(report) or Findings()
        for seen in found.observations:
            if seen not in test.observations:
                test.observations.append(seen)
        for rule, (held, broke) in found.evidence.items():
            pair = test.evidence.setdefault(rule, [0, 0])
            pair[0] += held
            pair[1] += broke
        test.verified.update(found.verified)
        for rule, refs in found.exchanges.items():
            kept = test.exchanges.setdefault(rule, [])
            kept += refs[:max(0, EXCHANGES_PER_RULE - len(kept))]
        if found.flaky and report.when == "call":
            test.flaky += found.flaky
            if test.outcome == "passed":
                test.outcome = "flaky"
        if report.failed or found.excused is not None:   # an excused failure is still the failure it was
            if found.failure == "violation" and report.when in ("setup", "call"):
                test.outcome = "failed"
                test.violation = found.violations[0] if found.violations else None
                test.violations = list(found.violations)
            elif test.outcome != "failed":
                test.outcome = "error"
            if not test.message:
                test.message = _text(report.longrepr)
        elif report.skipped and test.outcome == "passed":
            test.outcome = "skipped"
            test.message = _skip_reason(report.longrepr)
            test.blocked_by = list(found.blocked_by)


def category(report: pytest.TestReport) -> str | None:
    """How the suite counts a phase of a test where it differs from pytest: "failed" for a violation of the target
    (found while the test or its fixtures ran), "error" for any other failure, "flaky" for a deviation that did not
    show again. pytest's own terminal line uses it too, so every count of a run says the same."""
    found = Findings.on(report)
    if report.passed and report.when == "call" and found is not None and found.flaky:
        return "flaky"
    if not report.failed or report.when not in ("setup", "call"):
        return "error" if report.failed else None
    return "failed" if found is not None and found.failure == "violation" else "error"


def _text(longrepr: Any, limit: int = 4000) -> str:
    text = str(longrepr)
    return text if len(text) <= limit else text[:limit] + "…"


def _skip_reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return _text(longrepr, 300)
