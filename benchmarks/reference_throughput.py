"""How many small JSON-RPC calls a second the reference target serves, measured from another process."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

CALL = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted",
                   "params": {"encoding": "hex"}}).encode()


@contextmanager
def reference_process(*args: str) -> Iterator[dict]:
    """`conformance serve-reference` in its own process, so client and server do not share one interpreter."""
    process = subprocess.Popen([sys.executable, "-m", "conformance", "serve-reference", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield json.loads(process.stdout.readline())  # type: ignore[union-attr]
    finally:
        process.terminate()
        process.wait(timeout=10)


def _calls(port: int, count: int, results: list[float]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    started = time.perf_counter()
    for _ in range(count):
        connection.request("POST", "/ext/index/X/tx", body=CALL, headers={"content-type": "application/json"})
        connection.getresponse().read()
    results.append(time.perf_counter() - started)
    connection.close()


def requests_per_second(port: int, *, clients: int, calls: int) -> float:
    results: list[float] = []
    threads = [threading.Thread(target=_calls, args=(port, calls, results)) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return clients * calls / (time.perf_counter() - started)


def measure(calls: int = 3000) -> list[tuple[str, str]]:
    with reference_process() as info:
        port = int(str(info["url"]).rsplit(":", 1)[1])
        _calls(port, 200, [])  # warm up
        rows = [(f"reference: JSON-RPC calls/s, {clients} keep-alive client{'s' if clients > 1 else ''}",
                 f"{requests_per_second(port, clients=clients, calls=calls // clients):,.0f}")
                for clients in (1, 4)]
    return rows


if __name__ == "__main__":
    for name, value in measure():
        print(f"{name:60} {value:>12}")
