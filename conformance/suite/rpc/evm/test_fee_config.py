"""eth_feeConfig: the fee config and lastChangedAt, at the latest block, a block number and a block hash; and the
config a block selects is that block's."""
from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import is_error, result_of
from conformance.checks.eth import peek
from conformance.checks.evm_extras import check_fee_config_at, fee_config_read
from conformance.checks.members import check_member, check_members, properties
from conformance.checks.shapes import schema_errors
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

FEE_MEMBERS = tuple(properties("evm", "FeeConfig"))


def fee_config(evm: JsonRpcClient, params: list[Any], rule_id: str) -> dict[str, Any]:
    """The eth_feeConfig result for `params`, checked member by member."""
    exchange = evm.call("eth_feeConfig", params)
    result = result_of(exchange, rule_id, f"eth_feeConfig {params}")
    with independently():  # feeConfig and lastChangedAt are decided each whatever the other holds
        check_member("RPC-EVM-001", result, "feeConfig", {"type": "object"}, api="evm", what="eth_feeConfig result",
                     exchange=exchange)
        check_members("RPC-EVM-001", result["feeConfig"], FEE_MEMBERS, "evm", "FeeConfig", what="feeConfig",
                      exchange=exchange)
    check_member("RPC-EVM-002", result, "lastChangedAt", properties("evm", "FeeConfigResult")["lastChangedAt"],
                 api="evm", what="eth_feeConfig result", exchange=exchange)
    return result


@pytest.mark.rule("RPC-EVM-001", "RPC-EVM-002", "RPC-EVM-003")
def test_fee_config_without_block(evm: JsonRpcClient) -> None:
    """eth_feeConfig without a block answers with feeConfig (eight integers) and an integer lastChangedAt."""
    fee_config(evm, [], "RPC-EVM-003")


@pytest.mark.rule("RPC-EVM-001", "RPC-EVM-002", "RPC-EVM-004")
def test_fee_config_at_latest(evm: JsonRpcClient) -> None:
    """eth_feeConfig answers with the block parameter "latest"."""
    fee_config(evm, ["latest"], "RPC-EVM-004")


@pytest.mark.rule("RPC-EVM-005")
@pytest.mark.parametrize("block", ["genesis", "head"])
def test_fee_config_at_block_number(evm: JsonRpcClient, block: str) -> None:
    """eth_feeConfig answers with the number of an existing block (the genesis block, the head block)."""
    number = "0x0" if block == "genesis" else head_number(evm)
    if number is None:
        pytest.skip("eth_blockNumber gives no hex block number to ask for")
    fee_config(evm, [number], "RPC-EVM-005")


@pytest.mark.rule("RPC-EVM-006")
def test_fee_config_at_block_hash(evm: JsonRpcClient, sample: Callable[[str], str]) -> None:
    """eth_feeConfig answers with the hash of an existing block (the genesis block's)."""
    fee_config(evm, [genesis_hash(evm) or sample("evm_block_hash")], "RPC-EVM-006")


@pytest.mark.rule("RPC-EVM-007")
def test_fee_config_default_is_latest(evm: JsonRpcClient) -> None:
    """eth_feeConfig without a block gives the same result as with "latest"."""
    # A refusal of either form is RPC-EVM-003's or RPC-EVM-004's: only two answers can be compared.
    before = answered(evm.call("eth_feeConfig", []), "eth_feeConfig without a block (RPC-EVM-003)")
    exchange = evm.call("eth_feeConfig", ["latest"])
    latest = answered(exchange, 'eth_feeConfig "latest" (RPC-EVM-004)')
    after = answered(evm.call("eth_feeConfig", []), "eth_feeConfig without a block (RPC-EVM-003)")
    # A fee change between the reads moves both answers alike; only a "latest" unlike both is a violation.
    check(latest in (before, after), "RPC-EVM-007", 'eth_feeConfig without a block differs from "latest"',
          expected=f"the result without a block: {before}", received=latest, exchange=exchange)


#: The blocks eth_feeConfig is asked about, against the block its latest answer says the fee config last changed at
#: (lastChangedAt): one before it (an earlier config may be in force there), exactly at it, and the head.
FEE_BLOCKS = ["before-last-change", "at-last-change", "head"]


