"""What each speed mechanism of the engine is worth: `conformance run` with and without it, in alternating runs,
against the reference on loopback (in its own process) and behind a proxy that delays every answer by 50 ms.

A mechanism stays only where it takes a tenth or more off a run in one of these places (docs/performance.md);
this prints the medians that decide it. Run it on a quiet machine: `python benchmarks/mechanisms.py`.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.delay_proxy import DelayProxy
from benchmarks.reference_throughput import reference_process
from benchmarks.suite_speed import ALL, run_suite
from benchmarks.table import Row, markdown, progress
from conformance.config import DEFAULT_CONCURRENCY

#: Mechanism -> the options that turn it off.
MECHANISMS = {f"tests in flight (--concurrency {DEFAULT_CONCURRENCY})": ("--concurrency", "1")}
PLACES = {"loopback": 0.0, "50 ms away": 0.050}


def medians(info: dict, profile: str, off: tuple[str, ...], repeats: int) -> tuple[float, float, int, int]:
    """Median wall time with the mechanism and without it, from alternating runs, and their request counts."""
    with_it, without_it, requests_with, requests_without = [], [], [], []
    for _ in range(repeats):
        on_run, off_run = run_suite(info, ALL, profile), run_suite(info, ALL, profile, *off)
        with_it.append(on_run.wall)
        without_it.append(off_run.wall)
        requests_with.append(on_run.requests)
        requests_without.append(off_run.requests)
    return (statistics.median(with_it), statistics.median(without_it), int(statistics.median(requests_with)),
            int(statistics.median(requests_without)))


def measure(profiles: tuple[str, ...], repeats: int, only: tuple[str, ...]) -> list[Row]:
    rows = []
    with reference_process() as info:
        for place, delay in PLACES.items():
            proxy = DelayProxy(str(info["url"]), delay, lifetime=7200.0) if delay else None
            target = {**info, "url": proxy.__enter__().url} if proxy else info
            try:
                for name, off in MECHANISMS.items():
                    if only and not any(word in name for word in only):
                        continue
                    for profile in profiles:
                        progress(f"{name}, {place}, {profile}")
                        on, without, sent_on, sent_off = medians(target, profile, off, repeats)
                        rows.append(Row(f"{name}: {place}, {profile}", wall=f"{on:.1f} vs {without:.1f}",
                                        requests=f"{sent_on:,} vs {sent_off:,}",
                                        value=f"{(without - on) / without:+.0%} of the run without it"))
            finally:
                if proxy:
                    proxy.__exit__(None, None, None)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profiles", default="quick,standard")
    parser.add_argument("--repeats", type=int, default=3, help="alternating pairs of runs per figure (default 3)")
    parser.add_argument("--only", default="", help="comma-separated words of the mechanisms to measure")
    args = parser.parse_args()
    rows = measure(tuple(args.profiles.split(",")), args.repeats, tuple(w for w in args.only.split(",") if w))
    print(markdown(rows))


if __name__ == "__main__":
    main()
