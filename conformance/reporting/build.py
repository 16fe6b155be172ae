"""Builds report.json's content from what the tests did: per rule, per API, and the gate's verdict."""
from __future__ import annotations

import datetime as dt
import hashlib
import platform
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit, urlunsplit

from conformance import __version__
from conformance.coverage.gate import gate_line
from conformance.evidence import EXCHANGES_PER_RULE
from conformance.errors import EXIT_CONFORMANT, EXIT_INCOMPLETE, EXIT_UNTESTABLE, EXIT_USAGE, EXIT_VIOLATION
from conformance.operations import all_operations
from conformance.reporting.operations import OperationTimes
from conformance.reporting.outcomes import TestOutcome
from conformance.rules import REQUIRED_LEVELS, Catalogue, Rule

if TYPE_CHECKING:
    from conformance.reporting.expectations import Expectation, Verdicts

SCHEMA = "conformance-report/1"
#: "not selected": a rule of none of the APIs the run selected; never counted as untested, nor in any API's score.
NOT_SELECTED = "not selected"
STATUSES = ("pass", "fail", "flaky", "error", "skip", "untested", "observed", NOT_SELECTED)
#: The statuses a rule of a selected API can have.
API_STATUSES = tuple(status for status in STATUSES if status != NOT_SELECTED)
#: Levels whose failures fail the run, per --gate value: the gate names the lowest level that still counts.
GATES = {"must": ("must",), "standard": ("must", "standard")}


def redact_url(url: str | None) -> str | None:
    """A URL fit for a report: no user or password, no query (API keys travel there on some services)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass
class RunFacts:
    """What a report says about the run besides its tests."""

    apis: tuple[str, ...]
    profile: str
    urls: dict[str, str | None]
    evm_chain: str | None
    reference: bool
    seed: int | None
    started: dt.datetime
    finished: dt.datetime
    requests: int
    gate: str = "standard"
    expectations_file: str | None = None
    aborted: str | None = None   # why no test ran (the target did not answer, …)
    interrupted: str | None = None   # why the run stopped before its last test (a signal, the budget, …)
    not_reached: frozenset[str] = frozenset()   # rules carried only by tests the run did not reach
    left_out: Mapping[str, str] = field(default_factory=dict)   # rule -> why its only tests were left out
    flaky_fails: bool = False    # --flaky fail: a deviation that did not show again fails the gate
    #: --fail-on new: rules the history found failing before this run; their failures do not fail the gate again
    old_failures: frozenset[str] = frozenset()
    memory: dict[str, Any] | None = None   # the bound, the peak, and what was trimmed or let go of to keep it
    discovery: dict[str, Any] | None = None   # identifiers used, with sources, and the crawl that found them
    contract: dict[str, str | None] | None = None   # file name -> sha256 of each spec, catalogue file and document
    options: dict[str, Any] | None = None   # every setting as resolved, the API key redacted
    har: dict[str, Any] | None = None   # the HAR archive written: its file and how many exchanges it holds
    coverage: dict[str, Any] | None = None   # per tested API, the contract's items the run showed (coverage/)
    min_coverage: float | None = None   # --min-coverage: a dimension below it fails the gate
    #: faults on the way to the target ridden through, and since when it was down if the run gave up on it
    transport: dict[str, Any] | None = None


def rule_status(rule: Rule, carriers: list[TestOutcome], held: int, broke: int,
                observed: list[dict[str, Any]]) -> str:
    """A rule's verdict from the evidence its checks gathered; the tests that carry it only say whether it ran."""
    if broke:
        return "fail"
    if any(rule.id in {entry["rule"] for entry in test.flaky} for test in carriers):
        return "flaky"
    if rule.level == "observe":
        ran = any(test.outcome == "passed" for test in carriers)
        return "observed" if ran or observed or held else ("skip" if carriers else "untested")
    if held:
        return "pass"
    if any(test.outcome == "error" for test in carriers):
        return "error"
    if carriers and all(test.outcome == "skipped" for test in carriers):
        # A test that could not run because another rule's violation stands in the way leaves its rules
        # untested, blocked by that rule; a skip is for what the target or the run leaves out.
        return "untested" if any(test.blocked_by for test in carriers) else "skip"
    return "untested"


