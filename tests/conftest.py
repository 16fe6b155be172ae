"""Self-test fixtures and reporting: the reference the in-process runs share, and the mutation score, printed once
at the end of the run."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.reference import ReferenceServer


@pytest.fixture(scope="session")
def reference() -> Iterator[ReferenceServer]:
    """One embedded reference per worker for the runs that each want a fresh one of seed 0, with or without faults:
    `tests.suite_runs.serving(reference, faults)` gives each run a fresh world through its faults, on the same
    port. A server of its own per run cost its start and, mostly, its stop (up to a second, its loop's timeout)."""
    with ReferenceServer() as server:
        yield server


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    properties = {report.nodeid: dict(getattr(report, "user_properties", [])) for category in
                  ("passed", "failed", "skipped") for report in terminalreporter.getreports(category)
                  if report.when in ("call", "setup") and dict(getattr(report, "user_properties", [])).get("mutation")}
    if not properties:
        return
    decided = [found["mutation"] for found in properties.values() if found["mutation"] != "unobserved"]
    detected = decided.count("detected")
    terminalreporter.write_sep("=", f"mutation score: {detected}/{len(decided)} faults detected"
                                    + (f" ({100 * detected / len(decided):.1f}%)" if decided else ""))
    # the derived faults by API, kind and operator: what each operator catches, and every survivor by name
    scores: dict[str, list[str]] = {}
    survivors: list[str] = []
    for nodeid, found in properties.items():
        if "operator" in found:
            scores.setdefault(found["operator"], []).append(found["mutation"])
            if found["mutation"] != "detected":
                survivors.append(f"{found['mutation']}: {nodeid.rpartition('[')[2].rstrip(']')}")
    for operator, outcomes in sorted(scores.items()):
        caught = outcomes.count("detected")
        unseen = outcomes.count("unobserved")
        terminalreporter.write_line(f"  {operator}: {caught}/{len(outcomes) - unseen} caught"
                                    + (f", {unseen} unobserved on the reference's data" if unseen else ""))
    for survivor in sorted(survivors):
        terminalreporter.write_line(f"  survivor {survivor}")
