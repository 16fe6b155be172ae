"""Processor time the suite spends per request: quick and standard runs of every API against the reference in a
process of its own, measured by the operating system over the run's whole process tree (the run and any process it
starts), the reference excluded.

    .venv/bin/python -m benchmarks.cpu_cost            # both profiles, each run twice (cases drawn, then reused)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.reference_throughput import reference_process
from benchmarks.table import Row, markdown, progress

ALL = "admin,index,evm,validators,data,metrics"
NOTE = ("CPU per request: the processor time (user and system) of a `conformance run` process tree, as the operating "
        "system counts it, over the requests it sent; *cases drawn now* starts from an empty store of drawn cases, "
        "*before* reads what the first run kept.")
RUN_TIMEOUT = 1800.0


@dataclass(frozen=True)
class Cost:
    profile: str
    cpu: float        # seconds of processor time, user and system, of the run's process tree
    requests: int
    wall: float
    exit_code: int

    @property
    def per_request_ms(self) -> float:
        return 1000 * self.cpu / self.requests if self.requests else float("nan")


def measure(url: str, profile: str, *extra: str, env: dict[str, str] | None = None) -> Cost:
    """One `conformance run` against `url`; its processor time read from the children's rusage once it ended."""
    with tempfile.TemporaryDirectory() as reports:
        before = os.times()
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "conformance", "run", "--target-url", url, "--api", ALL,
                               "--profile", profile, "--report-dir", reports, *extra],
                              capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
        wall = time.perf_counter() - started
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        try:
            report = json.loads((Path(reports) / "report.json").read_text(encoding="utf-8"))
            requests = int(report["summary"]["requests"])
        except (OSError, ValueError, KeyError):
            requests = 0
    return Cost(profile, cpu, requests, wall, done.returncode)


def run(profiles: tuple[str, ...] = ("quick", "standard")) -> list[Row]:
    rows = []
    with reference_process() as info, tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "CONFORMANCE_CASES_DIR": cache}
        for profile in profiles:
            for state in ("cold", "warm"):
                progress(f"cpu: {profile}, cases {state}")
                cost = measure(str(info["url"]), profile, env=env)
                rows.append(Row(f"CPU per request: {profile}, cases drawn {'before' if state == 'warm' else 'now'}",
                                wall=f"{cost.wall:.1f}", requests=f"{cost.requests:,}",
                                value=f"{cost.per_request_ms:.2f} ms ({cost.cpu:.1f} s of CPU)"
                                      + ("" if cost.exit_code == 0 else f", exit {cost.exit_code}")))
    return rows


if __name__ == "__main__":
    print(markdown(run()))
