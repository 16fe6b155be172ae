"""A failure an expectation excuses is counted once, as an expected failure, alike in the terminal, pytest's line,
junit.xml and report.json."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from conformance.reference import ReferenceServer
from conformance.reference.faults import REGISTRY

FAULT, RULE = "ContainerBytesBase64", "RPC-IDX-010"


def test_an_excused_failure_is_counted_as_excused_in_every_report(tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    expires = (dt.date.today() + dt.timedelta(days=30)).isoformat()
    known.write_text(yaml.safe_dump([{"rule": RULE, "reason": "vendor ticket 12", "expires": expires}]))
    with ReferenceServer(faults=[REGISTRY[FAULT]()]) as server:
        run = subprocess.run([sys.executable, "-m", "conformance", "run", "--node-url", server.url, "--api", "index",
                              "--rule", RULE, "--profile", "quick", "--recheck", "0", "--expectations", str(known),
                              "--report-dir", str(tmp_path / "r")], capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    summary = report["summary"]
    excused = [test for test in report["tests"] if "excused" in test]
    assert run.returncode == 0, out[-3000:]
    assert excused and summary["failed"] == 0 and summary["expected_failures"] == len(excused), summary
    assert all(test["excused"] == "vendor ticket 12" and test["outcome"] == "excused" for test in excused)
    assert not any(test["outcome"] == "failed" for test in report["tests"])
    # the terminal names each as excused, never as failed, and writes no letter of pytest's for it
    assert not [line for line in out.splitlines() if line.startswith("FAILED ")], out[-1500:]
    assert len([line for line in out.splitlines() if line.startswith("EXCUSED ")]) == len(excused), out[-1500:]
    assert not any(line.startswith("x") for line in out.splitlines()), out[-1500:]
    assert " failed" not in out.splitlines()[-2] and f"{len(excused)} xfailed" in out, out[-1500:]
    assert f"0 failed, 0 errors, {summary['skipped']} skipped, {len(excused)} expected failures" in out, out[-1500:]
    suite = ET.parse(tmp_path / "r" / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    skipped = [case for case in suite.iter("testcase") if case.find("skipped") is not None
               and "expected failure: vendor ticket 12" in (case.find("skipped").get("message") or "")]  # type: ignore[union-attr]
    assert len(skipped) == len(excused)
    properties = {p.get("name"): p.get("value") for p in suite.iter("property") if p.get("name") in (
        "skipped", "expected_failures")}
    assert properties == {"skipped": str(summary["skipped"]), "expected_failures": str(len(excused))}
