"""Fixtures of the EVM chain tests: a recent block with transactions and addresses that appear in it."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.eth import busy_block, peek
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.session import Endpoints


@pytest.fixture(scope="session")
def block_with_transactions(evm: JsonRpcClient, once: Any) -> int:
    """A recent block, with transactions when one of the last few has them (read once, by number thereafter)."""
    found = once(lambda: busy_block(evm), evm.url)
    if found is None:
        pytest.skip("eth_blockNumber gives no hex block number to start from")
    return found


@pytest.fixture(scope="session")
def addresses(evm: JsonRpcClient, block_with_transactions: int, endpoints: Endpoints, once: Any) -> list[str]:
    """Accounts the chain knows: senders and recipients of a recent block, its miner, and --sample evm_address."""
    block = once(lambda: peek(evm, "eth_getBlockByNumber", [hex(block_with_transactions), True]), evm.url,
                 block_with_transactions)
    found = [endpoints.sample("evm_address")]
    if isinstance(block, dict):
        txs = [tx for tx in block.get("transactions") or [] if isinstance(tx, dict)]
        found += [tx.get("from") for tx in txs[:1]] + [tx.get("to") for tx in txs[:1]] + [block.get("miner")]
    picked = [a for a in dict.fromkeys(found) if isinstance(a, str) and len(a) == 42]
    if not picked:
        pytest.skip("no address to ask about: pass --sample evm_address=0x…")
    return picked

