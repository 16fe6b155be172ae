"""Self-test reporting: the mutation score, printed once at the end of the run."""
from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    outcomes = [value for report in terminalreporter.getreports("") + terminalreporter.getreports("passed")
                + terminalreporter.getreports("failed")
                for key, value in getattr(report, "user_properties", []) if key == "mutation"]
    if outcomes:
        detected = outcomes.count("detected")
        terminalreporter.write_sep("=", f"mutation score: {detected}/{len(outcomes)} faults detected "
                                        f"({100 * detected / len(outcomes):.1f}%)")
