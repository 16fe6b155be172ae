"""Standard Ethereum methods: results checked against the shapes of specs/openrpc/evm.json, and cross-checks.

The shapes are those of the Ethereum JSON-RPC standard, kept open. Cross-checks only compare what a moving chain
cannot change: blocks are named by number or hash once the head is read, never by "latest" twice.
"""
from __future__ import annotations

import json
from typing import Any
from collections.abc import Sequence

from conformance import specs
from conformance.checks import check, independently
from conformance.checks.envelope import result_of
from conformance.checks.shapes import assert_shape, component
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

#: The members of a block the standard defines: the ones a block by number and by hash must agree on.
BLOCK_MEMBERS = tuple(specs.openrpc("evm")["components"]["schemas"]["Block"]["properties"])



#: What a skip for want of chain data says: a chain at its genesis block (a fresh dev node) has nothing to read.
DEV_CHAIN_NEEDS = ("a fresh chain has nothing to read: a useful dev chain has a few blocks with transactions and "
                   "logs")


def for_want_of_data(reason: str) -> str:
    """A skip reason for chain data the target does not have yet, saying what a dev chain needs."""
    return f"{reason} ({DEV_CHAIN_NEEDS})"

def result_schema(method: str) -> dict[str, Any]:
    """The result schema of a method of the EVM chain spec."""
    return specs.rpc_method("evm", method)["result"]["schema"]


def eth_call(evm: JsonRpcClient, method: str, params: list[Any], rule_id: str) -> tuple[Any, Exchange]:
    """The result of a standard method, failing `rule_id` unless it has the method's documented shape."""
    exchange = evm.call(method, params)
    what = f"{method} {json.dumps(params, separators=(',', ':'))}"
    result = result_of(exchange, rule_id, what)
    assert_shape(rule_id, result, result_schema(method), api="evm", what=f"{method} result", exchange=exchange)
    return result, exchange


def number(quantity: str) -> int:
    """A hex quantity already checked against the Quantity shape."""
    return int(quantity, 16)


def head(evm: JsonRpcClient) -> int:
    """The head block number, as eth_blockNumber gives it (RPC-ETH-002 decides its shape)."""
    return number(eth_call(evm, "eth_blockNumber", [], "RPC-ETH-002")[0])


def get_block(evm: JsonRpcClient, by: str, ref: str, *, full: bool, rule_id: str,
              hashes_rule: str = "RPC-ETH-004") -> tuple[dict[str, Any] | None, Exchange]:
    """eth_getBlockBy{Number,Hash}: None when the node has no such block, else a block whose shape is checked.

    The header decides `rule_id`; the transaction list decides `hashes_rule` as hashes, RPC-ETH-005 as objects.
    """
    method = "eth_getBlockByHash" if by == "hash" else "eth_getBlockByNumber"
    exchange = evm.call(method, [ref, full])
    found = result_of(exchange, rule_id, f"{method} [{ref!r}, {str(full).lower()}]")
    if found is None:
        return None, exchange
    what = f"{method} [{ref!r}, {str(full).lower()}] result"
    check(isinstance(found, dict), rule_id, f"{what} is neither a block nor null", expected="a Block object or null",
          received=found, exchange=exchange)
    listed = isinstance(found.get("transactions"), list)
    with independently():  # the header and the transaction list are decided each whatever the other holds
        assert_shape(rule_id, {**found, "transactions": []} if listed else found, component("evm", "Block"), api="evm",
                     what=what, exchange=exchange)
    items, item_rule = ("Transaction", "RPC-ETH-005") if full else ("Hash32", hashes_rule)
    for position, item in enumerate(found["transactions"] if listed else ()):
        assert_shape(item_rule, item, component("evm", items), api="evm", what=f"{what}: transactions[{position}]",
                     exchange=exchange)
    return found, exchange


def same_block(rule_id: str, first: dict[str, Any], second: dict[str, Any], *, what: str,
               exchange: Exchange) -> None:
    """Fails `rule_id` when two answers for one block differ in a standard member both carry."""
    differing = [name for name in BLOCK_MEMBERS if name in first and name in second and first[name] != second[name]]
    check(not differing, rule_id, f"{what} differ", expected="the same standard members",
          received="; ".join(f"{name}: {first[name]!r} vs {second[name]!r}" for name in differing[:4]),
          exchange=exchange)


def check_full_transactions(block: dict[str, Any], hashes: list[str], *, exchange: Exchange) -> None:
    """RPC-ETH-005: the full transactions are the hashed ones, in order, each placed in this block."""
    found = [tx.get("hash") for tx in block["transactions"]]
    check(found == hashes, "RPC-ETH-005", "the full transactions are not the block's transaction hashes",
          expected=f"hashes {hashes}", received=f"hashes {found}", exchange=exchange)
    for position, tx in enumerate(block["transactions"]):
        placed = (tx["blockHash"], number(tx["blockNumber"]), number(tx["transactionIndex"]))
        wanted = (block["hash"], number(block["number"]), position)
        check(placed == wanted, "RPC-ETH-005", f"transactions[{position}] is not placed in this block",
              expected=f"blockHash, blockNumber, transactionIndex = {wanted}", received=placed, exchange=exchange)


