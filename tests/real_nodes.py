"""Stock Ethereum nodes from npm (anvil, ganache, hardhat), started on loopback, seeded, and kept moving.

`make test` unpacks them into .venv/share/npm/; where they are missing a test that needs one skips with one line
(tests/prerequisites.py).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator

import pytest
import requests

from conformance.devchain import rpc, seed
from conformance.errors import SuiteError
from tests.prerequisites import missing_from_npm

__all__ = ["Node", "live_chain", "running", "seed"]

ROOT = Path(__file__).resolve().parents[1]
NPM = ROOT / ".venv" / "share" / "npm"
READY_WITHIN = 60.0


@dataclass(frozen=True)
class Node:
    """How to start one kind of node listening on 127.0.0.1:<port>."""

    name: str

    def command(self, port: int) -> tuple[list[str], Path | None]:
        """The command line and the folder to run it in."""
        if self.name == "anvil":
            configured = os.environ.get("CONFORMANCE_ANVIL")
            found = [Path(configured)] if configured else sorted(NPM.glob("anvil-*/package/bin/anvil"))
            if not found or not found[-1].is_file():
                missing_from_npm("the anvil binary", "`make test` unpacks it from npm (@foundry-rs/anvil-<platform>) "
                                 "into .venv/share/npm/, or set CONFORMANCE_ANVIL to one")
            return [str(found[-1]), "--host", "127.0.0.1", "--port", str(port), "--silent"], None
        folders = sorted(f for f in NPM.glob("nodes/ganache-*-hardhat-*") if not f.name.endswith(".tmp"))
        node = shutil.which("node")
        if not folders or node is None:
            missing_from_npm(f"{self.name} (or Node.js)", "`make test` installs ganache and hardhat from npm "
                             "into .venv/share/npm/nodes/")
        folder = folders[-1]
        if self.name == "ganache":
            return [node, str(folder / "node_modules/ganache/dist/node/cli.js"), "--host", "127.0.0.1",
                    "--port", str(port), "--logging.quiet"], folder
        # hardhat reads hardhat.config.js (an empty one) from the folder it runs in.
        return [node, str(folder / "node_modules/hardhat/internal/cli/cli.js"), "node", "--hostname", "127.0.0.1",
                "--port", str(port)], folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running(node: Node) -> Iterator[str]:
    """`node` on 127.0.0.1 at a free port, ready (eth_chainId answers), stopped with its process afterwards."""
    port = free_port()
    command, folder = node.command(port)
    env = {**os.environ, "HARDHAT_DISABLE_TELEMETRY_PROMPT": "true", "DO_NOT_TRACK": "1"}
    with tempfile.TemporaryDirectory() as home:
        env.setdefault("XDG_CONFIG_HOME", home)
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + READY_WITHIN
            while True:
                if process.poll() is not None:
                    pytest.fail(f"{node.name} exited with {process.returncode}: "
                                f"{process.stderr.read().decode(errors='replace')[-500:]}")  # type: ignore[union-attr]  # stderr=PIPE
                with contextlib.suppress(requests.RequestException, ValueError, SuiteError):
                    if rpc(url, "eth_chainId", []):
                        break
                if time.monotonic() > deadline:
                    pytest.fail(f"{node.name} did not answer eth_chainId at {url} within {READY_WITHIN:.0f} s")
                time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def live_chain(url: str, contract: str, *, every: float = 0.25, most: int = 400) -> Iterator[None]:
    """A call of the logging contract every `every` seconds (each mines a block), so the chain moves during the
    run."""
    stop = threading.Event()
    sender = rpc(url, "eth_accounts", [])[0]

    def loop() -> None:
        for _ in range(most):
            if stop.wait(every):
                return
            with contextlib.suppress(requests.RequestException, ValueError, SuiteError):
                rpc(url, "eth_sendTransaction", [{"from": sender, "to": contract, "gas": hex(100_000)}])

    worker = threading.Thread(target=loop, name="node-traffic", daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(timeout=10)
