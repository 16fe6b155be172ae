"""Fixtures of the EVM chain tests: a recent block with transactions and addresses that appear in it."""
from __future__ import annotations

import pytest

from conformance.checks.eth import busy_block, peek
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.session import Endpoints
from conformance.workers import computed_once_per_run


@pytest.fixture(scope="session")
def block_with_transactions(evm: JsonRpcClient) -> int:
    """A recent block, with transactions when one of the last few has them (read once, by number thereafter)."""
    found = computed_once_per_run("a busy block", evm.url, lambda: busy_block(evm))
    if found is None:
        pytest.skip("eth_blockNumber gives no hex block number to start from")
    return found


@pytest.fixture(scope="session")
def addresses(evm: JsonRpcClient, block_with_transactions: int, endpoints: Endpoints) -> list[str]:
    """Accounts the chain knows: senders and recipients of a recent block, its miner, and --sample evm_address."""
    block = computed_once_per_run("a busy block's transactions", (evm.url, block_with_transactions),
                                  lambda: peek(evm, "eth_getBlockByNumber", [hex(block_with_transactions), True]))
    found = [endpoints.sample("evm_address")]
    if isinstance(block, dict):
        txs = [tx for tx in block.get("transactions") or [] if isinstance(tx, dict)]
        found += [tx.get("from") for tx in txs[:1]] + [tx.get("to") for tx in txs[:1]] + [block.get("miner")]
    picked = [a for a in dict.fromkeys(found) if isinstance(a, str) and len(a) == 42]
    if not picked:
        pytest.skip("no address to ask about: pass --sample evm_address=0x…")
    return picked

