"""Blocks agree with each other: by number and by hash, hashes and full transactions, parent links, a rising head.

Each check reads the head once and then names blocks by number or hash, so a chain that grows meanwhile never
makes one fail.
"""
from __future__ import annotations

import pytest

from conformance.checks import check, held
from conformance.checks.envelope import is_error, result_of
from conformance.checks.eth import (check_full_transactions, eth_call, for_want_of_data, get_block, head, number,
                                    same_block)
from conformance.clients.jsonrpc import JsonRpcClient

BEYOND = 1_000_000


@pytest.mark.rule("RPC-ETH-003")
def test_block_number_never_goes_backwards(evm: JsonRpcClient) -> None:
    """eth_blockNumber, called several times in a row, never gives a lower number than before."""
    seen: list[int] = []
    for _ in range(5):
        result, exchange = eth_call(evm, "eth_blockNumber", [], "RPC-ETH-002")
        earlier = max(seen, default=0)
        seen.append(number(result))
        check(seen[-1] >= earlier, "RPC-ETH-003", "eth_blockNumber went backwards", expected=f"at least {earlier}",
              received=f"numbers in call order: {seen}", exchange=exchange)


@pytest.mark.rule("RPC-ETH-004", "RPC-ETH-007")
@pytest.mark.parametrize("which", ["genesis", "head", "middle"])
def test_block_by_number(evm: JsonRpcClient, which: str) -> None:
    """eth_getBlockByNumber gives the block of that number, with the standard members and transaction hashes."""
    top = head(evm)
    wanted = {"genesis": 0, "head": top, "middle": top // 2}[which]
    block, exchange = get_block(evm, "number", hex(wanted), full=False, rule_id="RPC-ETH-004")
    check(block is not None, "RPC-ETH-007", f"eth_getBlockByNumber gives null for block {wanted}, at or below "
          "the head", expected=f"block {wanted}", received=None, exchange=exchange)
    assert block is not None
    check(number(block["number"]) == wanted, "RPC-ETH-007", "eth_getBlockByNumber gives another block",
          expected=f"number {hex(wanted)}", received=f"number {block['number']}", exchange=exchange)


@pytest.mark.rule("RPC-ETH-004")
def test_latest_block(evm: JsonRpcClient) -> None:
    """eth_getBlockByNumber "latest" gives a block with the standard members."""
    block, exchange = get_block(evm, "number", "latest", full=False, rule_id="RPC-ETH-004")
    check(block is not None, "RPC-ETH-004", 'eth_getBlockByNumber "latest" gives null', expected="the head block",
          received=None, exchange=exchange)


@pytest.mark.rule("RPC-ETH-005")
def test_full_transactions_are_the_hashed_ones(evm: JsonRpcClient, block_with_transactions: int) -> None:
    """With full transactions, a block lists objects whose hashes are the hashes it lists without them."""
    ref = hex(block_with_transactions)
    # The header's members are RPC-ETH-004's; the transaction list, as hashes and as objects, is this rule's.
    hashed, _ = get_block(evm, "number", ref, full=False, rule_id="RPC-ETH-004", hashes_rule="RPC-ETH-005")
    full, exchange = get_block(evm, "number", ref, full=True, rule_id="RPC-ETH-004")
    if hashed is None or full is None:
        pytest.skip(f"block {block_with_transactions} is no longer served")
    check_full_transactions(full, hashed["transactions"], exchange=exchange)


@pytest.mark.rule("RPC-ETH-006")
@pytest.mark.parametrize("full", [False, True], ids=["hashes", "full"])
def test_block_by_hash_is_the_block_by_number(evm: JsonRpcClient, block_with_transactions: int, full: bool) -> None:
    """eth_getBlockByHash of a block's hash gives the block eth_getBlockByNumber gave for its number."""
    by_number, _ = get_block(evm, "number", hex(block_with_transactions), full=full, rule_id="RPC-ETH-006")
    if by_number is None:
        pytest.skip(f"block {block_with_transactions} is no longer served")
    by_hash, exchange = get_block(evm, "hash", by_number["hash"], full=full, rule_id="RPC-ETH-006",
                                  hashes_rule="RPC-ETH-006")
    check(by_hash is not None, "RPC-ETH-006", "eth_getBlockByHash gives null for the hash of a served block",
          expected=f"block {by_number['number']}", received=None, exchange=exchange)
    assert by_hash is not None
    same_block("RPC-ETH-006", by_number, by_hash, what="the block by number and the block by hash",
               exchange=exchange)


@pytest.mark.rule("RPC-ETH-008")
def test_parent_hash_is_the_previous_block(evm: JsonRpcClient, block_with_transactions: int) -> None:
    """A block's parentHash is the hash of the block with the number before it."""
    child_number = max(block_with_transactions, 1)
    child, exchange = get_block(evm, "number", hex(child_number), full=False, rule_id="RPC-ETH-004")
    parent, _ = get_block(evm, "number", hex(child_number - 1), full=False, rule_id="RPC-ETH-004")
    if child is None or parent is None:
        pytest.skip(for_want_of_data(f"blocks {child_number - 1} and {child_number} are not both served"))
    check(child["parentHash"] == parent["hash"], "RPC-ETH-008", "a block's parentHash is not its parent's hash",
          expected=f"parentHash {parent['hash']} (block {child_number - 1})",
          received=f"parentHash {child['parentHash']}", exchange=exchange)


@pytest.mark.rule("RPC-ETH-021")
@pytest.mark.parametrize("beyond", [1, BEYOND], ids=["head+1", "head+10^6"])
def test_block_beyond_the_head_is_not_served(evm: JsonRpcClient, beyond: int) -> None:
    """eth_getBlockByNumber for the number right after the head, or far beyond it, gives null (or an error), never
    a block: only the block of that number, once the chain has reached it, may come back."""
    top = head(evm)
    wanted = hex(top + beyond)
    exchange = evm.call("eth_getBlockByNumber", [wanted, False])
    if is_error(exchange):
        return  # some nodes refuse blocks they have not accepted yet; either way no block is invented
    block = result_of(exchange, "RPC-ETH-021", f"eth_getBlockByNumber [{wanted!r}, false]")
    if block is None:
        held("RPC-ETH-021")
        return
    # A chain that advanced meanwhile may have produced that very block: then it is served rightly.
    reached = isinstance(block, dict) and block.get("number") == wanted and head(evm) >= top + beyond
    if not reached and isinstance(block, dict) and block.get("number") != wanted:
        at_head, _ = get_block(evm, "number", hex(top), full=False, rule_id="RPC-ETH-004")
        if at_head is None or at_head.get("number") != hex(top):
            pytest.skip("eth_getBlockByNumber answers other blocks than the numbers asked (RPC-ETH-007 decides)")
    check(reached, "RPC-ETH-021", "eth_getBlockByNumber gives a block beyond the head",
          expected=f"null (the head was block {top})", received=block, exchange=exchange)
