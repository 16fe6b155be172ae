"""Standard Ethereum methods of the EVM chain RPC answer in the shapes of the Ethereum JSON-RPC standard."""
from __future__ import annotations

import pytest

from conformance.checks import check, independently
from conformance.checks.eth import check_fee_history_lengths, eth_call, get_block, number
from conformance.clients.jsonrpc import JsonRpcClient

IDENTITY = "0x0000000000000000000000000000000000000004"
PERCENTILES = [10, 50, 90]


@pytest.mark.rule("RPC-ETH-001")
def test_chain_id(evm: JsonRpcClient) -> None:
    """eth_chainId returns the chain ID as a hex quantity."""
    eth_call(evm, "eth_chainId", [], "RPC-ETH-001")


@pytest.mark.rule("RPC-ETH-002")
def test_block_number(evm: JsonRpcClient) -> None:
    """eth_blockNumber returns the head block number as a hex quantity."""
    eth_call(evm, "eth_blockNumber", [], "RPC-ETH-002")


@pytest.mark.rule("RPC-ETH-009", "RPC-ETH-010", "RPC-ETH-011")
@pytest.mark.parametrize("block", ["latest", "number", "hash"])
def test_account_state(evm: JsonRpcClient, addresses: list[str], block_with_transactions: int, block: str) -> None:
    """eth_getBalance and eth_getTransactionCount give hex quantities, eth_getCode hex data, at any block form."""
    ref = {"latest": "latest", "number": hex(block_with_transactions)}.get(block)
    if ref is None:
        found, _ = get_block(evm, "number", hex(block_with_transactions), full=False, rule_id="RPC-ETH-004")
        if found is None:
            pytest.skip(f"block {block_with_transactions} is no longer served")
        ref = found["hash"]
    for address in addresses:
        for method, rule in (("eth_getBalance", "RPC-ETH-009"), ("eth_getTransactionCount", "RPC-ETH-010"),
                             ("eth_getCode", "RPC-ETH-011")):
            with independently():  # three methods, three rules: each answer is decided on its own
                eth_call(evm, method, [address, ref], rule)


@pytest.mark.rule("RPC-ETH-012")
def test_gas_price(evm: JsonRpcClient) -> None:
    """eth_gasPrice returns the gas price as a hex quantity."""
    eth_call(evm, "eth_gasPrice", [], "RPC-ETH-012")


@pytest.mark.rule("RPC-ETH-013", "RPC-ETH-014")
@pytest.mark.parametrize("percentiles", [PERCENTILES, []], ids=["rewards", "no-rewards"])
def test_fee_history(evm: JsonRpcClient, percentiles: list[float]) -> None:
    """eth_feeHistory of the last 4 blocks gives per-block ratios and rewards, and one base fee more."""
    # rewardPercentiles is required (execution-apis): "no rewards" is the empty list, not the parameter left out.
    result, exchange = eth_call(evm, "eth_feeHistory", ["0x4", "latest", percentiles], "RPC-ETH-013")
    check_fee_history_lengths(result, block_count=4, percentiles=percentiles, exchange=exchange)


@pytest.mark.rule("RPC-ETH-013", "RPC-ETH-014")
def test_fee_history_at_a_block_number(evm: JsonRpcClient, block_with_transactions: int) -> None:
    """eth_feeHistory ending at a block number starts at most blockCount - 1 blocks before it."""
    result, exchange = eth_call(evm, "eth_feeHistory", ["0x2", hex(block_with_transactions), PERCENTILES],
                                "RPC-ETH-013")
    check_fee_history_lengths(result, block_count=2, percentiles=PERCENTILES, exchange=exchange)
    oldest, blocks = number(result["oldestBlock"]), len(result["gasUsedRatio"])
    check(oldest + blocks - 1 == block_with_transactions, "RPC-ETH-014",
          "eth_feeHistory does not end at the newest block asked for",
          expected=f"oldestBlock + {blocks} - 1 = {block_with_transactions}", received=f"oldestBlock {oldest}",
          exchange=exchange)


@pytest.mark.rule("RPC-ETH-015")
@pytest.mark.parametrize("data", ["0x", "0x00ff10"], ids=["empty", "bytes"])
def test_call_returns_the_return_data(evm: JsonRpcClient, data: str) -> None:
    """eth_call of the identity precompile returns its input as hex data."""
    result, exchange = eth_call(evm, "eth_call", [{"to": IDENTITY, "data": data}, "latest"], "RPC-ETH-015")
    check(result == data, "RPC-ETH-015", "eth_call does not return the return data of the call",
          expected=f"{data} (the identity precompile returns its input)", received=result, exchange=exchange)


@pytest.mark.rule("RPC-ETH-016")
def test_syncing(evm: JsonRpcClient) -> None:
    """eth_syncing returns false or a sync status object."""
    eth_call(evm, "eth_syncing", [], "RPC-ETH-016")


@pytest.mark.rule("RPC-ETH-017")
def test_net_version(evm: JsonRpcClient) -> None:
    """net_version returns the network ID as a decimal string."""
    eth_call(evm, "net_version", [], "RPC-ETH-017")


@pytest.mark.rule("RPC-ETH-018")
def test_client_version(evm: JsonRpcClient) -> None:
    """web3_clientVersion returns the client version as a string."""
    eth_call(evm, "web3_clientVersion", [], "RPC-ETH-018")
