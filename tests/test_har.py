"""`--har FILE`: every exchange of a run as a HAR 1.2 archive, streamed, the API key never in it; and the evidence of
each rule in report.json pointing at the exchanges that decided it."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import cli
from conformance.clients.http import KEEP_WHOLE, SECRET_PLACEHOLDER, Exchange
from conformance.reference import ReferenceServer
from conformance.reporting.build import EXCHANGES_PER_RULE
from conformance.reporting.har import HarWriter

KEY = "har-test-key-5e3c1f"
REPORT_SCHEMA = json.loads((Path(cli.__file__).parent / "reporting" / "report.schema.json").read_text())

_NAME_VALUE = {"type": "object", "required": ["name", "value"],
               "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}
_COUNT = {"type": "integer", "minimum": -1}
#: HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the objects and the fields the spec requires.
HAR_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["log"],
    "properties": {"log": {
        "type": "object", "required": ["version", "creator", "entries"],
        "properties": {
            "version": {"const": "1.2"},
            "creator": {"type": "object", "required": ["name", "version"],
                        "properties": {"name": {"type": "string"}, "version": {"type": "string"}}},
            "pages": {"type": "array"},
            "comment": {"type": "string"},
            "entries": {"type": "array", "items": {
                "type": "object",
                "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
                "properties": {
                    "pageref": {"type": "string"},
                    "startedDateTime": {"type": "string", "format": "date-time",
                                        "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"},
                    "time": {"type": "number", "minimum": 0},
                    "request": {
                        "type": "object",
                        "required": ["method", "url", "httpVersion", "cookies", "headers", "queryString",
                                     "headersSize", "bodySize"],
                        "properties": {
                            "method": {"type": "string"}, "url": {"type": "string"},
                            "httpVersion": {"type": "string"},
                            "cookies": {"type": "array", "items": _NAME_VALUE},
                            "headers": {"type": "array", "items": _NAME_VALUE},
                            "queryString": {"type": "array", "items": _NAME_VALUE},
                            "postData": {"type": "object", "required": ["mimeType"],
                                         "properties": {"mimeType": {"type": "string"}, "text": {"type": "string"},
                                                        "params": {"type": "array"}}},
                            "headersSize": _COUNT, "bodySize": _COUNT}},
                    "response": {
                        "type": "object",
                        "required": ["status", "statusText", "httpVersion", "cookies", "headers", "content",
                                     "redirectURL", "headersSize", "bodySize"],
                        "properties": {
                            "status": {"type": "integer"}, "statusText": {"type": "string"},
                            "httpVersion": {"type": "string"},
                            "cookies": {"type": "array", "items": _NAME_VALUE},
                            "headers": {"type": "array", "items": _NAME_VALUE},
                            "content": {"type": "object", "required": ["size", "mimeType"],
                                        "properties": {"size": {"type": "integer", "minimum": 0},
                                                       "compression": {"type": "integer"},
                                                       "mimeType": {"type": "string"}, "text": {"type": "string"},
                                                       "encoding": {"type": "string"}}},
                            "redirectURL": {"type": "string"}, "headersSize": _COUNT, "bodySize": _COUNT}},
                    "cache": {"type": "object"},
                    "timings": {"type": "object", "required": ["send", "wait", "receive"],
                                "properties": {name: {"type": "number", "minimum": -1}
                                               for name in ("blocked", "dns", "connect", "send", "wait", "receive",
                                                            "ssl")}},
                    "serverIPAddress": {"type": "string"}, "connection": {"type": "string"},
                    "comment": {"type": "string"}},
                # Fields of one's own start with an underscore (the spec's custom fields).
                "patternProperties": {"^_": {}}, "additionalProperties": False}}},
        "additionalProperties": False}},
}


def valid_har(path: Path) -> dict[str, Any]:
    archive = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(HAR_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(archive)
    return archive


#: A finished run: the process, its report.json, its HAR file.
Run = tuple[subprocess.CompletedProcess[str], dict[str, Any], Path]


def run_cli(tmp_path: Path, *args: str) -> Run:
    report_dir, har = tmp_path / "reports", tmp_path / "run.har"
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--profile", "quick", "--report-dir",
                           str(report_dir), "--har", str(har), *args], capture_output=True, text=True, timeout=300)
    report = json.loads((report_dir / "report.json").read_text())
    return done, report, har


@pytest.fixture(scope="module")
def keyed_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A small run of the Data API (the API that carries the key) with --api-key and --har."""
    return run_cli(tmp_path_factory.mktemp("har"), "--api", "data", "--rule", "DATA-PAG", "--api-key", KEY)


