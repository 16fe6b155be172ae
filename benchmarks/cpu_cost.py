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

from benchmarks import bare_loop
from benchmarks.reference_throughput import reference_process
from benchmarks.table import Row, markdown, progress

ALL = "admin,index,evm,validators,data,metrics"
NOTE = ("CPU per request: the processor time (user and system) of a `conformance run` process tree, as the operating "
        "system counts it, over the requests it sent; *cases drawn now* (cold) starts from an empty store of drawn "
        "cases, *before* (warm) reads what the first run kept. *× bare* divides it by the bare loop's "
        "(`benchmarks/bare_loop.py`: keep-alive GETs of one 20 KB Data API page, `http.client` and `json.loads`), "
        "the median of its runs before and after the suite's in the same minutes: the ratio carries from one "
        "machine to another, the milliseconds do not.")
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
    costs: list[tuple[str, Cost]] = []
    with reference_process() as info, tempfile.TemporaryDirectory() as cache:
        url, network = str(info["url"]), str(info["samples"]["data_network"])
        env = {**os.environ, "CONFORMANCE_CASES_DIR": cache}
        progress("cpu: the bare loop")
        bare, size = bare_loop.median_of(url, network)
        for profile in profiles:
            for state in ("cold", "warm"):
                progress(f"cpu: {profile}, cases {state}")
                costs.append((state, measure(url, profile, env=env)))
        progress("cpu: the bare loop again")
        bare = (bare + bare_loop.median_of(url, network)[0]) / 2
    rows = [Row(f"CPU per request: bare loop, http.client and json.loads, {size / 1000:.0f} KB page",
                value=f"{bare:.3f} ms")]
    for state, cost in costs:
        drawn = "before" if state == "warm" else "now"
        rows.append(Row(f"CPU per request: {cost.profile}, {state} (cases drawn {drawn})",
                        wall=f"{cost.wall:.1f}", requests=f"{cost.requests:,}",
                        value=f"{cost.per_request_ms / bare:.1f}× bare ({cost.per_request_ms:.2f} ms, {cost.cpu:.1f} s "
                              f"of CPU)" + ("" if cost.exit_code == 0 else f", exit {cost.exit_code}")))
    return rows


if __name__ == "__main__":
    print(markdown(run()))
