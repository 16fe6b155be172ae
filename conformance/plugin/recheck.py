"""Reproduce before accusing: a test that found a deviation of a live target runs again before the verdict.

Behind a load balancer one request can reach a node on another version, a chain can reorganise, a gateway can
answer one error body of its own. So a failing test that changes nothing on the target runs again, `--recheck`
times, spaced (within the run's rate limit, budget and duration), each time as a fresh observation: its fixtures
made again and every answer it reads asked again; a rule it broke the first time and breaks every time again is
a failure, as before. A violation a fixture raised while the test was set up is observed again the same way. A
rule that held on any run again is `flaky`: reported with every answer its failing request got and how often each
came, and failing the gate only with `--flaky fail`. The embedded reference answers alike every time: nothing is
run again there, nor a test that changes the target's state.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from conformance import evidence
from conformance.engine import pytest_internals as internals
from conformance.errors import RESPONSE_KEPT, SuiteError, Violation
from conformance.plugin import state
from conformance.reporting.outcomes import Findings

#: Seconds before the first run again; each later one waits twice as long.
FIRST_WAIT = 0.1


def reproduced(item: pytest.Item, ledger: evidence.Ledger, *, setup: bool = False) -> list[Violation]:
    """The violations of `item` (in its `ledger`) that every fresh observation shows again; the others are
    recorded as flaky. A fresh observation makes the test's function-scoped fixtures again and runs it (only makes
    them, for a violation its setup raised), with every value the run reads once computed again for it: an odd
    answer kept in the run's cache, or in a fixture, is not read a second time. When a fresh observation does not
    show the deviation again, what it read replaces what the run had cached, and after a setup that did not show
    it again the test goes on with the fixtures made afresh."""
    violations = ledger.violations
    run = state.run_state(item.config)
    target = run.target
    times = target.recheck if target is not None else 0
    http = run.http
    if not times or http is None or target is None or target.reference or item.get_closest_marker("mutating"):
        return violations
    again: list[tuple[list[Violation], set[Any], dict[Any, list[str]]]] = []
    answers: dict[Any, Counter[str]] = {same_request(v.request): Counter([v.response or ""])
                                        for v in violations if v.request}
    settled: tuple[dict[str, Any], list[Any], dict[Any, Any]] | None = None
    for attempt in range(times):
        http.sleep(FIRST_WAIT * 2 ** attempt)
        alone = _ask_alone(http, violations, attempt + 1, answers)
        rerun = evidence.Ledger()
        fixtures: dict[str, Any] = {}
        closers: list[Any] = []
        with evidence.recording(rerun), http.capturing() as seen, run.cache.fresh() as read:
            try:
                fixtures, closers = internals.remade_fixtures(item)
                if not setup:
                    _run_with(item, fixtures)
            except Violation:
                pass
            except (SuiteError, pytest.skip.Exception):
                internals.close(closers)
                continue   # this run again could not say (an odd answer of another kind): the next one may
            except Exception:
                internals.close(closers)
                return violations
        for exchange in seen:
            key = same_request((exchange.method, exchange.url, exchange.request_body))
            if key in answers:
                answers[key][f"HTTP {exchange.status}: {exchange.text(RESPONSE_KEPT)}"] += 1
        resent = {same_request((exchange.method, exchange.url, exchange.request_body)) for exchange in seen}
        again.append((rerun.violations, resent, alone))
        if not all(_shown_again(violation, rerun.violations, resent, alone) for violation in violations):
            settled = (fixtures, closers, read)
            break   # one run that holds settles it
        internals.close(closers)
    if not again:
        return violations   # no run again could say: what the first one said stands
    steady = [violation for violation in violations
              if all(_shown_again(violation, broken, resent, alone) for broken, resent, alone in again)]
    flaky = [violation for violation in violations if violation not in steady]
    if flaky:
        _record(item, ledger, flaky, answers, runs=1 + len(again))
    if settled is not None:
        fixtures, closers, read = settled
        run.cache.refresh(read)
        if setup and not steady:
            item.funcargs = fixtures   # type: ignore[attr-defined]  # the call runs on what was made afresh
            item.addfinalizer(lambda: internals.close(closers))
        else:
            internals.close(closers)
    return steady


def _ask_alone(http: Any, violations: list[Violation], times: int,
               answers: dict[Any, Counter[str]]) -> dict[Any, list[str]]:
    """Each failing request asked again on its own, `times` times, before the test runs again: what it answers
    alone is kept with the other answers it got, and the run again then no longer sends its requests in the same
    places of the target's sequence (a node answering every n-th request oddly would otherwise be met by the very
    same request each time, and its odd answer taken for a deviation)."""
    requests_ = {same_request(v.request): v.request for v in violations if v.request}
    with evidence.recording(evidence.Ledger()), http.capturing() as seen:
        for method, url, body in requests_.values():
            for _ in range(times):
                try:
                    http.request(method, url, body=body, secret=True,
                                 headers={"content-type": "application/json"} if body else None)
                except SuiteError:
                    break
    alone: dict[Any, list[str]] = {}
    for exchange in seen:
        key = same_request((exchange.method, exchange.url, exchange.request_body))
        if key in answers:
            answer = f"HTTP {exchange.status}: {exchange.text(RESPONSE_KEPT)}"
            answers[key][answer] += 1
            alone.setdefault(key, []).append(answer)
    return alone


def _run_with(item: pytest.Item, fixtures: dict[str, Any]) -> None:
    """Runs the test's function on fixture values made afresh."""
    original = getattr(item, "funcargs", None)
    item.funcargs = fixtures   # type: ignore[attr-defined]  # the function reads its arguments from here
    try:
        item.runtest()
    finally:
        item.funcargs = original   # type: ignore[attr-defined]


