"""Wall time and requests of `conformance run` per profile and API group, next to a bare requests loop."""
from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from benchmarks.reference_throughput import CALL, reference_process
from benchmarks.table import Row, markdown, progress

GROUPS = {"node": "admin,index,evm,validators", "data": "data", "metrics": "metrics"}
LABELS = {"node": "node APIs", "data": "Data API", "metrics": "Metrics API"}
ALL = ",".join(GROUPS.values())
#: no run of the suite against the local reference takes this long; a hung run must not hang the benchmark
RUN_TIMEOUT = 1800.0
#: the bare loop and the standard run of every API, each the median of this many: single runs of either move by
#: a tenth from one minute to the next on a shared machine, and the ratio divides one by the other
REPEATS = 3

RATIO_NOTE = ("suite / bare loop: requests a second inside the test session (the pytest session's duration, "
              "so interpreter start-up is left out) divided by the small JSON-RPC calls a second of a bare "
              "`requests` loop against the same reference; 1.00 would mean the suite adds nothing between "
              f"requests, the rest is generating, checking and recording. The bare loop and the one-worker run of "
              f"every API are each the median of {REPEATS} runs.")


@dataclass(frozen=True)
class SuiteRun:
    wall: float        # seconds, process start to exit
    in_session: float  # seconds of the pytest session, collection included
    requests: int      # requests sent to the target
    exit_code: int

    def row(self, figure: str, bare: float, value: str = "") -> Row:
        ratio = self.requests / self.in_session / bare if self.in_session and self.requests else None
        outcome = "" if self.exit_code == 0 else f"exit {self.exit_code}"
        return Row(figure, wall=f"{self.wall:.1f}", requests=f"{self.requests:,}",
                   ratio="n/a" if ratio is None else f"{ratio:.2f}",
                   value=", ".join(part for part in (value, outcome) if part))


def bare_loop_rate(url: str, count: int = 1000) -> float:
    """Small JSON-RPC calls a second from a plain requests loop: the client-side ceiling of one process."""
    session = requests.Session()
    session.trust_env = False  # as the suite's own client: no proxy look-up from the environment per request
    _ = session.post(url + "/ext/index/X/tx", data=CALL, headers={"content-type": "application/json"}).content
    started = time.perf_counter()
    for _ in range(count):
        _ = session.post(url + "/ext/index/X/tx", data=CALL, headers={"content-type": "application/json"}).content
    return count / (time.perf_counter() - started)


def run_suite(info: dict, apis: str, profile: str, *extra: str) -> SuiteRun:
    """One `conformance run` against the reference described by `info`, in its own process."""
    samples = [arg for name, value in info.get("samples", {}).items() for arg in ("--sample", f"{name}={value}")]
    with tempfile.TemporaryDirectory() as reports:
        command = [sys.executable, "-m", "conformance", "run", "--target-url", info["url"],
                   "--evm-chain", info["evm_blockchain_id"], "--api", apis, "--profile", profile,
                   "--report-dir", reports, *samples, *extra]
        started = time.perf_counter()
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            progress(f"  gave up after {RUN_TIMEOUT:.0f} s")
            return SuiteRun(RUN_TIMEOUT, 0.0, 0, -1)
        elapsed = time.perf_counter() - started
        in_session, sent = _report_figures(Path(reports) / "report.json") or _printed_figures(result.stdout)
    if result.returncode != 0:
        last = (result.stderr.strip() or result.stdout.strip() or "no output").splitlines()[-1]
        progress(f"  exit {result.returncode}: {last}")
    return SuiteRun(elapsed, in_session or elapsed, sent, result.returncode)


def median_run(runs: list[SuiteRun]) -> SuiteRun:
    """The run whose session time is the median of `runs` (the lower middle one of an even number)."""
    ordered = sorted(runs, key=lambda run: run.in_session)
    return ordered[(len(ordered) - 1) // 2]


def _report_figures(path: Path) -> tuple[float, int] | None:
    """Session seconds and requests from report.json, when the run wrote one."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        return float(report["suite"]["duration_s"]), int(report["summary"]["requests"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _printed_figures(stdout: str) -> tuple[float, int]:
    """The same figures from the terminal output, for a run that stopped before writing its reports."""
    sent = re.search(r"conformance: (\d+) requests sent", stdout)
    # pytest's last line: "... 3 passed, 1 skipped in 5.21s (0:00:05)"; earlier lines may say " in " too
    sessions = re.findall(r" in ([\d.]+)s\b", stdout)
    return float(sessions[-1]) if sessions else 0.0, int(sent.group(1)) if sent else 0


def measure(profiles: tuple[str, ...] = ("quick", "standard"), *, groups: bool = True,
            whole: bool = True) -> dict[str, list[Row]]:
    """Rows per part: "suite" (bare loop, each profile x API group), "whole" (every API, standard)."""
    found: dict[str, list[Row]] = {"suite": [], "whole": []}
    with reference_process() as info:
        progress("bare requests loop")
        bare = statistics.median(bare_loop_rate(str(info["url"])) for _ in range(REPEATS))
        # the ratios divide by this rate: its row goes with the first part that shows them
        found["suite" if groups else "whole"].append(
            Row("bare `requests` loop: small JSON-RPC calls/s", value=f"{bare:,.0f}"))
        for profile in profiles if groups else ():
            for group, apis in GROUPS.items():
                progress(f"suite, {profile}, {LABELS[group]}")
                found["suite"].append(run_suite(info, apis, profile).row(f"suite: {profile}, {LABELS[group]}", bare))
        if whole:
            progress(f"suite, standard, all APIs, one worker, {REPEATS} times")
            one = median_run([run_suite(info, ALL, "standard") for _ in range(REPEATS)])
            found["whole"].append(one.row("suite: standard, all APIs, one worker", bare))
    return found


if __name__ == "__main__":
    print(markdown([row for rows in measure().values() for row in rows]))
    print()
    print(RATIO_NOTE)
