"""The EVM part of the suite against anvil, a real Ethereum node pointed at with --evm-rpc-url.

anvil serves the standard Ethereum methods, so none of their rules may fail; it serves none of the document's
extra methods, and each of those must be reported once, as not served, while their other tests skip.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance import config
from conformance.checks.served import SERVED_RULES
from conformance.errors import ConfigError
from conformance.rules import load_catalogue
from tests.suite_runs import SuiteRun, run_suite

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = [method for method in SERVED_RULES if method.startswith("eth_")]
#: anvil's first dev account, unlocked for eth_sendTransaction.
DEV_ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
#: Creation code whose constructor emits one empty log (PUSH1 0 PUSH1 0 LOG0 STOP): a block with a log each time.
LOGGING_DEPLOYMENT = "0x60006000a000"
READY_WITHIN = 30.0


def anvil_binary() -> Path:
    """$CONFORMANCE_ANVIL, else the binary `make test` unpacks from npm into .venv/share/npm/."""
    configured = os.environ.get("CONFORMANCE_ANVIL")
    found = [Path(configured)] if configured else sorted(ROOT.glob(".venv/share/npm/anvil-*/package/bin/anvil"))
    if not found or not found[-1].is_file():
        pytest.fail("the anvil binary is missing: `make test` installs it from npm (@foundry-rs/anvil-<platform>) "
                    "into .venv/share/npm/, or set CONFORMANCE_ANVIL to one")
    return found[-1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rpc(url: str, method: str, params: list[Any]) -> Any:
    reply = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=5)
    return reply.json().get("result")


@contextlib.contextmanager
def running_anvil() -> Iterator[str]:
    """anvil on 127.0.0.1 at a free port, ready (eth_chainId answers), stopped by its own process afterwards."""
    port = free_port()
    process = subprocess.Popen([str(anvil_binary()), "--host", "127.0.0.1", "--port", str(port), "--silent"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_WITHIN
        while True:
            if process.poll() is not None:
                pytest.fail(f"anvil exited with {process.returncode}: {process.stderr.read().decode()[-500:]}")
            with contextlib.suppress(requests.RequestException, ValueError):
                if rpc(url, "eth_chainId", []):
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"anvil did not answer eth_chainId at {url} within {READY_WITHIN:.0f} s")
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
def live_chain(url: str, *, every: float = 0.25, most: int = 400) -> Iterator[None]:
    """A transaction every `every` seconds (anvil mines a block for each), so the chain moves during the run."""
    stop = threading.Event()

    def send() -> None:
        rpc(url, "eth_sendTransaction", [{"from": DEV_ACCOUNT, "data": LOGGING_DEPLOYMENT}])

    def loop() -> None:
        for _ in range(most):
            if stop.wait(every):
                return
            with contextlib.suppress(requests.RequestException, ValueError):
                send()

    for _ in range(3):
        send()
    worker = threading.Thread(target=loop, name="anvil-traffic", daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(timeout=10)


@pytest.fixture(scope="module")
def anvil_run() -> Iterator[SuiteRun]:
    """One run of the EVM part of the suite against anvil, while its chain grows."""
    with running_anvil() as url, live_chain(url):
        yield run_suite(None, ["--pyargs", "conformance.suite.rpc"], "--evm-rpc-url", url, "--api", "evm")


def test_no_standard_method_rule_fails_against_anvil(anvil_run: SuiteRun) -> None:
    failed = [o for o in anvil_run.failures() if any(rule.startswith("RPC-ETH-") for rule in o.rules)]
    assert failed == [], "\n\n".join(f"{o.nodeid}\n{o.message}" for o in failed)
    ran = [o for o in anvil_run.outcomes.values() if any(rule.startswith("RPC-ETH-") for rule in o.rules)]
    assert ran and all(o.outcome == "passed" for o in ran), [(o.nodeid, o.outcome) for o in ran]


def test_each_extra_method_is_reported_once_as_not_served(anvil_run: SuiteRun) -> None:
    for method in EXTRAS:
        reports = [o for o in anvil_run.failures() if f"method not served: {method}" in o.message]
        assert len(reports) == 1, (method, [o.nodeid for o in reports])
        assert reports[0].kind == "violation" and SERVED_RULES[method] in reports[0].rules
    assert anvil_run.exit_code == 1


def test_nothing_else_fails_and_the_extras_other_tests_skip(anvil_run: SuiteRun) -> None:
    reported = {SERVED_RULES[method] for method in EXTRAS}
    others = [o for o in anvil_run.failures() if not set(o.rules) & reported]
    assert others == [], "\n\n".join(f"{o.nodeid}\n{o.message}" for o in others)
    catalogue = load_catalogue()
    extras_only = [o for o in anvil_run.outcomes.values() if o.rules and not set(o.rules) & reported
                   and all(set(catalogue[rule].applies_to) & set(EXTRAS) for rule in o.rules)]
    assert extras_only and all(o.outcome == "skipped" for o in extras_only), \
        [(o.nodeid, o.outcome) for o in extras_only if o.outcome != "skipped"]


def test_an_evm_rpc_url_alone_tests_the_evm_api_and_starts_no_reference(tmp_path: Path) -> None:
    target = config.resolve({"evm_rpc_url": "http://127.0.0.1:8545/"}, env={}, cwd=tmp_path)
    assert (target.apis, target.reference, target.evm_rpc_url) == (("evm",), False, "http://127.0.0.1:8545")
    with pytest.raises(ConfigError, match="--evm-rpc-url"):
        config.resolve({"evm_rpc_url": "127.0.0.1:8545"}, env={}, cwd=tmp_path)
    with pytest.raises(ConfigError, match="--api validators"):
        config.resolve({"evm_rpc_url": "http://127.0.0.1:8545", "api": "evm,validators"}, env={}, cwd=tmp_path)
