"""Coverage of the contract: items matched from exchanges, their states and figures, the report, --min-coverage."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from conformance.checks.shapes import schema_errors
from conformance.clients.http import Exchange
from conformance.coverage.gate import gate_line
from conformance.coverage.recorder import CoverageRecorder
from conformance.reference import ReferenceServer

METRICS = "http://metrics.test/base"
METRIC = METRICS + "/v2/chains/43114/metrics/txCount"
NODE = "http://node.test"


def _rest(url: str, status: int, body: Any = None, method: str = "GET") -> Exchange:
    raw = json.dumps(body).encode() if body is not None else b""
    return Exchange(method, url, {}, None, status=status, response_headers={"content-type": "application/json"},
                    body=raw)


def _rpc(path: str, method: str, params: Any, answer: dict[str, Any]) -> Exchange:
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return Exchange("POST", NODE + path, {}, request, status=200, body=json.dumps({"jsonrpc": "2.0", "id": 1,
                                                                                   **answer}).encode())


def _coverage(*exchanges: Exchange, api: str = "metrics", has_key: bool = False) -> dict[str, Any]:
    recorder = CoverageRecorder(has_key=has_key)
    for exchange in exchanges:
        recorder.record(exchange)
    return recorder.report([api])[api]


def _metric(coverage: dict[str, Any]) -> dict[str, Any]:
    return coverage["detail"]["GET /v2/chains/{chainId}/metrics/{metric}"]


def _refused(url: str) -> Exchange:
    return _rest(url, 400, {"message": ["no"], "error": "Bad Request", "statusCode": 400})


PAGE = {"results": [{"value": 1.5, "timestamp": 1700000000}]}


def test_a_bound_is_covered_when_the_bound_is_accepted_and_beyond_it_refused() -> None:
    within = _metric(_coverage(_rest(METRIC + "?pageSize=10", 200, PAGE), _refused(METRIC + "?pageSize=0")))
    assert within["keywords"]["pageSize minimum"] == {"status": "partial", "valid": 1, "invalid": 1, "at_bound": 0}
    both = _metric(_coverage(_rest(METRIC + "?pageSize=1", 200, PAGE), _refused(METRIC + "?pageSize=0")))
    assert both["keywords"]["pageSize minimum"]["status"] == "covered"
    assert both["parameters"]["pageSize"] == {"status": "covered", "valid": 1, "invalid": 1}
    # A value refused for a keyword it satisfies credits nothing: the target refused what the contract allows.
    refused_at_bound = _metric(_coverage(_refused(METRIC + "?pageSize=1"), _refused(METRIC + "?pageSize=abc")))
    assert refused_at_bound["keywords"]["pageSize minimum"]["status"] == "not_reached"
    assert refused_at_bound["keywords"]["pageSize type"] == {"status": "partial", "valid": 0, "invalid": 1}


def test_every_enum_member_must_be_accepted_for_the_valid_side() -> None:
    served = [_rest(METRIC + f"?timeInterval={interval}", 200, PAGE) for interval in ("hour", "day", "week")]
    partial = _metric(_coverage(*served, _refused(METRIC + "?timeInterval=year")))
    enum = partial["keywords"]["timeInterval enum"]
    assert enum["status"] == "partial" and enum["members_not_accepted"] == ["month"]
    full = _metric(_coverage(*served, _rest(METRIC + "?timeInterval=month", 200, PAGE),
                             _refused(METRIC + "?timeInterval=year")))
    assert full["keywords"]["timeInterval enum"]["status"] == "covered"
    # A member the target stops serving (refused) stays missing.
    stopped = _metric(_coverage(*served, _refused(METRIC + "?timeInterval=month"),
                                _refused(METRIC + "?timeInterval=x")))
    assert stopped["keywords"]["timeInterval enum"]["members_not_accepted"] == ["month"]


def test_text_parameters_have_no_invalid_side_and_path_values_are_matched_under_a_base_path() -> None:
    detail = _metric(_coverage(_rest(METRICS + "/v2/chains/total/metrics/gasUsed", 200, PAGE)))
    assert detail["parameters"]["chainId"] == {"status": "covered", "valid": 1}
    assert detail["keywords"]["metric enum"]["status"] == "partial"   # one member of 17, no invalid one
    assert detail["examples"]["chainId total"]["status"] == "covered"
    assert detail["examples"]["chainId mainnet"]["status"] == "not_reached"
    assert detail["parameters"]["startTimestamp"]["status"] == "not_reached"


def test_responses_unreachable_ones_are_listed_apart_until_reached() -> None:
    coverage = _coverage(_rest(METRIC, 200, PAGE), _refused(METRIC + "?pageSize=0"))
    statuses = {status: item["status"] for status, item in _metric(coverage)["responses"].items()}
    assert statuses["200"] == statuses["400"] == "covered" and statuses["404"] == "not_reached"
    assert {s for s, state in statuses.items() if state == "unreachable"} == {"401", "403", "429", "500", "502",
                                                                               "503"}
    # two operations × 3 reachable statuses; the unreachable ones are counted apart
    assert coverage["responses"] == {"covered": 2, "partial": 0, "total": 6, "unreachable": 12,
                                     "percent": pytest.approx(33.3)}
    reached = _coverage(_rest(METRIC, 503, {"message": ["down"], "error": "Service Unavailable", "statusCode": 503}))
    assert reached["responses"]["covered"] == 1 and reached["responses"]["total"] == 7
    with_key = _coverage(_rest(METRIC, 200, PAGE), has_key=True)
    assert _metric(with_key)["responses"]["401"]["status"] == "not_reached"


def test_response_keywords_are_seen_satisfied_in_answers() -> None:
    detail = _metric(_coverage(_rest(METRIC, 200, PAGE)))["response_keywords"]
    assert detail["200 results[].value type"]["status"] == "covered"
    assert detail["200 nextPageToken type"]["status"] == "not_reached"
    bad = _metric(_coverage(_rest(METRIC, 200, {"results": [{"value": "1.5", "timestamp": 1}]})))["response_keywords"]
    assert bad["200 results[].value type"]["status"] == "not_reached"
    error = _metric(_coverage(_refused(METRIC + "?pageSize=0")))["response_keywords"]
    # the error body's members keep the keywords of both parts of its allOf
    assert error["400 error type"]["status"] == error["400 error const"]["status"] == "covered"


def test_json_rpc_params_forms_bounds_results_and_examples() -> None:
    ok: dict[str, Any] = {"result": {}}
    refused = {"error": {"code": -32602, "message": "alias too long"}}
    coverage = _coverage(
        _rpc("/ext/admin", "admin.alias", {"endpoint": "bc/X", "alias": "a" * 512}, ok),
        _rpc("/ext/admin", "admin.alias", {"endpoint": "bc/X", "alias": "a" * 513}, refused),
        _rpc("/ext/admin", "admin.alias", {"alias": "b"}, refused),
        _rpc("/ext/admin", "admin.setLoggerLevel", {"logLevel": "DEBUG", "displayLevel": "INFO"}, ok), api="admin")
    alias = coverage["detail"]["admin.alias"]
    assert alias["status"] == "covered"
    assert alias["keywords"]["alias maxLength"] == {"status": "covered", "valid": 1, "invalid": 1, "at_bound": 1}
    assert alias["keywords"]["endpoint required"]["status"] == "covered"
    assert alias["parameters"]["(by-name form)"]["status"] == "covered"
    assert alias["responses"]["result"]["status"] == alias["responses"]["error"]["status"] == "covered"
    assert coverage["detail"]["admin.setLoggerLevel"]["examples"]["set-all-loggers"]["status"] == "covered"
    assert coverage["operations"]["covered"] == 2 and coverage["operations"]["total"] == 10


VALIDATORS = "http://data.test/v1/networks/mainnet/validators"


@pytest.mark.parametrize(("text", "satisfied"), [("5", True), ("5\n", False)])
def test_a_pattern_is_satisfied_as_the_shape_checks_judge_it(text: str, satisfied: bool) -> None:
    """`^[0-9]+$` does not hold for "5\n": in the validator's regex dialect `$` is the end of the text, not the
    place before a final newline."""
    schema = {"type": "string", "pattern": "^[0-9]+$"}
    assert (schema_errors(text, schema, api="data") == []) is satisfied
    url = f"{VALIDATORS}?minDelegationCapacity={quote(text)}"
    served, refused = (_coverage(exchange, api="data")["detail"]["GET /v1/networks/{network}/validators"]
                       for exchange in (_rest(url, 200, {"validators": []}), _refused(url)))
    assert served["keywords"]["minDelegationCapacity pattern"]["valid"] == int(satisfied)
    assert refused["keywords"]["minDelegationCapacity pattern"]["invalid"] == int(not satisfied)


def test_a_format_is_an_annotation_as_to_the_shape_checks_and_the_pattern_decides_the_form() -> None:
    container = {"id": "x", "bytes": "0x00", "encoding": "hex", "index": "0"}
    answers = [_rpc("/ext/index/X/tx", "index.getContainerByIndex", {"index": 0, "encoding": "hex"},
                    {"result": {**container, "timestamp": timestamp}})
               for timestamp in ("2024-01-01T00:00:00.5Z", "yesterday")]
    seen = _coverage(*answers, api="index")["detail"]["index.getContainerByIndex"]["response_keywords"]
    assert seen["result.timestamp format"]["valid"] == 2 and seen["result.timestamp pattern"]["valid"] == 1
    assert schema_errors("yesterday", {"type": "string", "format": "date-time"}, api="index") == []


def test_the_gate_names_each_dimension_below_the_minimum_on_one_line() -> None:
    coverage = {"metrics": _coverage(_rest(METRIC, 200, PAGE))}
    assert gate_line(coverage, None) is None
    assert gate_line(coverage, 0) is None
    line = gate_line(coverage, 101)
    assert line is not None and "\n" not in line
    assert "metrics operations" in line and "metrics keywords" in line


def _run(report_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance", "run", "--api", "metrics", "--profile", "quick",
                           "--report-dir", str(report_dir), *args], capture_output=True, text=True, timeout=300)


def test_a_run_reports_every_dimension_and_min_coverage_100_fails_the_gate_with_one_line(tmp_path: Path) -> None:
    done = _run(tmp_path, "--min-coverage", "100")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["summary"]["failed"] == 0 and report["summary"]["exit_code"] == 1
    coverage = report["coverage"]["metrics"]
    for dimension in ("operations", "parameters", "keywords", "examples", "responses", "response_keywords"):
        figures = coverage[dimension]
        assert set(figures) == {"covered", "partial", "total", "unreachable", "percent"}
        assert 50 <= figures["percent"] <= 100, (dimension, figures)
    assert coverage["operations"]["percent"] == 100 and coverage["responses"]["covered"] == 6
    assert coverage["responses"]["unreachable"] == 12
    lines = [line for line in done.stdout.splitlines() if "below --min-coverage" in line]
    assert len(lines) == 1 and "metrics examples" in lines[0]
    assert lines[0].removeprefix("conformance: ") == report["summary"]["coverage_gate"]
    assert "Coverage of the contract" in (tmp_path / "summary.md").read_text()
    assert 'id="coverage"' in (tmp_path / "report.html").read_text()


def test_a_reference_that_refuses_a_bound_shows_it_partial(tmp_path: Path) -> None:
    with ReferenceServer(faults=["EndTimestampZeroRefused"]) as server:
        done = _run(tmp_path, "--metrics-url", server.url)
    assert done.returncode == 1, done.stdout + done.stderr   # the fault's own rule fails
    coverage = json.loads((tmp_path / "report.json").read_text())["coverage"]["metrics"]
    item = _metric(coverage)["keywords"]["endTimestamp minimum"]
    assert item["status"] == "partial" and item["at_bound"] == 0 and item["invalid"] > 0
