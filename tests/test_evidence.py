"""Verdicts from evidence: a rule passes on a check that held, a test goes on after an independent broken check,
each violation is charged to its own rule, and an expectation excuses its rule alone."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

SUITE = '''
import pytest
from conformance.checks import check, fail, held, independently

def _bad(rule):
    fail(rule, "broken on purpose", expected="the documented form", received="something else")

@pytest.mark.rule("RPC-IDX-003", "RPC-IDX-004")
def test_carries_two_rules_but_checks_one():
    held("RPC-IDX-004")

@pytest.mark.rule("RPC-IDX-009", "RPC-IDX-010", "RPC-IDX-014")
def test_goes_on_after_independent_checks():
    with independently():
        _bad("RPC-IDX-009")
    with independently():
        _bad("RPC-IDX-010")
    check(True, "RPC-IDX-014", "never", expected="", received="")

@pytest.mark.rule("RPC-IDX-001", "RPC-IDX-007")
def test_stops_where_the_rest_cannot_be_judged():
    _bad("RPC-IDX-001")
    held("RPC-IDX-007")
'''


def run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    (tmp_path / "test_suite.py").write_text(SUITE)
    report_dir = tmp_path / "report"
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(tmp_path),
                             "--rootdir", str(tmp_path), "--node-url", "http://127.0.0.1:9", "--api", "index",
                             "--report-dir", str(report_dir), *args],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    report = json.loads((report_dir / "report.json").read_text())
    return result.returncode, {rule["id"]: rule for rule in report["rules"]} | {"": report}, result.stdout


def test_a_rule_is_pass_only_when_a_check_of_it_held(tmp_path: Path) -> None:
    _, rules, _ = run(tmp_path)
    assert rules["RPC-IDX-004"]["status"] == "pass" and rules["RPC-IDX-004"]["evidence"] == {"held": 1, "broke": 0}
    assert rules["RPC-IDX-003"]["status"] == "untested" and rules["RPC-IDX-003"]["evidence"]["held"] == 0


def test_a_test_goes_on_after_an_independent_check_and_fails_with_every_violation(tmp_path: Path) -> None:
    code, rules, out = run(tmp_path)
    assert code == 1
    assert rules["RPC-IDX-009"]["status"] == rules["RPC-IDX-010"]["status"] == "fail"
    assert rules["RPC-IDX-014"]["status"] == "pass"
    test = next(t for t in rules[""]["tests"] if t["id"].endswith("test_goes_on_after_independent_checks"))
    assert test["violation"]["rule"] == "RPC-IDX-009"
    assert [v["rule"] for v in test["violations"]] == ["RPC-IDX-009", "RPC-IDX-010"]
    assert "[RPC-IDX-009] broken on purpose" in out and "[RPC-IDX-010] broken on purpose" in out


def test_a_rule_behind_a_dependent_failure_is_untested_and_names_what_blocked_it(tmp_path: Path) -> None:
    _, rules, _ = run(tmp_path)
    assert rules["RPC-IDX-001"]["status"] == "fail"
    assert rules["RPC-IDX-007"]["status"] == "untested" and rules["RPC-IDX-007"]["blocked_by"] == ["RPC-IDX-001"]


def test_an_expectation_excuses_its_own_rule_and_not_the_others_of_a_test(tmp_path: Path) -> None:
    entries = [{"rule": "RPC-IDX-009", "reason": "known", "expires": "2999-01-01"},
               {"rule": "RPC-IDX-001", "reason": "known", "expires": "2999-01-01"}]
    (tmp_path / "known.yaml").write_text(yaml.safe_dump(entries))
    code, rules, _ = run(tmp_path, "--expectations", str(tmp_path / "known.yaml"))
    assert code == 1, "RPC-IDX-010 is not excused: the test still fails the run"
    assert rules["RPC-IDX-009"].get("expected") and not rules["RPC-IDX-010"].get("expected")
    entries.append({"rule": "RPC-IDX-010", "reason": "known", "expires": "2999-01-01"})
    (tmp_path / "known.yaml").write_text(yaml.safe_dump(entries))
    code, rules, _ = run(tmp_path, "--expectations", str(tmp_path / "known.yaml"))
    assert code == 0
    assert {(e["test"].split("::")[-1], e["rule"]) for e in rules[""]["expectations"]["expected_failures"]} == {
        ("test_goes_on_after_independent_checks", "RPC-IDX-009"),
        ("test_goes_on_after_independent_checks", "RPC-IDX-010"),
        ("test_stops_where_the_rest_cannot_be_judged", "RPC-IDX-001")}