def exit_code(tests: Iterable[TestOutcome], catalogue: Catalogue, verdicts: Verdicts, gate: str,
              flaky_fails: bool = False, old_failures: frozenset[str] = frozenset()) -> int:
    """1 for a gated, unexcused violation (or, with `flaky_fails`, a flaky one) or an expired expectation; else 3
    for an unexcused error or when no test could run at all (every one skipped: nothing of the target was tested);
    else 0. A rule of `old_failures` (failing before this run, under --fail-on new) fails nothing again."""
    levels = GATES[gate]
    violated = errored = False
    tests = list(tests)
    if not any(test.outcome in ("passed", "failed") or verdicts.excuses_test(test) for test in tests):
        errored = True
    for test in tests:
        if flaky_fails and any(catalogue[entry["rule"]].level in levels for entry in test.flaky
                               if entry["rule"] in catalogue and entry["rule"] not in old_failures):
            violated = True
        if test.outcome == "failed":
            for rule in test.broken_rules or test.rules:
                if (test.id, rule) in verdicts.excused or rule not in catalogue or rule in old_failures:
                    continue
                violated = violated or catalogue[rule].level in levels
        elif test.outcome == "error" and not verdicts.excuses_test(test):
            errored = True
    if violated or verdicts.expired:
        return EXIT_VIOLATION
    return EXIT_UNTESTABLE if errored else EXIT_CONFORMANT


def build(tests: list[TestOutcome], catalogue: Catalogue, facts: RunFacts, operations: OperationTimes,
          verdicts: Verdicts) -> dict[str, Any]:
    """The content of report.json (report.schema.json describes it)."""
    by_rule = _ByRule.of(tests)
    rules = [_rule_entry(rule, by_rule, facts, verdicts) for rule in catalogue]
    summary = {**_counts(tests, facts, verdicts), **_verdict(tests, catalogue, facts, verdicts)}
    return {
        "schema": SCHEMA,
        "suite": _suite(facts),
        "target": _target(facts, operations),
        "summary": summary,
        "apis": _per_api(rules, facts.apis, operations),
        "rules": rules,
        "tests": [_test_entry(test, verdicts) for test in sorted(tests, key=lambda t: t.id)],
        "operations": operations.summary(),
        "expectations": verdicts.to_json(),
        **_identifiers(facts.discovery),
        **({"coverage": facts.coverage} if facts.coverage is not None else {}),
    }


@dataclass
class _ByRule:
    """What the run's tests say of each rule: the tests that carry it, their failures, observations, evidence and
    the exchanges their checks judged."""

    carriers: dict[str, list[TestOutcome]] = field(default_factory=dict)
    failures: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    observations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    evidence: dict[str, list[int]] = field(default_factory=dict)   # rule -> [held, broke]
    exchanges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @staticmethod
    def of(tests: list[TestOutcome]) -> _ByRule:
        found = _ByRule()
        for test in tests:
            for rule_id in test.rules:
                found.carriers.setdefault(rule_id, []).append(test)
            for rule_id, (held, broke) in test.evidence.items():
                pair = found.evidence.setdefault(rule_id, [0, 0])
                pair[0] += held
                pair[1] += broke
            for violation in test.violations:
                found.failures.setdefault(violation["rule"], []).append(_failure(test, violation))
                # A violation raised outside a ledger (a cached fixture's) still counts once against its rule.
                pair = found.evidence.setdefault(violation["rule"], [0, 0])
                if not pair[1]:
                    pair[1] = 1
            for seen in test.observations:
                found.observations.setdefault(seen["rule"], []).append({"test": test.id, "seen": seen.get("seen")})
            for rule_id, refs in test.exchanges.items():
                found.exchanges.setdefault(rule_id, []).extend({**ref, "test": test.id} for ref in refs)
        return found


