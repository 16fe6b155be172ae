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
from typing import Any
from collections.abc import Iterator

import pytest
import requests

from tests.prerequisites import missing_from_npm

ROOT = Path(__file__).resolve().parents[1]
NPM = ROOT / ".venv" / "share" / "npm"
READY_WITHIN = 60.0
#: The Transfer(address,address,uint256) event's topic.
TRANSFER = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
#: Runtime code that logs a Transfer from the caller to the caller of amount 1 on every call.
LOGGER_RUNTIME = "6001600052" + "3333" + "7f" + TRANSFER + "60206000a300"
#: Creation code that returns LOGGER_RUNTIME (46 bytes, copied from offset 12).
LOGGER_DEPLOYMENT = "0x602e600c600039602e6000f3" + LOGGER_RUNTIME


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


def rpc(url: str, method: str, params: list[Any]) -> Any:
    reply = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=10)
    body = reply.json()
    if "error" in body:
        raise RuntimeError(f"{method}: {body['error']}")
    return body.get("result")


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
                with contextlib.suppress(requests.RequestException, ValueError, RuntimeError):
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


def seed(url: str) -> str:
    """A few transfers between the node's first two dev accounts and a contract that logs a Transfer, called twice;
    returns the contract's address."""
    first, second = rpc(url, "eth_accounts", [])[:2]
    for amount in range(3):
        rpc(url, "eth_sendTransaction", [{"from": first, "to": second, "value": hex(10**18 + amount)}])
    sent = rpc(url, "eth_sendTransaction", [{"from": first, "data": LOGGER_DEPLOYMENT, "gas": hex(200_000)}])
    contract = wait_for_receipt(url, sent)["contractAddress"]
    for _ in range(2):
        rpc(url, "eth_sendTransaction", [{"from": second, "to": contract, "gas": hex(100_000)}])
    return str(contract)


def wait_for_receipt(url: str, transaction: str, within: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        receipt = rpc(url, "eth_getTransactionReceipt", [transaction])
        if receipt:
            return dict(receipt)
        if time.monotonic() > deadline:
            raise RuntimeError(f"no receipt for {transaction} within {within} s")
        time.sleep(0.05)


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
            with contextlib.suppress(requests.RequestException, ValueError, RuntimeError):
                rpc(url, "eth_sendTransaction", [{"from": sender, "to": contract, "gas": hex(100_000)}])

    worker = threading.Thread(target=loop, name="node-traffic", daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(timeout=10)
