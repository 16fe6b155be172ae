"""Wall time and request count of `conformance run` per profile and API group, next to a bare requests loop."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time

import requests

from benchmarks.reference_throughput import CALL, reference_process

GROUPS = {"node": "admin,index,evm,validators", "data": "data", "metrics": "metrics"}


def bare_loop_rate(url: str, count: int = 1000) -> float:
    """Small JSON-RPC calls a second from a plain requests loop: the client-side ceiling."""
    session = requests.Session()
    started = time.perf_counter()
    for _ in range(count):
        session.post(url + "/ext/index/X/tx", data=CALL, headers={"content-type": "application/json"}).content
    return count / (time.perf_counter() - started)


def run_suite(info: dict, apis: str, profile: str, *extra: str) -> tuple[float, float, int, int]:
    """Wall seconds, seconds inside the test session, requests sent and exit code of one `conformance run`."""
    samples = [arg for name, value in info["samples"].items() for arg in ("--sample", f"{name}={value}")]
    with tempfile.TemporaryDirectory() as reports:
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "conformance", "run", "--target-url", info["url"],
                                 "--evm-chain", info["evm_blockchain_id"], "--api", apis, "--profile", profile,
                                 "--report-dir", reports, *samples, *extra],
                                capture_output=True, text=True)
        elapsed = time.perf_counter() - started
    found = re.search(r"(\d+) requests sent", result.stdout)
    session = re.search(r" in ([\d.]+)s", result.stdout)
    return (elapsed, float(session.group(1)) if session else elapsed, int(found.group(1)) if found else 0,
            result.returncode)


def measure(profiles: tuple[str, ...] = ("quick", "standard")) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with reference_process() as info:
        bare = bare_loop_rate(str(info["url"]))
        rows.append(("bare requests loop: calls/s", f"{bare:,.0f}"))
        for profile in profiles:
            for group, apis in GROUPS.items():
                elapsed, in_session, sent, code = run_suite(info, apis, profile)
                rate = sent / in_session if in_session else 0.0
                rows.append((f"suite {profile:8} {group:8}: wall s / session s / requests / req/s / vs bare",
                             f"{elapsed:.1f} / {in_session:.1f} / {sent} / {rate:,.0f} / {rate / bare:.2f}"
                             + ("" if code == 0 else f" (exit {code})")))
        elapsed_1, _, _, _ = run_suite(info, GROUPS["node"], "standard")
        elapsed_2, _, _, _ = run_suite(info, GROUPS["node"], "standard", "-n", "2")
        rows.append(("node suite, standard: wall-time speed-up of -n 2 over one worker", f"{elapsed_1 / elapsed_2:.2f}x"))
    return rows


if __name__ == "__main__":
    for name, value in measure():
        print(f"{name:72} {value:>28}")
