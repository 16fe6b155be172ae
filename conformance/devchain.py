"""`conformance seed-dev-chain URL`: gives a fresh development chain (anvil, hardhat, ganache: nodes whose accounts
are unlocked) something to read. A chain at block 0 has no transaction, receipt or log, and the tests that read
them skip; a few transfers and a contract that logs a Transfer on every call give each of them an object.

This writes to the chain, so it is a command of its own, never part of a run (runs are read-only)."""
from __future__ import annotations

import time
from typing import Any

import requests

from conformance.errors import ConfigError, SuiteError, TargetUnreachable

#: The Transfer(address,address,uint256) event's topic.
TRANSFER = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
#: Runtime code that logs a Transfer from the caller to the caller of amount 1 on every call.
LOGGER_RUNTIME = "6001600052" + "3333" + "7f" + TRANSFER + "60206000a300"
#: Creation code that returns LOGGER_RUNTIME (46 bytes, copied from offset 12).
LOGGER_DEPLOYMENT = "0x602e600c600039602e6000f3" + LOGGER_RUNTIME


def rpc(url: str, method: str, params: list[Any], timeout: float = 10.0) -> Any:
    """The result of one JSON-RPC call; an error answer raises SuiteError with the node's message."""
    try:
        reply = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                              timeout=timeout)
    except requests.RequestException as exc:
        raise TargetUnreachable(f"{url} did not answer {method} ({type(exc).__name__})") from None
    try:
        body = reply.json()
    except ValueError:
        raise SuiteError(f"{url} answered {method} with what is not JSON (HTTP {reply.status_code})") from None
    if not isinstance(body, dict):
        raise SuiteError(f"{url} answered {method} with what is not a JSON-RPC response")
    if "error" in body:
        raise SuiteError(f"{method}: {body['error']}")
    return body.get("result")


def wait_for_receipt(url: str, transaction: str, within: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        receipt = rpc(url, "eth_getTransactionReceipt", [transaction])
        if receipt:
            return dict(receipt)
        if time.monotonic() > deadline:
            raise SuiteError(f"no receipt for {transaction} within {within} s: does the node mine transactions?")
        time.sleep(0.05)


def seed(url: str) -> str:
    """A few transfers between the node's first two unlocked accounts and a contract that logs a Transfer, called
    twice; returns the contract's address."""
    accounts = rpc(url, "eth_accounts", [])
    if not isinstance(accounts, list) or len(accounts) < 2:
        raise ConfigError(f"{url} unlocks {len(accounts) if isinstance(accounts, list) else 'no'} accounts; "
                          "seeding needs two (a development node: anvil, hardhat, ganache)")
    first, second = accounts[:2]
    for amount in range(3):
        rpc(url, "eth_sendTransaction", [{"from": first, "to": second, "value": hex(10**18 + amount)}])
    sent = rpc(url, "eth_sendTransaction", [{"from": first, "data": LOGGER_DEPLOYMENT, "gas": hex(200_000)}])
    contract = wait_for_receipt(url, sent)["contractAddress"]
    for _ in range(2):
        rpc(url, "eth_sendTransaction", [{"from": second, "to": contract, "gas": hex(100_000)}])
    return str(contract)


def main(url: str) -> int:
    contract = seed(url)
    height = int(rpc(url, "eth_blockNumber", []), 16)
    print(f"conformance: seeded {url}: 3 transfers, a contract at {contract} that logs a Transfer, called twice; "
          f"the chain is at block {height}")
    return 0
