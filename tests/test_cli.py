"""Bad input to the command line gets one line and a distinct exit code; the reference serves in the foreground."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from conformance.cli import main

CONFORMANCE = [sys.executable, "-m", "conformance"]


@pytest.mark.parametrize("argv", [
    ["run", "--node-url", "not-a-url"],
    ["run", "--api", "admin,nonsense"],
    ["run", "--profile", "ludicrous"],
    ["run", "--unknown-option"],
    ["run", "--expectations", "/nonexistent/expectations.yaml"],
    ["run", "--target-url", "http://127.0.0.1:99999"],
    ["run", "--api", "index", "--data-url", "http://127.0.0.1:1"],
    ["run", "--rate-limit", "fast"],
    ["run", "--max-duration", "0"],
    ["run", "--timeout", "soon"],
    ["run", "--sample", "no-value"],
    ["serve-reference", "--fault", "NoSuchFault"],
    ["serve-reference", "--port", "70000"],
    ["bogus-command"],
])
def test_bad_usage_is_one_line_and_exit_code_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        code = main(argv)
        raise SystemExit(code)
    assert raised.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_a_report_directory_that_cannot_be_written_is_a_usage_error(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["run", "--report-dir", str(blocker / "reports")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--report-dir" in err and len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_an_unreachable_target_is_exit_code_3_without_a_traceback(tmp_path: Path) -> None:
    result = subprocess.run(CONFORMANCE + ["run", "--node-url", "http://127.0.0.1:9", "--api", "index",
                                           "--report-dir", str(tmp_path), "--rule", "RPC-IDX-004"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stdout + result.stderr


def test_the_run_hands_the_plugin_the_target_it_resolved(tmp_path: Path) -> None:
    code = main(["run", "--api", "admin", "--profile", "quick", "--timeout", "7", "--max-memory", "300",
                 "--no-draw-ahead", "--recheck", "0", "--report-dir", str(tmp_path)])
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    options = report["suite"]["options"]
    assert code == 0 and report["target"]["reference"] is True
    assert (options["api"], options["timeout"], options["max_memory"], options["draw_ahead"], options["recheck"]) == \
        (["admin"], 7.0, 300, False, 0)


def test_a_setting_given_to_pytest_after_the_separator_is_refused(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--api", "admin", "--report-dir", "", "--", "--conformance-profile", "thorough"]) == 2
    assert "--conformance-profile: give the settings of `conformance run` before --" in capsys.readouterr().err


def test_serve_reference_prints_its_address_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(CONFORMANCE + ["serve-reference", "--port", "0", "--seed", "3"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        info = json.loads(process.stdout.readline())  # type: ignore[union-attr]  # stdout=PIPE
        assert {"url", "evm_blockchain_id", "evm_chain_id"} <= set(info)
        answer = requests.post(info["url"] + "/ext/index/X/tx", timeout=5,
                               json={"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted",
                                     "params": {"encoding": "hex"}})
        assert answer.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


def test_list_faults_names_each_fault_with_the_rules_it_breaks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve-reference", "--list-faults"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(len(line.split()) >= 3 for line in lines)


def test_a_report_directory_that_exists_but_cannot_be_written_is_refused_before_any_request(
        capsys: pytest.CaptureFixture[str]) -> None:
    # /sys/kernel exists and refuses new files even to root, where a mode of 0o555 would not.
    assert main(["run", "--api", "admin", "--report-dir", "/sys/kernel"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--report-dir: cannot write to /sys/kernel" in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("refused", ["junit.xml", "report.json"])
def test_a_report_that_cannot_be_written_at_the_end_is_never_exit_0(
        refused: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The line names the missing report; the others are the run's own, never replaced by a report of a run that
    tested nothing; nothing half-written is left beside them."""
    from conformance.reporting import write

    real = write._write

    def refuse(path: Path, text: str) -> Path:
        if path.name == refused:
            raise PermissionError(13, "Permission denied")
        return real(path, text)

    monkeypatch.setattr(write, "_write", refuse)
    code = main(["run", "--api", "admin", "--profile", "quick", "--rule", "RPC-ADM-001", "--report-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 4, out[-2000:]
    assert f"reports NOT written: {refused} missing in" in out.splitlines()[-1], out[-2000:]
    assert not (tmp_path / refused).exists() and "Traceback" not in out
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        {"report.json", "junit.xml", "summary.md", "report.html"} - {refused})
    assert "before any test ran" not in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_a_static_file_server_is_not_the_api_and_exit_3_in_seconds(tmp_path: Path) -> None:
    import functools
    import http.server
    import threading
    import time

    (tmp_path / "index.html").write_text("<html><body>a static site</body></html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        started = time.monotonic()
        result = subprocess.run(CONFORMANCE + ["run", "--target-url", f"http://127.0.0.1:{server.server_port}",
                                               "--report-dir", str(tmp_path / "r")],
                                capture_output=True, text=True, timeout=120)
        took = time.monotonic() - started
    finally:
        server.shutdown()
    err = result.stderr.strip()
    assert result.returncode == 3 and took < 10, (result.returncode, took, result.stdout[-2000:], err)
    assert len(err.splitlines()) == 1 and "no API of the documents answered" in err and "404 text/html" in err, err
    assert json.loads((tmp_path / "r" / "report.json").read_text())["summary"]["verdict"] != "conformant"


@pytest.mark.parametrize("after", [["-n", "2"], ["-n2"], ["--numprocesses=2"]])
def test_worker_processes_asked_of_pytest_are_refused_in_one_line_before_anything_starts(
        after: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--report-dir", str(tmp_path / "reports"), "--", *after]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1, captured
    assert not (tmp_path / "reports").exists()


def test_arguments_pytest_refuses_say_nothing_was_tested_and_leave_no_empty_report_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--api", "admin", "--report-dir", str(tmp_path / "reports"), "--", "--no-such-option"]) == 2
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("conformance: nothing tested:") and "--no-such-option" in last and "reports in" not in last
    assert not (tmp_path / "reports").exists()
