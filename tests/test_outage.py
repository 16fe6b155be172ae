"""A run rides through a restart and gives up fast on a target that is down: a request that changes nothing is sent
again when its connection is refused, reset or cut mid-body, within the outage window, and the verdicts are those of
an undisturbed run; a write is never sent twice; a target that gives nothing but such faults and 5XX answers for
longer than the window stops the run, exit 3, every report written, saying since when."""
from __future__ import annotations

import datetime as dt
import json
from functools import cache
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import jsonschema
import pytest

from conformance import evidence, specs
from conformance.clients.http import Exchange, FailedAttempt, HttpSession, Limits
from conformance.clients.resending import may_resend, writing_methods
from conformance.errors import AnswerCut, EXIT_UNTESTABLE, RunStopped, TargetDown
from conformance.reference import ReferenceServer
from tests.fault_proxy import FaultProxy
from tests.hostile_server import HostileServer
from tests.suite_runs import Behind, run_suite
from tests.test_har import HAR_SCHEMA, REPORT_SCHEMA
from tests.test_hostile import assert_ended, run_against

#: Every API, quick, as `conformance run` would run it (no test that changes the node).
SUITE = ["--pyargs", "conformance.suite"]
REPORTS = ("report.json", "junit.xml", "summary.md", "report.html")