def test_the_archive_is_har_1_2_with_one_entry_per_request(keyed_run: Run) -> None:
    done, report, har = keyed_run
    assert done.returncode == 0, done.stdout + done.stderr
    entries = valid_har(har)["log"]["entries"]
    assert len(entries) == report["summary"]["requests"] > 0
    assert report["suite"]["har"] == {"file": str(har), "entries": len(entries)}
    ids = [entry["_id"] for entry in entries]
    assert len(set(ids)) == len(ids) and set(ids) == set(range(1, len(ids) + 1))


def test_no_api_key_anywhere_when_one_is_given(keyed_run: Run) -> None:
    done, report, har = keyed_run
    entries = json.loads(har.read_text())["log"]["entries"]
    sent = [h for entry in entries for h in entry["request"]["headers"] if h["name"].lower() == "x-data-api-key"]
    assert sent and {h["value"] for h in sent} == {SECRET_PLACEHOLDER}   # the key was sent, and shows as placeholder
    assert report["suite"]["options"]["api_key"] == "***"
    written = [har, *Path(report["suite"]["options"]["report_dir"]).iterdir()]
    for path in written:
        assert KEY not in path.read_text(encoding="utf-8"), path
    assert KEY not in done.stdout + done.stderr


def test_each_rule_names_the_exchanges_that_decided_it(keyed_run: Run) -> None:
    _, report, har = keyed_run
    entries = {entry["_id"]: entry for entry in json.loads(har.read_text())["log"]["entries"]}
    exchange_schema = {"$defs": REPORT_SCHEMA["$defs"], **REPORT_SCHEMA["$defs"]["evidence"]}
    passed = [rule for rule in report["rules"] if rule["status"] == "pass"]
    assert passed
    for rule in passed:
        jsonschema.validate(rule["evidence"], exchange_schema)
        refs = rule["evidence"].get("exchanges") or []
        assert 0 < len(refs) <= EXCHANGES_PER_RULE, rule["id"]
        for ref in refs:
            entry = entries[ref["id"]]
            assert (entry["request"]["method"], entry["request"]["url"], entry["response"]["status"]) == \
                (ref["method"], ref["url"], ref["status"])