def check_fee_history_lengths(result: dict[str, Any], *, block_count: int, percentiles: Sequence[float],
                              exchange: Exchange) -> None:
    """RPC-ETH-014: n blocks (1 to blockCount) give n gasUsedRatio, n + 1 baseFeePerGas, n rewards of each size
    (no percentiles asked for, the reward member may be left out)."""
    blocks = len(result["gasUsedRatio"])
    check(1 <= blocks <= block_count, "RPC-ETH-014", "eth_feeHistory covers an unexpected number of blocks",
          expected=f"1 to {block_count} entries in gasUsedRatio", received=f"{blocks} entries", exchange=exchange)
    check(len(result["baseFeePerGas"]) == blocks + 1, "RPC-ETH-014",
          "eth_feeHistory does not give one baseFeePerGas more than blocks (the next block's)",
          expected=f"{blocks + 1} entries in baseFeePerGas", received=f"{len(result['baseFeePerGas'])} entries",
          exchange=exchange)
    if not percentiles:
        return
    rewards = result.get("reward")
    check(isinstance(rewards, list) and len(rewards) == blocks
          and all(len(row) == len(percentiles) for row in rewards), "RPC-ETH-014",
          "eth_feeHistory does not give one reward per block with one entry per percentile",
          expected=f"{blocks} rewards of {len(percentiles)} entries", received=rewards, exchange=exchange)


def check_logs_within(logs: list[dict[str, Any]], *, first: int, last: int, block_hash: str | None,
                      exchange: Exchange) -> None:
    """RPC-ETH-020: every log lies in the blocks the filter names (a range, or one block by hash)."""
    for position, log in enumerate(logs):
        where = number(log["blockNumber"])
        check(first <= where <= last, "RPC-ETH-020", f"logs[{position}] lies outside the requested blocks",
              expected=f"blockNumber from {first} to {last}", received=f"blockNumber {where}", exchange=exchange)
        if block_hash is not None:
            check(log["blockHash"] == block_hash, "RPC-ETH-020", f"logs[{position}] belongs to another block",
                  expected=f"blockHash {block_hash}", received=f"blockHash {log['blockHash']}", exchange=exchange)


def peek(evm: JsonRpcClient, method: str, params: list[Any]) -> Any:
    """A result read without deciding anything (None when there is none): for picking what a test asks about."""
    exchange = evm.call(method, params)
    body = exchange.json() if exchange.is_json() else None
    return body.get("result") if isinstance(body, dict) else None


def busy_block(evm: JsonRpcClient, *, look_back: int = 16) -> int | None:
    """The number of the newest block with transactions among the last `look_back`, else the head's."""
    found = peek(evm, "eth_blockNumber", [])
    try:
        top = int(found, 16)
    except (TypeError, ValueError):
        return None
    for n in range(top, max(-1, top - look_back), -1):
        block = peek(evm, "eth_getBlockByNumber", [hex(n), False])
        if isinstance(block, dict) and block.get("transactions"):
            return n
    return top


# --- account state at a past block --------------------------------------------------------------------------

def quantity_of(exchange: Exchange) -> int | None:
    """A hex quantity result, or None (an error, or a result in another form: the method's shape rule decides it)."""
    body = exchange.json() if exchange.is_json() else None
    found = body.get("result") if isinstance(body, dict) and "error" not in body else None
    try:
        return int(found, 16) if isinstance(found, str) and found.startswith("0x") else None
    except ValueError:
        return None


def check_count_around(nonce: int, before: int, at: int, *, block: int, sender: str, exchange: Exchange) -> None:
    """RPC-ETH-022: a transaction of block n with nonce k was sent with its sender's count at n-1 at most k (its
    first transaction in the block has nonce equal to it), and after it the count is above k."""
    check(before <= nonce < at, "RPC-ETH-022", f"eth_getTransactionCount of {sender} around block {block} does not "
          f"count the transaction it sent there with nonce {nonce}",
          expected=f"at block {block - 1} at most {nonce}, at block {block} above {nonce}",
          received=f"at block {block - 1}: {before}, at block {block}: {at}", exchange=exchange)


def check_balance_moved(before: int, at: int, *, block: int, sender: str, exchange: Exchange) -> None:
    """RPC-ETH-023: a sender that paid a fee for a transaction of block n has another balance after n than after
    n-1 (only a transfer to it of exactly what it spent, in the same block, could hide the fee)."""
    check(before != at, "RPC-ETH-023", f"eth_getBalance of {sender} is the same at block {block - 1} and at block "
          f"{block}, although it paid for a transaction in block {block}",
          expected=f"another balance at block {block} than {before} at block {block - 1}",
          received=f"{at} at both blocks", exchange=exchange)


def check_same_at_hash(by_number: int, by_hash: int, *, rule_id: str, method: str, block: int,
                       exchange: Exchange) -> None:
    """A block named by its hash selects the same state as by its number."""
    check(by_number == by_hash, rule_id, f"{method} at the hash of block {block} differs from {method} at its number",
          expected=f"{by_number} (by number)", received=f"{by_hash} (by hash)", exchange=exchange)


# --- logs of a range ----------------------------------------------------------------------------------------

def log_key(log: Any) -> tuple[Any, ...] | None:
    """What tells one log from another: its block, transaction and position in the block."""
    if not isinstance(log, dict):
        return None
    return log.get("blockHash"), log.get("transactionHash"), log.get("logIndex")


def check_range_has_logs(logs: list[Any], block_logs: dict[int, list[Any]], *, first: int, last: int,
                         exchange: Exchange) -> None:
    """RPC-ETH-024: every log of each block of the range, as eth_getLogs by that block's hash gives it, is in the
    range's answer. Extra logs are RPC-ETH-020's to decide."""
    present = {log_key(log) for log in logs}
    for block, own in sorted(block_logs.items()):
        missing = [log_key(log) for log in own if log_key(log) not in present]
        check(not missing, "RPC-ETH-024", f"eth_getLogs from block {first} to {last} leaves out logs of block {block}",
              expected=f"the {len(own)} logs eth_getLogs gives by the hash of block {block}",
              received=f"{len(missing)} missing, e.g. (blockHash, transactionHash, logIndex) = {missing[:1]}",
              exchange=exchange)
