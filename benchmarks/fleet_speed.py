"""How long a fleet of N targets takes against one target alone, each a reference `delay` seconds away.

Each target is a reference target behind a delay proxy, both in a process of their own (a remote target's work
is not the suite's): `python -m benchmarks.fleet_speed [N] [DELAY] [PROFILE]` prints the time of one target's run
and the time of the fleet of N, and their ratio.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVE = """
import sys, threading
from benchmarks.delay_proxy import DelayProxy
from conformance.reference import ReferenceServer
server = ReferenceServer(seed=0).start()
proxy = DelayProxy(server.url, float(sys.argv[1]), lifetime=3600).start()
print(proxy.url, server.info()["evm_blockchain_id"], flush=True)
threading.Event().wait()
"""


def start_targets(count: int, delay: float) -> tuple[list[subprocess.Popen[str]], list[str], str]:
    processes, urls, chain = [], [], ""
    for _ in range(count):
        process = subprocess.Popen([sys.executable, "-c", SERVE, str(delay)], stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        url, chain = process.stdout.readline().split()
        processes.append(process)
        urls.append(url)
    return processes, urls, chain


def timed(argv: list[str]) -> tuple[float, int]:
    started = time.monotonic()
    code = subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started, code


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
    profile = sys.argv[3] if len(sys.argv) > 3 else "standard"
    processes, urls, chain = start_targets(count, delay)
    try:
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder)
            # The reference's Data API key is a sample it publishes; a real target's would be in api_key_env.
            one, code = timed([sys.executable, "-m", "conformance", "run", "--target-url", urls[0], "--evm-chain",
                               chain, "--profile", profile, "--report-dir", str(base / "one")])
            print(f"one target: {one:.1f} s (exit {code})", flush=True)
            lines = [f'profile = "{profile}"', f'evm_chain = "{chain}"', ""]
            for n, url in enumerate(urls):
                lines += ["[[targets]]", f'name = "t{n}"', f'target_url = "{url}"', ""]
            (base / "fleet.toml").write_text("\n".join(lines), encoding="utf-8")
            fleet, code = timed([sys.executable, "-m", "conformance", "run", "--fleet", str(base / "fleet.toml"),
                                 "--report-dir", str(base / "fleet"), *sys.argv[4:]])
            print(f"fleet of {count}: {fleet:.1f} s (exit {code}); {fleet / one:.2f} times one target "
                  f"on {os.cpu_count()} cores", flush=True)
    finally:
        for process in processes:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
