"""How many small JSON-RPC calls a second the reference target serves, measured from another process."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator

from benchmarks.table import BenchmarkError, Row, markdown

CALL = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted",
                   "params": {"encoding": "hex"}}).encode()


@contextmanager
def reference_process(*args: str) -> Iterator[dict]:
    """`conformance serve-reference` in its own process, so client and server do not share one interpreter."""
    with tempfile.TemporaryFile(mode="w+") as errors:
        process = subprocess.Popen([sys.executable, "-m", "conformance", "serve-reference", "--port", "0", *args],
                                   stdout=subprocess.PIPE, stderr=errors, text=True)
        try:
            line = process.stdout.readline()  # type: ignore[union-attr]  # stdout=PIPE
            try:
                info = json.loads(line)
            except ValueError:
                process.wait(timeout=10)
                errors.seek(0)
                last = (errors.read().strip().splitlines() or ["no output"])[-1]
                raise BenchmarkError(f"conformance serve-reference did not start: {last}") from None
            yield info
        finally:
            process.terminate()
            process.wait(timeout=10)


def port_of(info: dict) -> int:
    return int(str(info["url"]).rsplit(":", 1)[1].split("/")[0])


def _calls(port: int, count: int, results: list[float]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    started = time.perf_counter()
    try:
        for _ in range(count):
            connection.request("POST", "/ext/index/X/tx", body=CALL, headers={"content-type": "application/json"})
            connection.getresponse().read()
    except (OSError, http.client.HTTPException):
        return  # the caller sees one result missing and says so once, instead of a traceback per thread
    finally:
        connection.close()
    results.append(time.perf_counter() - started)


def requests_per_second(port: int, *, clients: int, calls: int) -> float:
    """Calls a second served to `clients` threads that each send `calls` calls over one keep-alive connection."""
    results: list[float] = []
    threads = [threading.Thread(target=_calls, args=(port, calls, results)) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if len(results) != clients:
        raise BenchmarkError("a throughput client failed; the reference stopped answering")
    return clients * calls / (time.perf_counter() - started)


def measure(calls: int = 3000) -> list[Row]:
    rows = []
    with reference_process() as info:
        port = port_of(info)
        _calls(port, 200, [])  # the first calls pay for imports and caches on the server side
        for clients in (1, 4):
            rate = requests_per_second(port, clients=clients, calls=calls // clients)
            rows.append(Row(f"reference: small JSON-RPC calls/s, {clients} keep-alive "
                            f"client{'s' if clients > 1 else ''} (http.client)", value=f"{rate:,.0f}"))
    return rows


if __name__ == "__main__":
    print(markdown(measure()))
