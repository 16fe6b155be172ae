"""Faults that break the rules of the standard Ethereum methods (RPC-ETH-*, specs/rules/rpc.yaml)."""
from __future__ import annotations

import itertools
from typing import Any

from conformance.reference.calls import RpcCall
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RpcProceed
from conformance.reference.faults.rpc_shared import _Result, _args, _block_arg, _int


class _Blocks(_Result):
    """Rewrites every block eth_getBlockByNumber and eth_getBlockByHash return."""

    methods = ("eth_getBlockByNumber", "eth_getBlockByHash")

    def patch(self, result: Any, call: RpcCall) -> Any:
        return self.block(result, call) if isinstance(result, dict) else result

    def block(self, block: dict, call: RpcCall) -> dict:
        return block


def _hex_param(value: Any) -> int | None:
    if isinstance(value, str) and value.startswith("0x") and len(value) < 66:
        try:
            return int(value, 16)
        except ValueError:
            return None
    return None


@register
class EthChainIdAsNumber(_Result):
    """eth_chainId returns the chain ID as a JSON number instead of a hex quantity."""

    breaks = ("RPC-ETH-001",)
    methods = ("eth_chainId",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return int(result, 16)


@register
class EthBlockNumberZeroPadded(_Result):
    """eth_blockNumber pads the head number with leading zeros to 16 hex digits."""

    breaks = ("RPC-ETH-002",)
    also = ("RPC-ETH-003", "RPC-ETH-004", "RPC-ETH-007", "RPC-ETH-021")
    methods = ("eth_blockNumber",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return f"0x{int(result, 16):016x}"


@register
class EthBlockNumberGoesBackwards(_Result):
    """Every other eth_blockNumber answers three blocks below the head, as a badly balanced pool of nodes."""

    breaks = ("RPC-ETH-003",)
    methods = ("eth_blockNumber",)

    def __init__(self) -> None:
        self._calls = itertools.count()

    def patch(self, result: Any, call: RpcCall) -> Any:
        return hex(max(0, int(result, 16) - 3)) if next(self._calls) % 2 else result


@register
class EthBlockWithoutStateRoot(_Blocks):
    """Blocks leave out stateRoot."""

    breaks = ("RPC-ETH-004",)
    also = ("RPC-ETH-006", "RPC-ETH-008", "RPC-ETH-009", "RPC-ETH-010", "RPC-ETH-011", "RPC-ETH-019",
            "RPC-ETH-020")

    def block(self, block: dict, call: RpcCall) -> dict:
        block.pop("stateRoot", None)
        return block


@register
class EthFullTransactionsAsHashes(_Blocks):
    """eth_getBlockByNumber ignores the full-transactions flag and always lists hashes."""

    breaks = ("RPC-ETH-005",)
    also = ("RPC-ETH-006",)

    def block(self, block: dict, call: RpcCall) -> dict:
        block["transactions"] = [tx["hash"] if isinstance(tx, dict) else tx for tx in block["transactions"]]
        return block


@register
class EthBlockByHashReturnsParent(Fault):
    """eth_getBlockByHash returns the parent of the block asked for."""

    breaks = ("RPC-ETH-006",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method == "eth_getBlockByHash" and reply and isinstance(reply.get("result"), dict):
            parent = reply["result"]["parentHash"]
            if parent != "0x" + "00" * 32:
                return proceed(call.with_(params=[parent] + _args(call)[1:]))
        return reply


@register
class EthBlockByNumberOffByOne(Fault):
    """eth_getBlockByNumber with a block number returns the block before it."""

    breaks = ("RPC-ETH-007",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        n = _hex_param(_block_arg(call)) if call.method == "eth_getBlockByNumber" else None
        if n:
            call = call.with_(params=[hex(n - 1)] + _args(call)[1:])
        return proceed(call)


@register
class EthParentHashSkipsABlock(Fault):
    """A block's parentHash is the hash of its grandparent."""

    breaks = ("RPC-ETH-008",)
    also = ("RPC-ETH-006",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method in _Blocks.methods and reply and isinstance(reply.get("result"), dict):
            parent = proceed(call.with_(method="eth_getBlockByHash", params=[reply["result"]["parentHash"], False]))
            if parent and isinstance(parent.get("result"), dict):
                reply = {**reply, "result": {**reply["result"], "parentHash": parent["result"]["parentHash"]}}
        return reply


@register
class EthBalanceAsDecimal(_Result):
    """eth_getBalance returns the balance as a decimal string."""

    breaks = ("RPC-ETH-009",)
    methods = ("eth_getBalance",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return str(int(result, 16))


@register
class EthTransactionCountAsNumber(_Result):
    """eth_getTransactionCount returns the count as a JSON number."""

    breaks = ("RPC-ETH-010",)
    methods = ("eth_getTransactionCount",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return int(result, 16)


@register
class EthCodeWithoutPrefix(_Result):
    """eth_getCode returns the code without the 0x prefix."""

    breaks = ("RPC-ETH-011",)
    methods = ("eth_getCode",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return result[2:]


@register
class EthGasPriceAsNumber(_Result):
    """eth_gasPrice returns the gas price as a JSON number."""

    breaks = ("RPC-ETH-012",)
    methods = ("eth_gasPrice",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return int(result, 16)


@register
class EthFeeHistoryOldestBlockAsNumber(_Result):
    """eth_feeHistory returns oldestBlock as a JSON number."""

    breaks = ("RPC-ETH-013",)
    also = ("RPC-ETH-014",)
    methods = ("eth_feeHistory",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["oldestBlock"] = int(result["oldestBlock"], 16)
        return result


@register
class EthFeeHistoryWithoutNextBaseFee(_Result):
    """eth_feeHistory leaves out the base fee of the block after the range."""

    breaks = ("RPC-ETH-014",)
    methods = ("eth_feeHistory",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["baseFeePerGas"] = result["baseFeePerGas"][:-1]
        return result


@register
class EthCallResultPadded(_Result):
    """eth_call right-pads the return data with zeros to whole 32-byte words."""

    breaks = ("RPC-ETH-015",)
    methods = ("eth_call",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        digits = result[2:]
        return "0x" + digits + "0" * (-len(digits) % 64)


@register
class EthSyncingAsTrue(_Result):
    """eth_syncing returns true instead of false or a sync status object."""

    breaks = ("RPC-ETH-016",)
    methods = ("eth_syncing",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return True


@register
class EthNetVersionAsHex(_Result):
    """net_version returns the network ID as a hex quantity instead of a decimal string."""

    breaks = ("RPC-ETH-017",)
    methods = ("net_version",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return hex(int(result))


@register
class EthClientVersionAsObject(_Result):
    """web3_clientVersion returns an object of name and version instead of a string."""

    breaks = ("RPC-ETH-018",)
    methods = ("web3_clientVersion",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        name, _, version = result.partition("/")
        return {"name": name, "version": version}


@register
class EthLogIndexAsNumber(_Result):
    """eth_getLogs returns each log's logIndex as a JSON number."""

    breaks = ("RPC-ETH-019",)
    methods = ("eth_getLogs",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        for log in result:
            log["logIndex"] = int(log["logIndex"], 16)
        return result


@register
class EthLogsFromBlockOffByOne(Fault):
    """eth_getLogs starts its range one block before fromBlock."""

    breaks = ("RPC-ETH-020",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        query = _block_arg(call) if call.method == "eth_getLogs" else None
        if isinstance(query, dict):
            first = _hex_param(query.get("fromBlock"))
            if first:
                call = call.with_(params=[{**query, "fromBlock": hex(first - 1)}])
        return proceed(call)


@register
class EthFutureBlockIsHead(Fault):
    """eth_getBlockByNumber for a number beyond the head returns the head block instead of null."""

    breaks = ("RPC-ETH-021",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method == "eth_getBlockByNumber" and reply and "result" in reply and reply["result"] is None:
            return proceed(call.with_(params=["latest"] + _args(call)[1:]))
        return reply


# --- Relations: each answer well-formed, what they mean together wrong ---

class _AccountAtLatest(Fault):
    """`method` ignores its block parameter and answers for the latest block."""

    method = ""

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        args = _args(call)
        if call.method == self.method and len(args) > 1:
            return proceed(call.with_(params=[args[0], "latest"]))
        return proceed(call)


@register
class EthTransactionCountBlockIgnored(_AccountAtLatest):
    """eth_getTransactionCount ignores its block parameter and counts at the latest block."""

    breaks = ("RPC-ETH-022",)
    method = "eth_getTransactionCount"


@register
class EthBalanceBlockIgnored(_AccountAtLatest):
    """eth_getBalance ignores its block parameter and gives the balance at the latest block."""

    breaks = ("RPC-ETH-023",)
    method = "eth_getBalance"


@register
class EthLogsToBlockExclusive(_Result):
    """eth_getLogs reads toBlock as exclusive: the logs of a range's last block are left out."""

    breaks = ("RPC-ETH-024",)
    methods = ("eth_getLogs",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        query = _args(call)[0] if _args(call) and isinstance(_args(call)[0], dict) else {}
        last = _int(query.get("toBlock"))
        if last is None or not isinstance(result, list):
            return result
        return [log for log in result if not (isinstance(log, dict) and _int(log.get("blockNumber")) == last)]
