"""eth_getLogs: logs in the standard shape, only of the blocks the filter names (a range, or one block hash), and
every log of each block of a range, its first and last block included."""
from __future__ import annotations

import pytest

from conformance.checks.eth import (check_logs_within, check_range_has_logs, eth_call, for_want_of_data, get_block,
                                    number, peek)
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
    # The block the hash names is the one it was read from, whichever number that was asked (RPC-ETH-007's).
    own = number(block["number"])
    check_logs_within(logs, first=own, last=own, block_hash=block["hash"], exchange=exchange)


@pytest.mark.rule("RPC-ETH-024")
def test_a_range_has_every_log_of_its_edge_blocks(evm: JsonRpcClient, block_with_transactions: int) -> None:
    """eth_getLogs from a block to the next returns every log each of the two gives by its hash: fromBlock and
    toBlock are both part of the range."""
    last = block_with_transactions
    first = max(0, last - 1)
    block_logs = {}
    for n in range(first, last + 1):
        block = peek(evm, "eth_getBlockByNumber", [hex(n), False])
        if not isinstance(block, dict) or not isinstance(block.get("hash"), str) or block.get("number") != hex(n):
            pytest.skip(f"block {n} is not served with its number and a hash (RPC-ETH-004 and 007 decide that)")
        own = peek(evm, "eth_getLogs", [{"blockHash": block["hash"]}])
        # Logs a hash filter gives of another block are RPC-ETH-020's deviation: only the block's own are wanted.
        block_logs[n] = [log for log in own or [] if isinstance(log, dict) and log.get("blockHash") == block["hash"]]
    if not any(block_logs.values()):
        pytest.skip(for_want_of_data(f"blocks {first} to {last} have no logs"))
    logs, exchange = eth_call(evm, "eth_getLogs", [{"fromBlock": hex(first), "toBlock": hex(last)}], "RPC-ETH-019")
    check_range_has_logs(logs, block_logs, first=first, last=last, exchange=exchange)
