"""What each test did, gathered from pytest's reports (the suite's findings travel in their user properties)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

RULES_KEY = "rule"                          # one user property per rule a test carries (reaches JUnit)
OUTCOME_KEY = "conformance_outcome"         # "violation" | "suite-error" on failed tests
VIOLATION_KEY = "conformance_violation"     # JSON: rule, summary, expected, received, reproducer
OBSERVATION_KEY = "observation"             # JSON: rule, seen
VIOLATIONS_KEY = "conformance_violations"   # JSON: every violation of a failed test, the headline first
EVIDENCE_KEY = "conformance_evidence"       # JSON: rule -> [checks held, checks broken] in one phase
FLAKY_KEY = "conformance_flaky"             # JSON: deviations a test saw once and not when it ran again
BLOCKED_KEY = "conformance_blocked"         # JSON: rules whose reported violation kept a skipped test from running
EXCHANGES_KEY = "conformance_exchanges"     # JSON: rule -> the exchanges its checks judged in one phase (bounded)
VERIFIED_KEY = "conformance_verified"       # JSON: [declaration, aspect, operation] of declared relations verified
#: Exchanges a test keeps per rule, over its phases.
EXCHANGES_PER_TEST_RULE = 3


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
        # the values under the suite's own keys are the JSON text it recorded; other plugins' are only passed over
        properties = cast("list[tuple[str, str]]", report.user_properties)
        rules = [value for key, value in properties if key == RULES_KEY]
        if not rules:
            return
        test = self.tests.setdefault(report.nodeid, TestOutcome(test_id(report.nodeid), list(dict.fromkeys(rules))))
        test.duration_s += report.duration
        for key, value in properties:
            if key == OBSERVATION_KEY:
                seen = json.loads(value)
                if seen not in test.observations:
                    test.observations.append(seen)
            elif key == EVIDENCE_KEY:
                for rule, (held, broke) in json.loads(value).items():
                    pair = test.evidence.setdefault(rule, [0, 0])
                    pair[0] += held
                    pair[1] += broke
            elif key == VERIFIED_KEY:
                test.verified.update(tuple(mark) for mark in json.loads(value))
            elif key == EXCHANGES_KEY:
                for rule, refs in json.loads(str(value)).items():
                    kept = test.exchanges.setdefault(rule, [])
                    kept += refs[:max(0, EXCHANGES_PER_TEST_RULE - len(kept))]
        for key, value in properties:
            if key == FLAKY_KEY and report.when == "call":
                test.flaky += json.loads(value)
                if test.outcome == "passed":
                    test.outcome = "flaky"
        if report.failed:
            kinds = dict(properties)
            if kinds.get(OUTCOME_KEY) == "violation" and report.when in ("setup", "call"):
                test.outcome = "failed"
                test.violation = json.loads(kinds[VIOLATION_KEY]) if VIOLATION_KEY in kinds else None
                test.violations = (json.loads(kinds[VIOLATIONS_KEY]) if VIOLATIONS_KEY in kinds
                                   else [test.violation] if test.violation else [])
            elif test.outcome != "failed":
                test.outcome = "error"
            if not test.message:
                test.message = _text(report.longrepr)
        elif report.skipped and test.outcome == "passed":
            test.outcome = "skipped"
            test.message = _skip_reason(report.longrepr)
            test.blocked_by = json.loads(dict(properties).get(BLOCKED_KEY, "[]"))


def category(report: pytest.TestReport) -> str | None:
    """How the suite counts a phase of a test where it differs from pytest: "failed" for a violation of the target
    (found while the test or its fixtures ran), "error" for any other failure, "flaky" for a deviation that did not
    show again. pytest's own terminal line uses it too, so every count of a run says the same."""
    if report.passed and report.when == "call" and any(key == FLAKY_KEY for key, _ in report.user_properties):
        return "flaky"
    if not report.failed or report.when not in ("setup", "call"):
        return "error" if report.failed else None
    return "failed" if (OUTCOME_KEY, "violation") in report.user_properties else "error"


def _text(longrepr: Any, limit: int = 4000) -> str:
    text = str(longrepr)
    return text if len(text) <= limit else text[:limit] + "…"


def _skip_reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return _text(longrepr, 300)
