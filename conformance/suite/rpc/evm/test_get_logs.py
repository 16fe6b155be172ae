"""eth_getLogs: logs in the standard shape, and only of the blocks the filter names (a range, or one block hash)."""
from __future__ import annotations

import pytest

from conformance.checks.eth import check_logs_within, eth_call, get_block
from conformance.clients.jsonrpc import JsonRpcClient

#: Small enough for the block-range limits public nodes set on eth_getLogs.
WINDOW = 32


@pytest.mark.rule("RPC-ETH-019", "RPC-ETH-020")
def test_logs_of_a_block_range(evm: JsonRpcClient, block_with_transactions: int) -> None:
    """eth_getLogs over recent blocks gives logs of those blocks only."""
    last = block_with_transactions
    first = max(0, last - WINDOW + 1)
    logs, exchange = eth_call(evm, "eth_getLogs", [{"fromBlock": hex(first), "toBlock": hex(last)}], "RPC-ETH-019")
    check_logs_within(logs, first=first, last=last, block_hash=None, exchange=exchange)


@pytest.mark.rule("RPC-ETH-019", "RPC-ETH-020")
def test_logs_of_a_block_hash(evm: JsonRpcClient, block_with_transactions: int) -> None:
    """eth_getLogs with a blockHash gives logs of that block only."""
    block, _ = get_block(evm, "number", hex(block_with_transactions), full=False, rule_id="RPC-ETH-004")
    if block is None:
        pytest.skip(f"block {block_with_transactions} is no longer served")
    logs, exchange = eth_call(evm, "eth_getLogs", [{"blockHash": block["hash"]}], "RPC-ETH-019")
    check_logs_within(logs, first=block_with_transactions, last=block_with_transactions, block_hash=block["hash"],
                      exchange=exchange)