def _rule_entry(rule: Rule, by_rule: _ByRule, facts: RunFacts, verdicts: Verdicts) -> dict[str, Any]:
    """A rule as report.json lists it: its verdict, the evidence and tests behind it, and what went wrong."""
    mine = by_rule.carriers.get(rule.id, [])
    failed = by_rule.failures.get(rule.id, [])
    held, broke = by_rule.evidence.get(rule.id, [0, 0])
    status = rule_status(rule, mine, held, broke, by_rule.observations.get(rule.id, [])) \
        if set(rule.apis) & set(facts.apis) else NOT_SELECTED
    entry: dict[str, Any] = {
        "id": rule.id, "title": rule.title, "api": list(rule.apis), "level": rule.level,
        "source": {"doc": rule.doc, "section": rule.section}, "status": status,
        "quote_sha256": hashlib.sha256(rule.quote.encode("utf-8")).hexdigest()[:16],
        "evidence": {"held": held, "broke": broke},
        "tests": [test.id for test in mine]}
    if rule.id in by_rule.exchanges:
        entry["evidence"]["exchanges"] = deciding_exchanges(by_rule.exchanges[rule.id])
    if rule.standard:
        entry["standard"] = rule.standard
    if rule.untestable:
        entry["untestable"] = rule.untestable
    if failed:
        entry["failures"] = failed
        entry["quote"] = rule.quote   # the sentence broken, for a report read without the documents at hand
    errors = [{"test": test.id, "message": test.message} for test in mine if test.outcome == "error"]
    if errors:
        entry["errors"] = errors
    if rule.id in by_rule.observations:
        entry["observations"] = by_rule.observations[rule.id]
    flaky = [{"test": test.id, **seen} for test in mine for seen in test.flaky if seen["rule"] == rule.id]
    if flaky:
        entry["flaky"] = flaky
    if status == "untested" and rule.id in facts.not_reached:
        entry["reason"] = "interrupted"
    elif status in ("untested", "skip") and not mine and rule.id in facts.left_out:
        entry["reason"] = facts.left_out[rule.id]
    elif status == "skip":
        # what the target or the run left out, in the words of the first test's skip: read beside the rule
        why = next((test.message for test in mine if test.outcome == "skipped" and test.message), "")
        if why:
            entry["reason"] = why.split("\n")[0][:300]
    blocked_by = _blocked_by(rule, mine)
    if blocked_by and status == "untested":
        # Its tests stopped at another rule's violation before any check of it ran: say which, so an
        # untested rule is not read as one the suite forgot.
        entry["blocked_by"] = blocked_by
    excuses = _excuses(rule, mine, failed, verdicts)
    if excuses and status in ("fail", "error"):
        entry["expected"] = sorted((e.to_json() for e in excuses), key=lambda e: e["expires"])
    return entry


def _blocked_by(rule: Rule, carriers: list[TestOutcome]) -> list[str]:
    """The other rules whose violation stopped a test of `rule`: broken by that test, or reported broken before."""
    return sorted({broken for t in carriers if t.outcome == "failed" for broken in t.broken_rules
                   if broken != rule.id} | {broken for t in carriers for broken in t.blocked_by if broken != rule.id})


def _excuses(rule: Rule, carriers: list[TestOutcome], failed: list[dict[str, Any]],
             verdicts: Verdicts) -> set[Expectation]:
    """The expectations that excuse a failure or an error of `rule`."""
    excuses = {verdicts.excused[(f["test"], rule.id)] for f in failed if (f["test"], rule.id) in verdicts.excused}
    return excuses | {verdicts.excused[(t.id, rule.id)] for t in carriers
                      if t.outcome == "error" and (t.id, rule.id) in verdicts.excused}


def _test_entry(test: TestOutcome, verdicts: Verdicts) -> dict[str, Any]:
    entry = test.to_json()
    reason = verdicts.excuse_of(test)
    if reason is not None:
        # counted once, as excused, in every report; what the test found stays beside it
        entry.update(outcome="excused", found=entry["outcome"], excused=reason)
    return entry