def latest_fee_config(evm: JsonRpcClient) -> dict[str, Any]:
    """The eth_feeConfig answer for "latest", in its documented form (its tests decide it; here it is read)."""
    found = fee_config_read(evm.call("eth_feeConfig", ["latest"]))
    if found is None:
        pytest.skip('eth_feeConfig "latest" gives no fee config in the documented form (RPC-EVM-001 to 004)')
    return found


def fee_config_at(evm: JsonRpcClient, block: str, *, current: bool, rule_id: str) -> tuple[dict[str, Any], Exchange]:
    """The eth_feeConfig answer at a block number or hash. A node may keep no state for old blocks: a refusal there
    leaves the relation undecided; at the head it fails `rule_id`, the rule that such a block is answered."""
    exchange = evm.call("eth_feeConfig", [block])
    found = fee_config_read(exchange)
    if found is None and is_error(exchange) and not current:
        pytest.skip(f"eth_feeConfig at the past block {block} is refused (a node may keep no state that old)")
    if found is None:
        result_of(exchange, rule_id, f"eth_feeConfig [{block!r}]")
        pytest.skip(f"eth_feeConfig [{block!r}] gives no fee config in the documented form (RPC-EVM-001, 002)")
    return found, exchange


@pytest.mark.rule("RPC-EVM-036")
@pytest.mark.parametrize("where", FEE_BLOCKS)
def test_fee_config_at_a_block_is_that_blocks(evm: JsonRpcClient, where: str) -> None:
    """eth_feeConfig at a block, by number and by hash alike, gives the fee config in force at that block: the
    latest one from the last change on, one that changed no later than the block before it."""
    latest = latest_fee_config(evm)
    top = head_number(evm)
    if top is None:
        pytest.skip("eth_blockNumber gives no hex block number")
    block = {"before-last-change": latest["lastChangedAt"] - 1, "at-last-change": latest["lastChangedAt"],
             "head": int(top, 16)}[where]
    if block < 0:
        pytest.skip("the fee config never changed (lastChangedAt 0): there is no block before a change")
    if block > int(top, 16):
        pytest.skip(f"lastChangedAt {block} is beyond the head {int(top, 16)}")
    current = where == "head"
    by_number, exchange = fee_config_at(evm, hex(block), current=current, rule_id="RPC-EVM-005")
    found = peek(evm, "eth_getBlockByNumber", [hex(block), False])
    # The hash of the block of that number: a block of another number is RPC-ETH-007's to decide.
    block_hash = found.get("hash") if isinstance(found, dict) and found.get("number") == hex(block) else None
    if isinstance(block_hash, str):
        by_hash, hash_exchange = fee_config_at(evm, block_hash, current=current, rule_id="RPC-EVM-006")
        with independently():  # which block a hash names and what a block's config is are decided each
            check(by_hash == by_number, "RPC-EVM-036", f"eth_feeConfig by the hash of block {block} differs from "
                  "eth_feeConfig by its number", expected=f"the answer by number: {by_number}", received=by_hash,
                  exchange=hash_exchange)
    check_fee_config_at(block, by_number, (latest, latest_fee_config(evm)), exchange=exchange)


def answered(exchange: Exchange, what: str) -> Any:
    """The result of an answer that must be compared with another; skips when there is none."""
    if is_error(exchange) or not exchange.is_json() or not isinstance(exchange.json(), dict) \
            or "result" not in exchange.json():
        pytest.skip(f"{what} is refused: there is nothing to compare")
    return exchange.json()["result"]


def head_number(evm: JsonRpcClient) -> str | None:
    """The head block number through the standard eth_blockNumber (its shape is only observed)."""
    exchange = evm.call("eth_blockNumber", [])
    found = exchange.json().get("result") if exchange.is_json() and isinstance(exchange.json(), dict) else None
    return found if isinstance(found, str) and re.fullmatch(r"0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})", found) else None


def genesis_hash(evm: JsonRpcClient) -> str | None:
    """The genesis block hash through the standard eth_getBlockByNumber (its shape is only observed)."""
    exchange = evm.call("eth_getBlockByNumber", ["0x0", False])
    result = exchange.json().get("result") if exchange.is_json() and isinstance(exchange.json(), dict) else None
    found = result.get("hash") if isinstance(result, dict) else None
    schema = {"$ref": "#/components/schemas/BlockNumberOrHash"}
    return found if isinstance(found, str) and len(found) == 66 and not schema_errors(found, schema, api="evm") \
        else None
