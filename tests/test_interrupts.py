"""A run that is stopped loses nothing: SIGTERM (what CI runners and Kubernetes send on cancel) and SIGINT end the
run with every report written, the rules not reached untested because interrupted, exit code 4, and no process of
the run left behind."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.delay_proxy import DelayProxy
from conformance.errors import EXIT_INCOMPLETE
from conformance.reference import ReferenceServer

REPORTS = ("report.json", "junit.xml", "summary.md", "report.html")


def _start(url: str, report_dir: Path) -> subprocess.Popen[bytes]:
    # A session of its own: afterwards, any process of the run still alive is found in its process group.
    return subprocess.Popen([sys.executable, "-m", "conformance", "run", "--target-url", url, "--profile", "standard",
                             "--report-dir", str(report_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _wait_for_tests(proxy: DelayProxy, process: subprocess.Popen[bytes]) -> None:
    """Until the run's tests have sent a few hundred of its thousands of requests, so the signal lands mid-run."""
    ends = time.monotonic() + 120
    while time.monotonic() < ends and process.poll() is None and proxy.forwarded < 400:
        time.sleep(0.1)


def _catches(pid: int, sig: signal.Signals) -> bool:
    """Whether the process has a handler of its own for `sig` (its SigCgt mask in /proc): before its first line of
    Python runs, a signal ends it as it would any process, and no program can keep it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
    return bool(mask >> (int(sig) - 1) & 1)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_run_writes_every_report_and_leaves_no_process(sig: signal.Signals, tmp_path: Path) -> None:
    with ReferenceServer() as server, DelayProxy(server.url, 0.05) as proxy:
        process = _start(proxy.url, tmp_path)
        _wait_for_tests(proxy, process)
        assert process.poll() is None, "the run ended before it could be stopped"
        process.send_signal(sig)
        output, _ = process.communicate(timeout=60)
    text = output.decode(errors="replace")
    assert process.returncode == EXIT_INCOMPLETE, text[-3000:]
    assert "Traceback" not in text
    assert all((tmp_path / name).is_file() for name in REPORTS), sorted(p.name for p in tmp_path.iterdir())
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["summary"]["verdict"] == "incomplete"
    interrupted = [rule for rule in report["rules"] if rule.get("reason") == "interrupted"]
    decided = [rule for rule in report["rules"] if rule["status"] in ("pass", "fail")]
    assert interrupted and decided, "some rules were decided before the signal, others not reached"
    # Answers the stop cut off are the run's own doing: their tests are interrupted, never the target's errors.
    errors = [(test["id"], test.get("message", "")[:200]) for test in report["tests"] if test["outcome"] == "error"]
    assert not errors, errors
    time.sleep(0.5)
    assert not _group_alive(process.pid), "a process of the run outlived it"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_run_stopped_while_it_starts_still_reports_and_exits_4(sig: signal.Signals, tmp_path: Path) -> None:
    """A signal during the command's imports or the reference's start is kept until the run can write its reports."""
    process = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--profile", "quick",
                                "--report-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    ends = time.monotonic() + 30
    # SIGTERM's handler is the command's own (Python installs one for SIGINT before any of its code runs): both are
    # kept from the same line on.
    while not _catches(process.pid, signal.SIGTERM) and time.monotonic() < ends and process.poll() is None:
        time.sleep(0.005)
    process.send_signal(sig)
    output, _ = process.communicate(timeout=60)
    text = output.decode(errors="replace")
    assert process.returncode == EXIT_INCOMPLETE, text[-3000:]
    assert "Traceback" not in text
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["summary"]["verdict"] == "incomplete"
    assert not _group_alive(process.pid)


def test_a_second_signal_after_the_last_line_keeps_the_run_s_exit_code(tmp_path: Path) -> None:
    """Once the run has said its exit code, a second Ctrl-C (to the command's process alone, as a terminal that
    repeats it sends) ends it with that code: never killed by the signal while the interpreter shuts down."""
    with ReferenceServer() as server, DelayProxy(server.url, 0.05) as proxy:
        process = _start(proxy.url, tmp_path)
        _wait_for_tests(proxy, process)
        process.send_signal(signal.SIGINT)
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line.decode(errors="replace"))
            if "; exit " in seen[-1]:
                process.send_signal(signal.SIGINT)
                break
        rest, _ = process.communicate(timeout=60)
    text = "".join(seen) + rest.decode(errors="replace")
    assert process.returncode == EXIT_INCOMPLETE, text[-3000:]
    assert "Traceback" not in text
    assert all((tmp_path / name).is_file() for name in REPORTS)