def _counts(tests: list[TestOutcome], facts: RunFacts, verdicts: Verdicts) -> dict[str, Any]:
    """How many tests ended each way, and the requests sent. A test whose every problem an expectation excuses is
    counted once, as an expected failure, not also as a failure or an error: the terminal, pytest's line, junit.xml
    and every report count it so."""
    excused = {test.id for test in tests if verdicts.excuses_test(test)}
    return {"tests": len(tests),
            "passed": sum(t.outcome == "passed" for t in tests),
            "failed": sum(t.outcome == "failed" and t.id not in excused for t in tests),
            "errors": sum(t.outcome == "error" and t.id not in excused for t in tests),
            "skipped": sum(t.outcome == "skipped" for t in tests),
            "flaky": sum(t.outcome == "flaky" for t in tests),
            "expected_failures": len(excused),
            "requests": facts.requests}


#: What each exit code says of the target; any other, that it could not be tested.
VERDICTS = {EXIT_CONFORMANT: "conformant", EXIT_VIOLATION: "violations", EXIT_INCOMPLETE: "incomplete"}


def _verdict(tests: list[TestOutcome], catalogue: Catalogue, facts: RunFacts, verdicts: Verdicts) -> dict[str, Any]:
    """The run's exit code and verdict, with the coverage gate's line when coverage failed it."""
    out: dict[str, Any] = {}
    code = _run_exit_code(tests, catalogue, facts, verdicts)
    coverage_gate = gate_line(facts.coverage or {}, facts.min_coverage)
    if coverage_gate:
        out["coverage_gate"] = coverage_gate
        if code == EXIT_CONFORMANT:
            code = EXIT_VIOLATION
    out["exit_code"] = code
    out["verdict"] = VERDICTS.get(code, "untestable")
    return out


def _run_exit_code(tests: list[TestOutcome], catalogue: Catalogue, facts: RunFacts, verdicts: Verdicts) -> int:
    """The exit code before the coverage gate: why the run could not decide, else what its tests found."""
    if facts.aborted or (facts.transport or {}).get("down"):
        # a target that went down stopped the run as a signal does, but it is the target that could not be tested
        return EXIT_UNTESTABLE
    if facts.interrupted:
        return EXIT_INCOMPLETE
    if not tests:
        return EXIT_USAGE   # the selection left nothing to run: nothing was tested
    return exit_code(tests, catalogue, verdicts, facts.gate, facts.flaky_fails, facts.old_failures)


def _suite(facts: RunFacts) -> dict[str, Any]:
    """The run itself: the suite's version, its settings, when it ran, and what limited or stopped it."""
    return {"name": "conformance", "version": __version__, "profile": facts.profile, "seed": facts.seed,
            "gate": facts.gate, "gated_levels": list(GATES[facts.gate]),
            "expectations": facts.expectations_file,
            "python": platform.python_version(),
            "started": facts.started.isoformat(timespec="seconds"),
            "finished": facts.finished.isoformat(timespec="seconds"),
            "duration_s": round((facts.finished - facts.started).total_seconds(), 3),
            **({"aborted": facts.aborted} if facts.aborted else {}),
            **({"interrupted": facts.interrupted} if facts.interrupted else {}),
            **({"memory": facts.memory} if facts.memory else {}),
            **({"contract": facts.contract} if facts.contract is not None else {}),
            **({"options": facts.options} if facts.options is not None else {}),
            **({"har": facts.har} if facts.har else {}),
            **({"transport": facts.transport} if facts.transport else {})}


def _target(facts: RunFacts, operations: OperationTimes) -> dict[str, Any]:
    """What was tested: the reference or a live target, its APIs, URLs and the versions it answered with."""
    return {"reference": facts.reference, "apis": list(facts.apis),
            "urls": {name: redact_url(url) for name, url in facts.urls.items()},
            "evm_chain": facts.evm_chain,
            "versions": {"server": sorted(operations.servers),
                         "client": sorted(operations.client_versions)}}


