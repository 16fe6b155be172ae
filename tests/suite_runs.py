"""Runs the conformance suite in-process against a reference target and reports what each test did."""
from __future__ import annotations

import io
import contextlib
from dataclasses import dataclass, field
from functools import cache

import pytest

from conformance.plugin import OUTCOME_KEY, rule_ids
from conformance.reference import ReferenceServer

BASE_ARGS = ["-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", "-q", "--no-header", "--suite-tracebacks",
             "--conformance-profile", "quick", "-W", "ignore::pytest.PytestAssertRewriteWarning"]


@dataclass
class Outcome:
    nodeid: str
    rules: list[str]
    outcome: str = "passed"      # passed | failed | skipped | error
    kind: str | None = None      # violation | suite-error, for failures
    message: str = ""


@dataclass
class SuiteRun:
    exit_code: int
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    output: str = ""

    def failed_rules(self) -> set[str]:
        return {rule for o in self.outcomes.values() if o.outcome in ("failed", "error") for rule in o.rules}

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes.values() if o.outcome in ("failed", "error")]


class _Recorder:
    def __init__(self) -> None:
        self.outcomes: dict[str, Outcome] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            self.outcomes[item.nodeid] = Outcome(item.nodeid, rule_ids(item))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.setdefault(report.nodeid, Outcome(report.nodeid, []))
        if report.failed:
            outcome.outcome = "failed" if report.when == "call" else "error"
            outcome.kind = dict(report.user_properties).get(OUTCOME_KEY)
            outcome.message = str(report.longrepr)[-3000:]
        elif report.skipped and outcome.outcome == "passed":
            outcome.outcome = "skipped"


def run_suite(server: ReferenceServer | None, selection: list[str], *extra: str,
              allow_mutations: bool = True) -> SuiteRun:
    """Runs the selected suite tests (node IDs or paths) against `server`; `extra` are more pytest arguments."""
    recorder = _Recorder()
    args = list(BASE_ARGS)
    if server is not None:
        url = server.url
        info = server.info()
        # Each run has its own fresh reference, so state-changing tests are harmless there and must be proven.
        args += ["--allow-mutations"] if allow_mutations else []
        args += ["--node-url", url, "--data-url", url, "--metrics-url", url,
                 "--evm-chain", str(info["evm_blockchain_id"])]
        for name, value in dict(info["samples"]).items():  # type: ignore[call-overload]
            args += ["--sample", f"{name}={value}"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = pytest.main(args + list(extra) + selection, plugins=[recorder])
    return SuiteRun(int(code), recorder.outcomes, out.getvalue())


@cache
def rule_map() -> dict[str, tuple[str, ...]]:
    """Rule ID -> node IDs of the suite tests that carry it (one collection, reused)."""
    run = run_suite(None, ["--pyargs", "conformance.suite"], "--collect-only", "--api",
                    "admin,index,evm,validators,data,metrics")
    by_rule: dict[str, list[str]] = {}
    for outcome in run.outcomes.values():
        for rule in outcome.rules:
            by_rule.setdefault(rule, []).append(outcome.nodeid)
    return {rule: tuple(ids) for rule, ids in by_rule.items()}
