"""The yardstick of processor time per request: a bare loop that only sends and parses, in a process of its own.

Keep-alive GETs of one Data API page (the reference's first 10 blockchains, about 20 KB) with `http.client` and
`json.loads`: what the wire and the parse cost on this machine, this minute. The suite's figures are read as ratios
to it, measured in the same run, because absolute processor times do not carry from one machine to another.

    .venv/bin/python -m benchmarks.bare_loop URL [COUNT]
"""
from __future__ import annotations

import statistics
import subprocess
import sys

from benchmarks.table import BenchmarkError

#: The page every loop asks for; {network} is the reference's Data API network.
PAGE = "/v1/networks/{network}/blockchains?pageSize=10"
COUNT = 2000

_LOOP = r"""
import http.client, json, sys, time, urllib.parse
url, path, count = urllib.parse.urlsplit(sys.argv[1]), sys.argv[2], int(sys.argv[3])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
def once():
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"HTTP {response.status} for {path}")
    return len(body), json.loads(body)
size, _ = once()
for _ in range(50):
    once()
started = time.process_time()
for _ in range(count):
    once()
print(1000 * (time.process_time() - started) / count, size)
"""


def cpu_per_request_ms(url: str, network: str, count: int = COUNT) -> tuple[float, int]:
    """Processor time per request of the bare loop (ms), and the page's size in bytes."""
    done = subprocess.run([sys.executable, "-c", _LOOP, url, PAGE.format(network=network), str(count)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise BenchmarkError(f"the bare loop failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    ms, size = done.stdout.split()
    return float(ms), int(size)


def median_of(url: str, network: str, times: int = 3) -> tuple[float, int]:
    """The median of `times` loops: a loop is short, and one of them can fall on a busy moment."""
    figures = [cpu_per_request_ms(url, network) for _ in range(times)]
    return statistics.median(ms for ms, _ in figures), figures[0][1]


if __name__ == "__main__":
    ms, size = cpu_per_request_ms(sys.argv[1], "mainnet", int(sys.argv[2]) if len(sys.argv) > 2 else COUNT)
    print(f"{ms:.3f} ms per request, {size:,} bytes a page")
