"""The suite against a distant target: the reference behind a proxy that adds a fixed delay to every answer.

Each run is `conformance run` with its default `--concurrency` (at most 8 tests in flight); its floor is the time
its requests would take if the delay were all there was to wait for, `requests x delay / 8`.
"""
from __future__ import annotations

from benchmarks.delay_proxy import DelayProxy
from benchmarks.reference_throughput import reference_process
from benchmarks.suite_speed import ALL, SuiteRun, run_suite
from benchmarks.table import Row, markdown, progress
from conformance.config import DEFAULT_CONCURRENCY

DELAYS = (0.010, 0.050)
PROFILES = ("quick", "standard")
#: Longer than any run here takes; the proxy stops by itself after it.
PROXY_LIFETIME = 3600.0

NOTE = (f"latency: each answer of the reference arrives the stated delay later (a threaded proxy on 127.0.0.1); "
        f"floor = requests x delay / {DEFAULT_CONCURRENCY}, the wall time if waiting for answers were all the suite "
        f"did with {DEFAULT_CONCURRENCY} requests in flight.")


def _row(run: SuiteRun, figure: str, delay: float, lanes: int) -> Row:
    floor = run.requests * delay / lanes
    ratio = f"{run.wall / floor:.2f}x the floor of {floor:.1f} s" if floor else "no requests"
    return Row(figure, wall=f"{run.wall:.1f}", requests=f"{run.requests:,}",
               value=ratio if run.exit_code == 0 else f"{ratio}, exit {run.exit_code}")


def measure(profiles: tuple[str, ...] = PROFILES, *, sequential: bool = False) -> list[Row]:
    """Rows for each delay and profile; `sequential` adds quick at each delay with one test at a time."""
    rows: list[Row] = []
    with reference_process() as info:
        for delay in DELAYS:
            with DelayProxy(str(info["url"]), delay, lifetime=PROXY_LIFETIME) as proxy:
                behind = {**info, "url": proxy.url}
                label = f"{delay * 1000:.0f} ms"
                for profile in profiles:
                    progress(f"latency {label}, {profile}")
                    rows.append(_row(run_suite(behind, ALL, profile), f"latency {label}: {profile}, all APIs",
                                     delay, DEFAULT_CONCURRENCY))
                if sequential:
                    progress(f"latency {label}, quick, one test at a time")
                    rows.append(_row(run_suite(behind, ALL, "quick", "--concurrency", "1"),
                                     f"latency {label}: quick, all APIs, `--concurrency 1`", delay, 1))
    return rows


if __name__ == "__main__":
    print(markdown(measure()))
    print()
    print(NOTE)
