"""Reports, the gate, expectations and `conformance diff`, proven on runs against the reference target."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance import cli
from conformance.errors import ConfigError
from conformance.reference import ReferenceServer
from conformance.reference.faults import REGISTRY
from conformance.reporting import diff, expectations
from conformance.reporting.build import redact_url
from conformance.rules import load_catalogue
from tests.suite_runs import run_suite

SCHEMA = json.loads((Path(cli.__file__).parent / "reporting" / "report.schema.json").read_text())
MUST_FAULT, MUST_RULE = "ContainerBytesBase64", "RPC-IDX-010"          # a must-level rule
STANDARD_FAULT, STANDARD_RULE = "ErrorCodeAsString", "RPC-ENV-006"     # a standard-level rule (JSON-RPC 2.0)
SELECTION = ["--pyargs", "conformance.suite", "--api", "index", "--rule", MUST_RULE, "--rule", STANDARD_RULE]
TODAY = dt.date.today()
#: A run of the suite: its report folder, its exit code and its report.json.
Run = tuple[Path, int, dict[str, Any]]


def run_to(report_dir: Path, faults: tuple[str, ...] = (), *extra: str) -> tuple[int, dict[str, Any]]:
    with ReferenceServer(faults=[REGISTRY[name]() for name in faults]) as server:
        run = run_suite(server, SELECTION, "--report-dir", str(report_dir), "--reference-target", *extra)
    return run.exit_code, json.loads((report_dir / "report.json").read_text())


def rule_of(report: dict[str, Any], rule_id: str) -> dict[str, Any]:
    return next(rule for rule in report["rules"] if rule["id"] == rule_id)


def write_expectations(path: Path, *entries: dict[str, Any]) -> str:
    path.write_text(yaml.safe_dump(list(entries)))
    return str(path)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Run:
    where = tmp_path_factory.mktemp("clean")
    return (where, *run_to(where))


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Run:
    where = tmp_path_factory.mktemp("faulty")
    return (where, *run_to(where, (MUST_FAULT, STANDARD_FAULT)))


# report.json ---------------------------------------------------------------------------------------------

def test_both_reports_follow_the_documented_schema(clean: Run, faulty: Run) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    for _, _, report in (clean, faulty):
        assert [error.message for error in validator.iter_errors(report)] == []


def test_a_clean_run_reports_its_rules_passed_and_a_full_score(clean: Run) -> None:
    _, code, report = clean
    assert code == 0 and report["summary"]["exit_code"] == 0 and report["summary"]["verdict"] == "conformant"
    assert rule_of(report, MUST_RULE)["status"] == "pass"
    assert rule_of(report, MUST_RULE)["tests"], "the tests that carried the rule are listed"
    score = report["apis"]["index"]["score"]
    assert score["ratio"] == 1.0 and score["passed"] == score["tested"] > 0
    assert report["target"]["reference"] is True and report["suite"]["seed"] == 0
    assert report["summary"]["passed"] + report["summary"]["skipped"] == report["summary"]["tests"]
    assert report["summary"]["requests"] > 0
    assert any(op["api"] == "index" and op["requests"] > 0 for op in report["operations"])


def test_a_rule_no_test_ran_is_untested(clean: Run) -> None:
    _, _, report = clean
    assert rule_of(report, "RPC-IDX-001")["status"] == "untested", "a rule of a selected API no test carried"
    assert rule_of(report, "DATA-PAG-008")["status"] == "not selected", "a rule of an API the run did not select"
    assert "data" not in report["apis"], "only the APIs of the run are scored"
    assert "not selected" not in report["apis"]["index"]["statuses"]


def test_a_failure_carries_expectation_observation_and_a_curl_reproducer(faulty: Run) -> None:
    _, code, report = faulty
    assert code == 1 and report["summary"]["verdict"] == "violations" and report["summary"]["failed"] > 0
    for rule_id in (MUST_RULE, STANDARD_RULE):
        rule = rule_of(report, rule_id)
        assert rule["status"] == "fail"
        failure = rule["failures"][0]
        assert failure["expected"] and failure["received"] and failure["summary"]
        assert failure["reproducer"].startswith("curl ")
    assert report["apis"]["index"]["score"]["ratio"] < 1.0


def test_junit_carries_rule_ids_as_properties(faulty: Run) -> None:
    where, _, _ = faulty
    # run_suite writes no JUnit of its own; the CLI does, through pytest's --junitxml.
    tree = ET.parse(_cli_run(where / "cli", "--rule", MUST_RULE)[1] / "junit.xml")
    properties = {(p.get("name"), p.get("value")) for p in tree.iter("property")}
    assert ("rule", MUST_RULE) in properties


def test_summary_markdown_names_the_verdict_and_the_failing_rules(faulty: Run) -> None:
    where, _, _ = faulty
    text = (where / "summary.md").read_text()
    assert "❌ violations" in text and MUST_RULE in text and STANDARD_RULE in text and "curl " in text


def test_url_secrets_never_reach_a_report() -> None:
    assert redact_url("https://user:pw@api.example.com:8443/v1?apikey=s3cret") == "https://api.example.com:8443/v1"
    assert redact_url(None) is None


# The gate ------------------------------------------------------------------------------------------------

def test_gate_must_lets_a_standard_level_violation_through(tmp_path: Path) -> None:
    code, report = run_to(tmp_path, (STANDARD_FAULT,), "--gate", "must")
    assert rule_of(report, STANDARD_RULE)["status"] == "fail", "the violation is still reported"
    assert code == 0 and report["suite"]["gated_levels"] == ["must"]


def test_gate_must_still_fails_on_a_must_level_violation(tmp_path: Path) -> None:
    code, _ = run_to(tmp_path, (MUST_FAULT,), "--gate", "must")
    assert code == 1


# Expectations --------------------------------------------------------------------------------------------

def test_an_expected_failure_does_not_fail_the_run(tmp_path: Path) -> None:
    future = (TODAY + dt.timedelta(days=30)).isoformat()
    path = write_expectations(tmp_path / "known.yaml", {"rule": MUST_RULE, "reason": "vendor ticket 12",
                                                        "expires": future})
    code, report = run_to(tmp_path / "r", (MUST_FAULT,), "--expectations", path)
    rule = rule_of(report, MUST_RULE)
    assert code == 0 and rule["status"] == "fail" and rule["expected"][0]["reason"] == "vendor ticket 12"
    assert report["summary"]["expected_failures"] > 0 and report["expectations"]["expected_failures"]


def test_an_expectation_for_another_test_does_not_excuse_this_one(tmp_path: Path) -> None:
    future = (TODAY + dt.timedelta(days=30)).isoformat()
    path = write_expectations(tmp_path / "known.yaml", {"rule": MUST_RULE, "test": "test_not_this_one",
                                                        "reason": "r", "expires": future})
    code, _ = run_to(tmp_path / "r", (MUST_FAULT,), "--expectations", path)
    assert code == 1


def test_an_unexpected_pass_is_reported_without_failing_the_run(tmp_path: Path) -> None:
    future = (TODAY + dt.timedelta(days=30)).isoformat()
    path = write_expectations(tmp_path / "known.yaml", {"rule": MUST_RULE, "reason": "fixed upstream?",
                                                        "expires": future})
    code, report = run_to(tmp_path / "r", (), "--expectations", path)
    assert code == 0
    assert [e["rule"] for e in report["expectations"]["unexpected_passes"]] == [MUST_RULE]
    assert "Unexpected passes" in (tmp_path / "r" / "summary.md").read_text()


def test_an_expired_expectation_fails_the_run(tmp_path: Path) -> None:
    past = (TODAY - dt.timedelta(days=1)).isoformat()
    path = write_expectations(tmp_path / "known.yaml", {"rule": MUST_RULE, "reason": "old", "expires": past})
    code, report = run_to(tmp_path / "r", (MUST_FAULT,), "--expectations", path)
    assert code == 1 and [e["rule"] for e in report["expectations"]["expired"]] == [MUST_RULE]
    assert "expected" not in rule_of(report, MUST_RULE), "an expired entry excuses nothing"


def test_expectations_from_a_report_excuse_exactly_its_failures(faulty: Run, tmp_path: Path) -> None:
    where, _, _ = faulty
    out = tmp_path / "known.yaml"
    assert cli.main(["expectations", "--from", str(where / "report.json"), "--output", str(out)]) == 0
    entries = expectations.load(out, load_catalogue())
    assert {entry.rule for entry in entries} == {MUST_RULE, STANDARD_RULE}
    assert all(entry.expires > TODAY for entry in entries)
    code, report = run_to(tmp_path / "r", (MUST_FAULT, STANDARD_FAULT), "--expectations", str(out))
    assert code == 0 and report["expectations"]["expired"] == []


@pytest.mark.parametrize(("content", "complaint"), [
    ("rule: X\n", "expected a YAML list"),
    ("- {rule: NOPE-X-001, reason: r, expires: 2030-01-01}\n", "not in the rule catalogue"),
    ("- {rule: RPC-IDX-010, expires: 2030-01-01}\n", "a reason is required"),
    ("- {rule: RPC-IDX-010, reason: r, expires: soon}\n", "expires must be a date"),
    ("- {rule: RPC-IDX-010, reason: r, expires: 2030-01-01, owner: me}\n", "unknown key owner"),
    ("- [unclosed\n", "not valid YAML"),
])
def test_a_malformed_expectations_file_is_a_usage_error(tmp_path: Path, content: str, complaint: str) -> None:
    path = tmp_path / "known.yaml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=complaint):
        expectations.load(path, load_catalogue())


# conformance diff ----------------------------------------------------------------------------------------

def test_diff_reports_a_fault_as_a_regression_and_its_fix_as_progress(clean: Run, faulty: Run,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    old, new = str(clean[0] / "report.json"), str(faulty[0] / "report.json")
    assert cli.main(["diff", old, new]) == 1
    text = capsys.readouterr().out
    assert "REGRESSED" in text and MUST_RULE in text and STANDARD_RULE in text
    assert cli.main(["diff", new, old, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {c["rule"] for c in result["newly_passing"]} >= {MUST_RULE, STANDARD_RULE}
    assert cli.main(["diff", old, old, "--format", "markdown"]) == 0
    assert "no regression" in capsys.readouterr().out


def test_diff_reports_changed_observations_and_slower_operations(clean: Run) -> None:
    old = json.loads((clean[0] / "report.json").read_text())
    new = json.loads(json.dumps(old))
    observe_rule = {"id": "RPC-ENV-099", "level": "observe", "title": "t", "status": "observed"}
    old["rules"].append({**observe_rule, "observations": [{"test": "t", "seen": {"code": -32601}}]})
    new["rules"].append({**observe_rule, "observations": [{"test": "t", "seen": {"code": -32000}}]})
    new["operations"] = [{**op, "median_ms": op["median_ms"] * 10 + 500} for op in old["operations"]]
    result = diff.compare_reports(old, new)
    assert [c.rule for c in result.observations] == ["RPC-ENV-099"]
    assert "-32601" in result.observations[0].old and "-32000" in result.observations[0].new
    assert result.slower and result.regressed


@pytest.mark.parametrize("content", [None, "not json", '{"schema": "something-else"}'])
def test_diff_of_something_that_is_not_a_report_is_a_usage_error(tmp_path: Path, content: str | None,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content)
    assert cli.main(["diff", str(path), str(path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# The terminal ----------------------------------------------------------------------------------------------

def _cli_run(report_dir: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--api", "index", "--profile", "quick",
                           "--report-dir", str(report_dir), *args],
                          capture_output=True, text=True, timeout=300)
    return done, report_dir


def test_the_command_line_shows_a_progress_line_and_an_end_table(tmp_path: Path) -> None:
    done, where = _cli_run(tmp_path, "--rule", MUST_RULE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conformance: " in done.stdout and " tests · 0 failed · 0 errors" in done.stdout
    assert "score" in done.stdout and "index" in done.stdout and "verdict: conformant" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert {p.name for p in where.iterdir()} >= {"report.json", "summary.md", "report.html", "junit.xml"}