def _rpc(method: str, params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def _post(http: HttpSession, url: str, body: bytes) -> Exchange:
    return http.request("POST", url, body=body, headers={"content-type": "application/json"})


def test_a_read_only_request_rides_through_a_restart_each_attempt_counted_and_seen() -> None:
    seen: list[Exchange] = []
    with HostileServer("restart", restart=(2, 1.0)) as server:
        http = HttpSession(Limits(outage_window=10, read_timeout=2))
        http.listeners.append(seen.append)
        body = _rpc("index.getLastAccepted", {"encoding": "hex"})
        _post(http, server.url + "/ext/index/X/tx", body)
        answer = _post(http, server.url + "/ext/index/X/tx", body)   # the server goes away with this one
    assert answer.status == 200 and answer.is_json()
    failed = [exchange for exchange in seen if isinstance(exchange, FailedAttempt)]
    assert failed and all(exchange.status is None and exchange.fault for exchange in failed)
    # every attempt went through the budget and the listeners, in the order sent
    assert [exchange.number for exchange in seen] == list(range(1, http.requests_sent + 1))
    section = http.outage.section()
    assert section is not None and section["ridden_through"] == 1 and "down" not in section
    ridden = section["requests"][0]
    assert ridden["attempts"] == [exchange.number for exchange in failed] and ridden["answered_by"] == answer.number
    assert set(ridden["faults"]) <= {"reset", "refused"} and "refused" in ridden["faults"]


@pytest.mark.parametrize("method", ["admin.aliasChain", "admin.alias", "admin.setLoggerLevel", "admin.loadVMs"])
def test_a_write_cut_off_is_never_sent_again(method: str) -> None:
    with HostileServer("reset-sometimes", every=1) as server:
        http = HttpSession(Limits(outage_window=10, read_timeout=2))
        with pytest.raises(AnswerCut):
            _post(http, server.url + "/ext/admin", _rpc(method, {}))
        assert len(server.hits) == 1


def test_a_read_cut_off_every_time_is_sent_again_until_the_target_is_down() -> None:
    with HostileServer("reset-sometimes", every=1) as server:
        http = HttpSession(Limits(outage_window=1.5, read_timeout=2))
        with pytest.raises(TargetDown, match="cut short"):
            _post(http, server.url + "/ext/admin", _rpc("admin.getLoggerLevel", {}))
        assert len(server.hits) >= 3


def test_no_request_of_a_test_that_changes_the_target_is_sent_twice() -> None:
    with HostileServer("reset-sometimes", every=1) as server:
        http = HttpSession(Limits(outage_window=10, read_timeout=2))
        with evidence.recording(evidence.Ledger(changes_state=True)), pytest.raises(AnswerCut):
            http.request("GET", server.url + "/v1/health-check")
        assert len(server.hits) == 1


def test_what_writes_is_read_from_the_specs() -> None:
    assert writing_methods() == {"admin.alias", "admin.aliasChain", "admin.setLoggerLevel", "admin.loadVMs",
                                 "admin.lockProfile", "admin.memoryProfile", "admin.startCPUProfiler",
                                 "admin.stopCPUProfiler"}
    assert may_resend("POST", _rpc("admin.getChainAliases", {"chain": "X"}))
    assert not may_resend("POST", b"[" + _rpc("eth_chainId", []) + b"," + _rpc("admin.alias", {}) + b"]")
    assert may_resend("POST", b'{"addresses": ["avax1..."]}') and may_resend("POST", b"{not json")
    assert may_resend("GET", None) and not may_resend("DELETE", None)
    # REST requests are sent again because the REST documents declare no write: were one declared, this would say
    rest_writes = [operation.get("operationId") for api in specs.REST_APIS
                   for item in specs.openapi(api)["paths"].values() for operation in item.values()
                   if isinstance(operation, dict) and "x-writes" in operation]
    assert rest_writes == []


def test_a_refused_connection_past_the_window_is_the_target_down_once() -> None:
    told: list[str] = []
    with HostileServer("refuse") as server:
        http = HttpSession(Limits(outage_window=0.5, connect_timeout=2))
        http.when_down.append(told.append)
        with pytest.raises(TargetDown, match="the target was down since"):
            http.request("GET", server.url + "/v1/health-check")
        with pytest.raises(RunStopped):
            http.request("GET", server.url + "/v1/health-check")
    assert len(told) == 1 and http.stopped == told[0]
    section = http.outage.section()
    assert section is not None and section["down"]["for_s"] > 0.5 and "cannot connect" in section["down"]["last"]


# Whole runs: every API, quick, through a proxy that fails now and then, decide every rule as a run without it.

def _report(folder: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(REPORT_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(report)
    return report


@cache
def clean_statuses() -> dict[str, str]:
    with TemporaryDirectory() as folder, ReferenceServer() as server:
        run = run_suite(server, SUITE, f"--report-dir={folder}", allow_mutations=False)
        assert run.exit_code == 0, run.output[-3000:]
        return {rule["id"]: rule["status"] for rule in _report(Path(folder))["rules"]}


def _ridden_run(tmp_path: Path, **faults: Any) -> tuple[int, dict[str, Any], FaultProxy, str]:
    with ReferenceServer() as server, FaultProxy(server.url, **faults) as proxy:
        run = run_suite(Behind(proxy.url, server), SUITE, f"--report-dir={tmp_path}", f"--har={tmp_path / 'run.har'}",
                        allow_mutations=False)
    return run.exit_code, _report(tmp_path), proxy, run.output


def _changed(report: dict[str, Any]) -> dict[str, str]:
    clean = clean_statuses()
    return {rule["id"]: f"{clean[rule['id']]} -> {rule['status']}" for rule in report["rules"]
            if rule["status"] != clean[rule["id"]]}


def test_a_target_that_refuses_connections_for_a_few_seconds_is_ridden_through(tmp_path: Path) -> None:
    code, report, proxy, output = _ridden_run(tmp_path, refuse_after=300, refuse_for=3.0)
    assert proxy.went_down == 1
    assert code == 0 and _changed(report) == {}, (_changed(report), output[-3000:])
    transport = report["suite"]["transport"]
    assert transport["ridden_through"] >= 1 and transport["faults"]["refused"] >= 1 and "down" not in transport
    # each attempt is in the archive: no answer (status 0) and why
    har = json.loads((tmp_path / "run.har").read_text(encoding="utf-8"))
    jsonschema.validate(har, HAR_SCHEMA)
    entries = {entry["_id"]: entry for entry in har["log"]["entries"]}
    attempts = [number for ridden in transport["requests"] for number in ridden["attempts"]]
    assert all(entries[number]["response"]["status"] == 0 and entries[number]["response"]["_error"]
               for number in attempts)
    assert len(entries) == report["summary"]["requests"]
    assert "rode through faults on the way to the target" in output


def test_answers_cut_mid_body_now_and_then_are_ridden_through(tmp_path: Path) -> None:
    code, report, proxy, output = _ridden_run(tmp_path, cut_every=40)
    assert code == 0 and _changed(report) == {}, (_changed(report), output[-3000:])
    assert proxy.cut > 20 and report["suite"]["transport"]["ridden_through"] == proxy.cut
    assert report["suite"]["transport"]["faults"] == {"cut": proxy.cut}


def test_a_target_that_answers_every_request_503_is_down_and_the_run_stops_at_once(tmp_path: Path) -> None:
    """Without the window the run paid every test's retries, for more than ten minutes."""
    window = 3.0
    run = run_against("503-json", ("--api", "index,data", "--outage-window", str(window)), tmp_path,
                      max_duration=600)
    assert_ended(run, EXIT_UNTESTABLE, mentions="the target was down since", max_duration=window)
    assert all((run.report_dir / name).is_file() for name in REPORTS)
    report = _report(run.report_dir)
    down = report["suite"]["transport"]["down"]
    assert report["summary"]["verdict"] == "untestable" and "the target was down" in report["suite"]["interrupted"]
    assert dt.datetime.fromisoformat(down["since"]) <= dt.datetime.fromisoformat(report["suite"]["finished"])
    assert down["for_s"] > window and "answered 503" in down["last"]
    assert "The run stopped early:** the target was down since" in (run.report_dir / "summary.md").read_text()
