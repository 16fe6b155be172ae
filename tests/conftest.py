"""Self-test reporting: the mutation score, printed once at the end of the run."""
from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    by_test = {report.nodeid: value for category in ("passed", "failed")
               for report in terminalreporter.getreports(category)
               for key, value in getattr(report, "user_properties", []) if key == "mutation"}
    outcomes = list(by_test.values())
    if outcomes:
        detected = outcomes.count("detected")
        terminalreporter.write_sep("=", f"mutation score: {detected}/{len(outcomes)} faults detected "
                                        f"({100 * detected / len(outcomes):.1f}%)")
