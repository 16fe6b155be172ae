"""Account state at a past block is the state then: a transaction of a recent block shows in its sender's count and
balance from that block on, and not in the block before (the block parameter of the Ethereum JSON-RPC standard).

The blocks are named by number once the transaction is read, so a chain that grows meanwhile never makes one fail.
A node may keep no state for old blocks: a refusal at the block before leaves the relation undecided.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from conformance.checks import independently
from conformance.checks.envelope import is_error
from conformance.checks.eth import (check_balance_moved, check_count_around, check_same_at_hash, for_want_of_data,
                                    peek, quantity_of)
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient


@dataclass(frozen=True)
class Sent:
    """A transaction of a recent block: who sent it, with which nonce, in which block, whether it cost a fee."""

    block: int
    block_hash: str
    sender: str
    nonce: int
    paid_fee: bool


@pytest.fixture
def sent(evm: JsonRpcClient, block_with_transactions: int) -> Sent:
    """The first transaction of a recent block with transactions (after the genesis block)."""
    n = block_with_transactions
    block = peek(evm, "eth_getBlockByNumber", [hex(n), True]) if n > 0 else None
    if isinstance(block, dict) and block.get("number") != hex(n):
        pytest.skip(f"eth_getBlockByNumber {hex(n)} gives another block (RPC-ETH-007 decides that)")
    txs = [tx for tx in (block.get("transactions") or []) if isinstance(tx, dict)] if isinstance(block, dict) else []
    usable = [(tx, nonce) for tx in txs if isinstance(tx.get("from"), str) and len(tx["from"]) == 42
              and (nonce := _hex(tx.get("nonce"))) is not None]
    # transactions were read from the block only when it is an object
    if not usable or not isinstance(block, dict) or not isinstance(block.get("hash"), str):
        pytest.skip(for_want_of_data(f"block {n} lists no transaction with a sender and a nonce to follow"))
    tx, nonce = usable[0]
    price = max(_hex(tx.get("gasPrice")) or 0, _hex(block.get("baseFeePerGas")) or 0)
    # A block's fee recipient gains fees in it: its balance says nothing of what it paid.
    paid = price > 0 and tx["from"].lower() != str(block.get("miner", "")).lower()
    return Sent(n, block["hash"], tx["from"], nonce, paid)


def _hex(value: object) -> int | None:
    try:
        return int(value, 16) if isinstance(value, str) and value.startswith("0x") else None
    except ValueError:
        return None


def state(evm: JsonRpcClient, method: str, sent: Sent, block: str) -> tuple[int, Exchange]:
    """`method` of the sender at `block`; skips where the node keeps no such state or answers in another form (the
    method's own rule decides that form)."""
    exchange = evm.call(method, [sent.sender, block])
    found = quantity_of(exchange)
    if found is None:
        pytest.skip(f"{method} of {sent.sender} at {block} is {'refused' if is_error(exchange) else 'no quantity'}")
    return found, exchange


@pytest.mark.rule("RPC-ETH-022")
def test_transaction_count_at_a_past_block_is_the_count_then(evm: JsonRpcClient, sent: Sent) -> None:
    """eth_getTransactionCount of a transaction's sender is at most its nonce at the block before, above it after
    its block, and the same by the block's hash as by its number."""
    before, _ = state(evm, "eth_getTransactionCount", sent, hex(sent.block - 1))
    at, exchange = state(evm, "eth_getTransactionCount", sent, hex(sent.block))
    with independently():
        check_count_around(sent.nonce, before, at, block=sent.block, sender=sent.sender, exchange=exchange)
    by_hash = evm.call("eth_getTransactionCount", [sent.sender, sent.block_hash])
    if (hashed := quantity_of(by_hash)) is not None:  # a refused hash form is RPC-ETH-010's, decided by its own test
        check_same_at_hash(at, hashed, rule_id="RPC-ETH-022",
                           method="eth_getTransactionCount", block=sent.block, exchange=by_hash)


@pytest.mark.rule("RPC-ETH-023")
def test_balance_at_a_past_block_is_the_balance_then(evm: JsonRpcClient, sent: Sent) -> None:
    """eth_getBalance of a sender that paid a fee in a block differs between the block before and that block, and
    is the same by the block's hash as by its number."""
    at, exchange = state(evm, "eth_getBalance", sent, hex(sent.block))
    by_hash = evm.call("eth_getBalance", [sent.sender, sent.block_hash])
    if (hashed := quantity_of(by_hash)) is not None:  # a refused hash form is RPC-ETH-009's, decided by its own test
        with independently():
            check_same_at_hash(at, hashed, rule_id="RPC-ETH-023",
                               method="eth_getBalance", block=sent.block, exchange=by_hash)
    if not sent.paid_fee:
        pytest.skip(f"the transaction of block {sent.block} cost its sender no fee (gas price 0, or it is the "
                    "block's fee recipient): its balance need not move")
    before, _ = state(evm, "eth_getBalance", sent, hex(sent.block - 1))
    check_balance_moved(before, at, block=sent.block, sender=sent.sender, exchange=exchange)