def _shown_again(violation: Violation, broken: list[Violation], resent: set[Any],
                 alone: dict[Any, list[str]] | None = None) -> bool:
    """The same rule broken again, by the same request when the rerun sent it again: a property test's rerun that
    meets another odd answer, on another of its requests, does not reproduce the first. A request that is not sent
    again as it was (a time window that moved, a page token of a chain that grew, a case drawn anew) leaves the
    rule to decide, once the request asked again alone got the very answer that broke it: an answer it did not
    get again was a one-off."""
    request = same_request(violation.request) if violation.request else None
    if request is None or request not in resent:
        asked = (alone or {}).get(request, []) if request is not None else []
        if asked and violation.response is not None and any(answer != violation.response for answer in asked):
            return False
        return any(again.rule.id == violation.rule.id for again in broken)
    return any(again.rule.id == violation.rule.id and same_request(again.request) == request for again in broken)


def same_request(request: Any) -> Any:
    """A request as the target reads it: (method, URL, body) with a JSON-RPC body's `id` left out, which the client
    counts up with every call, a test's run again included."""
    if not isinstance(request, tuple) or len(request) != 3 or not request[2]:
        return request
    method, url, body = request
    try:
        parsed = json.loads(body)
    except (TypeError, ValueError):
        return request
    calls = parsed if isinstance(parsed, list) else [parsed]
    if not all(isinstance(call, dict) for call in calls):
        return request
    stripped = [{key: value for key, value in call.items() if key != "id"} for call in calls]
    return method, url, json.dumps(stripped if isinstance(parsed, list) else stripped[0], sort_keys=True)


def _record(item: pytest.Item, ledger: evidence.Ledger, flaky: list[Violation], answers: dict[Any, Counter[str]],
            *, runs: int) -> None:
    """Keeps the flaky deviations in the test's findings, and takes them off the evidence of its rules."""
    for violation in flaky:
        ledger.broke[violation.rule.id] = 0
    entries = []
    for violation in flaky:
        seen = answers.get(same_request(violation.request), Counter())
        entries.append({"rule": violation.rule.id, "summary": violation.summary, "expected": violation.expected,
                        "received": violation.received, "reproducer": violation.reproducer, "runs": runs,
                        "answers": [{"answer": answer, "count": count} for answer, count in seen.most_common()]})
    Findings.of_test(item).flaky += entries

