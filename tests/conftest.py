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
    by_test = {report.nodeid: value for category in ("passed", "failed")
               for report in terminalreporter.getreports(category)
               for key, value in getattr(report, "user_properties", []) if key == "mutation"}
    outcomes = list(by_test.values())
    if outcomes:
        detected = outcomes.count("detected")
        terminalreporter.write_sep("=", f"mutation score: {detected}/{len(outcomes)} faults detected "
                                        f"({100 * detected / len(outcomes):.1f}%)")