def test_the_exchange_of_a_broken_check_comes_first_in_json_and_html(tmp_path: Path) -> None:
    with ReferenceServer(faults=["ActiveSendersHourRefused"]) as server:
        done, report, har = run_cli(tmp_path, "--target-url", server.url, "--api", "metrics", "--rule", "MET-INT",
                                    "--recheck", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    rule = next(rule for rule in report["rules"] if rule["id"] == "MET-INT-002")
    first = rule["evidence"]["exchanges"][0]
    assert first["check"] == "broke" and "activeSenders" in first["url"] and "timeInterval=hour" in first["url"]
    entry = next(e for e in valid_har(har)["log"]["entries"] if e["_id"] == first["id"])
    assert entry["response"]["status"] == first["status"] != 200
    assert rule["failures"][0]["exchange"] == first["id"]
    html = (tmp_path / "reports" / "report.html").read_text()
    assert f'data-exchange="{first["id"]}" class="broke"' in html and f"#{first['id']} (its number" in html


def test_a_target_that_does_not_answer_still_gets_its_archive_saying_why(tmp_path: Path) -> None:
    har = tmp_path / "run.har"
    with socket.socket() as probe:   # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--target-url", f"http://127.0.0.1:{port}",
                           "--report-dir", str(tmp_path / "reports"), "--har", str(har)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    archive = valid_har(har)
    assert archive["log"]["entries"] == [] and "does not answer" in archive["log"]["comment"]


def test_a_run_stopped_by_its_budget_still_leaves_a_valid_archive(tmp_path: Path) -> None:
    done, report, har = run_cli(tmp_path, "--api", "metrics", "--max-requests", "20", "--concurrency", "4")
    assert done.returncode == 4, done.stdout + done.stderr
    archive = valid_har(har)
    # An exchange cut off by the stop is counted as sent but has no answer to write.
    assert 0 < len(archive["log"]["entries"]) <= report["summary"]["requests"] <= 20
    assert archive["log"]["comment"].startswith("interrupted")


# The writer alone ----------------------------------------------------------------------------------------------

def exchange(number: int, **overrides: Any) -> Exchange:
    fields: dict[str, Any] = {"method": "GET", "url": f"http://target/v1/x?page={number}", "request_headers": {},
                              "request_body": None, "status": 200,
                              "response_headers": {"content-type": "application/json"}, "body": b'{"ok": true}',
                              "elapsed": 0.002, "number": number, "sent_at": 1_700_000_000.0}
    return Exchange(**{**fields, **overrides})


def test_threads_append_whole_entries_and_the_file_grows_as_they_come(tmp_path: Path) -> None:
    writer = HarWriter(tmp_path / "a.har", creator_version="test")
    per_thread, threads = 250, 4

    def send(first: int) -> None:
        for number in range(first, first + per_thread):
            writer(exchange(number))
    workers = [threading.Thread(target=send, args=(1 + i * per_thread,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    # Streamed, not held: most of the archive is on disk before it is closed.
    assert (tmp_path / "a.har").stat().st_size > 50_000
    writer.close()
    writer.close()   # a second close (the session's end after the run's) changes nothing
    writer(exchange(9999))   # an exchange after the end is not written
    entries = valid_har(tmp_path / "a.har")["log"]["entries"]
    assert sorted(entry["_id"] for entry in entries) == list(range(1, per_thread * threads + 1))


def test_secrets_in_headers_query_and_bodies_are_replaced(tmp_path: Path) -> None:
    writer = HarWriter(tmp_path / "b.har", secrets=("s3cr3t-value",))
    writer(exchange(1, url="http://user:pw@target/v1/x?apiKey=s3cr3t-value&pageToken=abc&key=other",
                    request_headers={"Authorization": "Bearer s3cr3t-value", "x-data-api-key": SECRET_PLACEHOLDER},
                    request_body=b'{"echo": "s3cr3t-value"}',
                    response_headers={"content-type": "text/plain", "x-echo": "s3cr3t-value"},
                    body=b"you sent s3cr3t-value"))
    writer.close()
    text = (tmp_path / "b.har").read_text()
    assert "s3cr3t-value" not in text and "other" not in text and "user:pw" not in text
    entry = valid_har(tmp_path / "b.har")["log"]["entries"][0]
    assert {"name": "pageToken", "value": "abc"} in entry["request"]["queryString"]
    assert entry["request"]["postData"]["text"] == '{"echo": "' + SECRET_PLACEHOLDER + '"}'


def test_a_large_body_is_written_as_what_is_kept_with_a_comment(tmp_path: Path) -> None:
    body = b'{"items": [' + b'"x",' * (KEEP_WHOLE // 4 + 10) + b'"end"]}'
    writer = HarWriter(tmp_path / "c.har")
    writer(exchange(1, body=body))
    writer(exchange(2, body=b"\xff\xfe binary"))
    writer.close()
    first, second = valid_har(tmp_path / "c.har")["log"]["entries"]
    content = first["response"]["content"]
    assert content["size"] == len(body) and len(content["text"]) < 64 * 1024
    assert "blake2b" in content["comment"] and content["text"].endswith('"end"]}')
    assert second["response"]["content"]["encoding"] == "base64"
