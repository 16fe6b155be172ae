"""The pytest plugin: rule marks are checked, select tests, reach JUnit; violations and suite errors map to exit
codes."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SUITE = '''
import pytest
from conformance.checks import fail
from conformance.errors import TargetUnreachable

@pytest.mark.rule("RPC-IDX-004")
def test_passes():
    pass

@pytest.mark.rule("RPC-ENV-001")
def test_violates():
    fail("RPC-ENV-001", "jsonrpc is missing", expected='"2.0"', received="{}")

@pytest.mark.rule("RPC-ENV-002")
def test_cannot_reach():
    raise TargetUnreachable("nobody home")
'''


def _pytest(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_suite.py").write_text(source)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(tmp_path),
                           "--rootdir", str(tmp_path), "--node-url", "http://127.0.0.1:9", *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_a_violation_fails_the_run_with_exit_code_1_and_reads_like_a_bug_report(tmp_path: Path) -> None:
    result = _pytest(tmp_path, SUITE, "-k", "not cannot_reach")
    assert result.returncode == 1, result.stdout
    assert "[RPC-ENV-001] jsonrpc is missing" in result.stdout and "Expected:" in result.stdout


def test_a_suite_error_alone_is_exit_code_3(tmp_path: Path) -> None:
    result = _pytest(tmp_path, SUITE, "-k", "not violates")
    assert result.returncode == 3, result.stdout


DEFECT = '''
import pytest

def _parse(depth):
    return _parse(depth + 1)

@pytest.mark.rule("RPC-ENV-001")
def test_meets_the_unforeseen():
    _parse(0)
'''


def test_a_defect_of_the_suite_is_one_line_unless_tracebacks_are_asked_for(tmp_path: Path) -> None:
    result = _pytest(tmp_path, DEFECT)
    assert result.returncode == 3, result.stdout
    assert "RecursionError: maximum recursion depth exceeded (an error of the suite at " in result.stdout
    assert "in _parse; --suite-tracebacks shows the traceback)" in result.stdout
    assert "Traceback" not in result.stdout and "return _parse(depth + 1)" not in result.stdout
    shown = _pytest(tmp_path, DEFECT, "--suite-tracebacks")
    assert shown.returncode == 3 and "return _parse(depth + 1)" in shown.stdout


def test_rule_ids_select_tests_with_rule_and_k(tmp_path: Path) -> None:
    assert _pytest(tmp_path, SUITE, "--rule", "RPC-IDX").returncode == 0
    assert _pytest(tmp_path, SUITE, "-k", "RPC-IDX-004").returncode == 0


def test_an_unknown_rule_id_is_a_collection_error(tmp_path: Path) -> None:
    result = _pytest(tmp_path, SUITE.replace("RPC-IDX-004", "RPC-IDX-999"))
    assert result.returncode not in (0, 1) and "RPC-IDX-999" in result.stdout + result.stderr


def test_rule_ids_reach_junit_properties(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    _pytest(tmp_path, SUITE, f"--junitxml={junit}", "-o", "junit_family=xunit1")
    properties = [(p.get("name"), p.get("value")) for p in ET.parse(junit).getroot().iter("property")]
    assert ("rule", "RPC-IDX-004") in properties and ("rule", "RPC-ENV-001") in properties


def test_tests_of_unselected_apis_are_not_part_of_the_run(tmp_path: Path) -> None:
    result = _pytest(tmp_path, SUITE, "--data-url", "http://127.0.0.1:9", "--api", "data")
    assert "no tests ran" in result.stdout and "deselected" not in result.stdout and "passed" not in result.stdout
