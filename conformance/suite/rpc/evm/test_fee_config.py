"""eth_feeConfig: the fee config and lastChangedAt, at the latest block, a block number and a block hash."""
from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import result_of
from conformance.checks.members import check_member, check_members, properties
from conformance.checks.shapes import schema_errors
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
def test_fee_config_at_block_hash(evm: JsonRpcClient, sample) -> None:  # type: ignore[no-untyped-def]
    """eth_feeConfig answers with the hash of an existing block (the genesis block's)."""
    fee_config(evm, [genesis_hash(evm) or sample("evm_block_hash")], "RPC-EVM-006")


@pytest.mark.rule("RPC-EVM-007")
def test_fee_config_default_is_latest(evm: JsonRpcClient) -> None:
    """eth_feeConfig without a block gives the same result as with "latest"."""
    before = result_of(evm.call("eth_feeConfig", []), "RPC-EVM-007", "eth_feeConfig without a block")
    exchange = evm.call("eth_feeConfig", ["latest"])
    latest = result_of(exchange, "RPC-EVM-007", "eth_feeConfig latest")
    after = result_of(evm.call("eth_feeConfig", []), "RPC-EVM-007", "eth_feeConfig without a block")
    # A fee change between the reads moves both answers alike; only a "latest" unlike both is a violation.
    check(latest in (before, after), "RPC-EVM-007", 'eth_feeConfig without a block differs from "latest"',
          expected=f"the result without a block: {before}", received=latest, exchange=exchange)


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