def deciding_exchanges(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first few exchanges that decided a rule, those of broken checks first, each once: report.json stays
    small on a long run."""
    seen: set[Any] = set()
    out = []
    for ref in sorted(refs, key=lambda ref: ref.get("check") != "broke"):
        if ref["id"] in seen:
            continue
        seen.add(ref["id"])
        out.append(ref)
        if len(out) == EXCHANGES_PER_RULE:
            break
    return out


def _identifiers(discovery: dict[str, Any] | None) -> dict[str, Any]:
    """`identifiers` (each used: name, value, source) and `discovery` (the crawl's requests, what it missed)."""
    if discovery is None:
        return {}
    return {"identifiers": discovery.get("identifiers", []),
            "discovery": {k: v for k, v in discovery.items() if k != "identifiers"}}


def ridden_line(suite: dict[str, Any]) -> str | None:
    """One line on the faults on the way to the target that the run rode through (from report.json's `suite`)."""
    transport = suite.get("transport") or {}
    if not transport.get("ridden_through"):
        return None
    faults = ", ".join(f"{kind} {count}" for kind, count in sorted(transport["faults"].items()))
    count = transport["ridden_through"]
    return (f"{count} request{'s' if count > 1 else ''} rode through faults on the way to the target ({faults}), "
            f"sent again until answered within --outage-window {transport['outage_window_s']:g} s")


def down_line(suite: dict[str, Any]) -> str | None:
    """One line on the outage the run gave up on: since when the target was down (from report.json's `suite`)."""
    down = (suite.get("transport") or {}).get("down")
    if not down:
        return None
    return (f"the target was down since {down['since']}: nothing but refused or reset connections, cut answers and "
            f"5XX answers for {down['for_s']:g} s, so the run stopped (last: {down['last']})")


def first_problem(rule: dict[str, Any]) -> str:
    """One line on what went wrong with a rule of a report: its first failure's summary, or its first error."""
    first = (rule.get("failures") or rule.get("errors") or [{}])[0]
    text = first.get("summary") or first.get("message") or ""
    return text.splitlines()[0] if text else ""


def _failure(test: TestOutcome, violation: dict[str, Any]) -> dict[str, Any]:
    out = {"test": test.id, "summary": violation.get("summary", ""), "expected": violation.get("expected", ""),
           "received": violation.get("received", ""), "reproducer": violation.get("reproducer"),
           "response": violation.get("response"), "message": test.message, "exchange": violation.get("exchange")}
    return {key: value for key, value in out.items() if value is not None}


def _per_api(rules: list[dict[str, Any]], apis: tuple[str, ...], operations: OperationTimes) -> dict[str, Any]:
    documented = all_operations()
    exercised: dict[str, set[str]] = {}
    for entry in operations.summary():
        exercised.setdefault(entry["api"], set()).add(entry["operation"])
    out = {}
    for api in apis:
        mine = [rule for rule in rules if api in rule["api"]]
        required = [rule for rule in mine if rule["level"] in REQUIRED_LEVELS]
        tested = [rule for rule in required if rule["status"] in ("pass", "fail")]
        passed = [rule for rule in tested if rule["status"] == "pass"]
        ran = [rule for rule in mine if rule["status"] not in ("untested", "skip")]
        counts = {status: sum(rule["status"] == status for rule in mine) for status in API_STATUSES}
        ops = documented.get(api, set())
        out[api] = {
            # the ratio is of the required rules decided; how many of them were decided is beside it, so that a
            # score of untested rules never reads as a whole one
            "score": {"passed": len(passed), "tested": len(tested), "required": len(required),
                      "ratio": round(len(passed) / len(tested), 4) if tested else None},
            "coverage": {"operations": {"exercised": len(exercised.get(api, set()) & ops), "total": len(ops)},
                         "rules": {"exercised": len(ran), "total": len(mine)}},
            "statuses": counts,
        }
    return out
