"""Faults that break the rules of the EVM chain's extra methods (RPC-EVM-*, specs/rules/rpc.yaml)."""
from __future__ import annotations

from typing import Any

from conformance.reference import ids
from conformance.reference.calls import RpcCall, RpcHttp
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RpcProceed
from conformance.reference.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from conformance.reference.faults.rpc_shared import (_Result, _Unserved, _all_but, _args, _block_arg, _error, _ids,
    _int, _sibling)


@register
class FeeConfigMinBaseFeeAsString(_Result):
    """eth_feeConfig returns feeConfig.minBaseFee as a decimal string."""

    breaks = ("RPC-EVM-001",)
    methods = ("eth_feeConfig",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["feeConfig"]["minBaseFee"] = str(result["feeConfig"]["minBaseFee"])
        return result


@register
class FeeConfigLastChangedAtAsHex(_Result):
    """eth_feeConfig returns lastChangedAt as a hex quantity string."""

    breaks = ("RPC-EVM-002",)
    methods = ("eth_feeConfig",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["lastChangedAt"] = hex(result["lastChangedAt"])
        return result


@register
class FeeConfigRequiresBlock(Fault):
    """eth_feeConfig refuses a call without the block parameter."""

    breaks = ("RPC-EVM-003",)
    also = ("RPC-EVM-007",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_feeConfig" and not _args(call):
            return _error(call, INVALID_PARAMS, "missing value for required argument 0")
        return proceed(call)


@register
class FeeConfigRejectsLatest(Fault):
    """eth_feeConfig refuses the block tag "latest"."""

    breaks = ("RPC-EVM-004",)
    also = ("RPC-EVM-007",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_feeConfig" and _block_arg(call) == "latest":
            return _error(call, INVALID_PARAMS, "invalid argument 0: block tags are not supported")
        return proceed(call)


@register
class FeeConfigRejectsBlockNumber(Fault):
    """eth_feeConfig refuses a block number."""

    breaks = ("RPC-EVM-005",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        blk = _block_arg(call)
        is_number = (isinstance(blk, int) and not isinstance(blk, bool)) or \
            (isinstance(blk, str) and blk.startswith("0x") and len(blk) < 66)
        if call.method == "eth_feeConfig" and is_number:
            return _error(call, INVALID_PARAMS, "invalid argument 0: hex string has length, want 64 for hash")
        return proceed(call)


@register
class FeeConfigRejectsBlockHash(Fault):
    """eth_feeConfig refuses a block hash."""

    breaks = ("RPC-EVM-006",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        blk = _block_arg(call)
        if call.method == "eth_feeConfig" and isinstance(blk, str) and len(blk) == 66:
            return _error(call, INVALID_PARAMS, "invalid argument 0: hex number > 64 bits")
        return proceed(call)


@register
class FeeConfigDefaultsToGenesis(Fault):
    """eth_feeConfig without a block parameter answers for the genesis block instead of the latest."""

    breaks = ("RPC-EVM-007",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_feeConfig" and _block_arg(call) is None:
            call = call.with_(params=[0])
        return proceed(call)


class _ChainConfig(_Result):
    methods = ("eth_getChainConfig",)


@register
class ChainIdAsHex(_ChainConfig):
    """eth_getChainConfig returns chainId as a hex quantity string."""

    breaks = ("RPC-EVM-008",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["chainId"] = hex(result["chainId"])
        return result


@register
class ChainConfigGasLimitAsString(_ChainConfig):
    """eth_getChainConfig returns feeConfig.gasLimit as a decimal string."""

    breaks = ("RPC-EVM-009",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["feeConfig"]["gasLimit"] = str(result["feeConfig"]["gasLimit"])
        return result


@register
class AllowFeeRecipientsAsString(_ChainConfig):
    """eth_getChainConfig returns allowFeeRecipients as a string."""

    breaks = ("RPC-EVM-010",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["allowFeeRecipients"] = str(result["allowFeeRecipients"]).lower()
        return result


@register
class MuirGlacierBlockNull(_ChainConfig):
    """eth_getChainConfig returns muirGlacierBlock as null."""

    breaks = ("RPC-EVM-011",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["muirGlacierBlock"] = None
        return result


@register
class Eip150HashAsCb58(_ChainConfig):
    """eth_getChainConfig returns eip150Hash CB58-encoded instead of hex."""

    breaks = ("RPC-EVM-012",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["eip150Hash"] = ids.cb58(bytes.fromhex(result["eip150Hash"][2:]))
        return result


@register
class SubnetEvmTimestampAsString(_ChainConfig):
    """eth_getChainConfig returns subnetEVMTimestamp as a decimal string."""

    breaks = ("RPC-EVM-013",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["subnetEVMTimestamp"] = str(result["subnetEVMTimestamp"])
        return result


def _configured(result: dict) -> list[dict]:
    return [value for key, value in result.items()
            if key.endswith("Config") and key != "feeConfig" and isinstance(value, dict)]


@register
class PrecompileAdminAddressesWithoutPrefix(_ChainConfig):
    """eth_getChainConfig writes the adminAddresses of configured precompiles without the 0x prefix."""

    breaks = ("RPC-EVM-014",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        for config in _configured(result):
            config["adminAddresses"] = [a[2:] for a in config["adminAddresses"]]
        return result


@register
class PrecompileBlockTimestampAsHex(_ChainConfig):
    """eth_getChainConfig writes the blockTimestamp of configured precompiles as a hex string."""

    breaks = ("RPC-EVM-015",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        for config in _configured(result):
            config["blockTimestamp"] = hex(config["blockTimestamp"])
        return result


@register
class ChainConfigWithoutUpgrades(_ChainConfig):
    """eth_getChainConfig leaves out the upgrades object."""

    breaks = ("RPC-EVM-016",)
    also = _ids("EVM", 21, first=17)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result.pop("upgrades", None)
        return result


@register
class PrecompileUpgradesAsMap(_ChainConfig):
    """eth_getChainConfig returns precompileUpgrades as an object keyed by config name instead of an array."""

    breaks = ("RPC-EVM-017",)
    also = _ids("EVM", 21, first=18)

    def patch(self, result: Any, call: RpcCall) -> Any:
        upgrades = result["upgrades"]["precompileUpgrades"]
        result["upgrades"]["precompileUpgrades"] = {k: v for entry in upgrades for k, v in entry.items()}
        return result


class _Upgrades(_ChainConfig):
    def patch(self, result: Any, call: RpcCall) -> Any:
        for entry in result["upgrades"]["precompileUpgrades"]:
            for value in entry.values():
                self.entry(value)
        return result

    def entry(self, value: dict) -> None:
        pass


@register
class PrecompileUpgradesMerged(_ChainConfig):
    """eth_getChainConfig merges the first two precompileUpgrades entries into one object with two keys."""

    breaks = ("RPC-EVM-018",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        upgrades = result["upgrades"]["precompileUpgrades"]
        if len(upgrades) >= 2:
            upgrades[:2] = [{**upgrades[0], **upgrades[1]}]
        return result


@register
class UpgradeAdminAddressesAsString(_Upgrades):
    """eth_getChainConfig writes the adminAddresses of a precompile upgrade as one comma-separated string."""

    breaks = ("RPC-EVM-019",)

    def entry(self, value: dict) -> None:
        if isinstance(value.get("adminAddresses"), list):
            value["adminAddresses"] = ",".join(value["adminAddresses"])


@register
class UpgradeBlockTimestampAsString(_Upgrades):
    """eth_getChainConfig writes the blockTimestamp of a precompile upgrade as a decimal string."""

    breaks = ("RPC-EVM-020",)

    def entry(self, value: dict) -> None:
        value["blockTimestamp"] = str(value["blockTimestamp"])


@register
class UpgradeDisableAsString(_Upgrades):
    """eth_getChainConfig writes the disable flag of a precompile upgrade as a string."""

    breaks = ("RPC-EVM-021",)

    def entry(self, value: dict) -> None:
        if "disable" in value:
            value["disable"] = str(value["disable"]).lower()


class _ActiveRules(_Result):
    methods = ("eth_getActiveRulesAt",)


@register
class EthRulesWithoutIsCancun(_ActiveRules):
    """eth_getActiveRulesAt leaves IsCancun out of ethRules."""

    breaks = ("RPC-EVM-022",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["ethRules"].pop("IsCancun", None)
        return result


@register
class NetworkRuleIsDurangoAsString(_ActiveRules):
    """eth_getActiveRulesAt writes networkRules.IsDurango as a string."""

    breaks = ("RPC-EVM-023",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["networkRules"]["IsDurango"] = str(result["networkRules"]["IsDurango"]).lower()
        return result


@register
class ActivePrecompileTimestampAsHex(_ActiveRules):
    """eth_getActiveRulesAt writes the timestamp of each active precompile as a hex string."""

    breaks = ("RPC-EVM-024",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        for value in result["precompiles"].values():
            value["timestamp"] = hex(value["timestamp"])
        return result


@register
class ActiveRulesRequireTimestamp(Fault):
    """eth_getActiveRulesAt refuses a call without the timestamp parameter."""

    breaks = ("RPC-EVM-025",)
    also = ("RPC-EVM-027",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_getActiveRulesAt" and _block_arg(call) is None:
            return _error(call, INVALID_PARAMS, "missing value for required argument 0")
        return proceed(call)


@register
class ActiveRulesRejectTimestamp(Fault):
    """eth_getActiveRulesAt refuses a timestamp parameter."""

    breaks = ("RPC-EVM-026",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_getActiveRulesAt" and _block_arg(call) is not None:
            return _error(call, INVALID_PARAMS, "invalid argument 0: json: cannot unmarshal into *uint64")
        return proceed(call)


@register
class ActiveRulesDefaultAtGenesis(Fault):
    """eth_getActiveRulesAt without a timestamp answers for timestamp 0 instead of the latest block's."""

    breaks = ("RPC-EVM-027",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_getActiveRulesAt" and _block_arg(call) is None:
            call = call.with_(params=[0])
        return proceed(call)


@register
class ActivePrecompilesUseRulesShape(_Result):
    """eth_getActivePrecompilesAt answers {timestamp} per precompile instead of {adminAddresses, blockTimestamp}."""

    breaks = ("RPC-EVM-028",)
    methods = ("eth_getActivePrecompilesAt",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return {name: {"timestamp": value["blockTimestamp"]} for name, value in result.items()}


@register
class ActivePrecompilesMissOne(_Result):
    """The deprecated eth_getActivePrecompilesAt leaves out the precompile of the latest activation that
    eth_getActiveRulesAt lists (a replacement kept up to date, its predecessor not)."""

    breaks = ("RPC-EVM-039",)
    methods = ("eth_getActivePrecompilesAt",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if not isinstance(result, dict) or not result:
            return result
        latest = max(result, key=lambda name: (result[name].get("blockTimestamp", 0), name))
        return {name: value for name, value in result.items() if name != latest}


@register
class EvmRpcNotServed(_Unserved):
    """/ext/bc/<blockchainID>/rpc answers 404, as a node that does not track the chain."""

    breaks = ("RPC-EVM-032",)
    also = _all_but("RPC-EVM-032")

    def unserved(self, request: RpcHttp) -> bool:
        return request.api == "evm"


# --- The listed extra methods are served ---

class _MethodNotFound(Fault):
    """Answers "method not found" for `method`, as a chain that does not offer it."""

    method = ""

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == self.method:
            return _error(call, METHOD_NOT_FOUND, f"the method {call.method} does not exist/is not available")
        return proceed(call)


@register
class EthFeeConfigNotServed(_MethodNotFound):
    """eth_feeConfig answers "method not found"."""

    breaks = ("RPC-EVM-033",)
    also = _ids("EVM", 7)
    method = "eth_feeConfig"


@register
class EthChainConfigNotServed(_MethodNotFound):
    """eth_getChainConfig answers "method not found"."""

    breaks = ("RPC-EVM-034",)
    also = _ids("EVM", 21, first=8) + ("RPC-ENV-014",)
    method = "eth_getChainConfig"


@register
class EthActiveRulesNotServed(_MethodNotFound):
    """eth_getActiveRulesAt answers "method not found"."""

    breaks = ("RPC-EVM-035",)
    also = _ids("EVM", 27, first=22)
    method = "eth_getActiveRulesAt"


class _ExtrasRefused(Fault):
    """Refuses the three extra methods with an error other than "method not found", as stock Ethereum nodes do:
    one deviation each, reported by the rule that the method is served, its other rules left untested."""

    breaks = ("RPC-EVM-033", "RPC-EVM-034", "RPC-EVM-035")
    real = True

    def refusal(self, method: str) -> dict[str, Any]:
        raise NotImplementedError

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method in ("eth_feeConfig", "eth_getChainConfig", "eth_getActiveRulesAt"):
            return {"jsonrpc": "2.0", "id": call.id, "error": self.refusal(call.method)}
        return proceed(call)


@register
class ExtrasRefusedAsParseErrors(_ExtrasRefused):
    """The extra methods answer -32700 "does not exist/is not available" with a stack trace, as ganache does."""

    def refusal(self, method: str) -> dict[str, Any]:
        text = f"The method {method} does not exist/is not available"
        return {"message": text, "stack": f"Error: {text}\n    at Executor.execute (node/1.js:2:284522)",
                "code": -32700}


@register
class ExtrasRefusedAsUnsupported(_ExtrasRefused):
    """The extra methods answer -32004 "Method … is not supported" (EIP-1474), as hardhat does."""

    def refusal(self, method: str) -> dict[str, Any]:
        text = f"Method {method} is not supported"
        return {"code": -32004, "message": text, "data": {"message": text, "data": {"method": method, "params": []}}}


# --- Relations: each answer well-formed, what they mean together wrong ---

@register
class FeeConfigBlockIgnored(Fault):
    """eth_feeConfig ignores its block parameter: every block number or hash gets the latest fee config."""

    breaks = ("RPC-EVM-036",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_feeConfig" and _args(call):
            return proceed(call.with_(params=[]))
        return proceed(call)


@register
class ActiveRulesTimestampIgnored(Fault):
    """eth_getActiveRulesAt ignores its timestamp: every timestamp gets the rules at the latest block."""

    breaks = ("RPC-EVM-037",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_getActiveRulesAt" and _args(call):
            return proceed(call.with_(params=[]))
        return proceed(call)


@register
class ActiveRulesActivateAfterTimestamp(_Result):
    """eth_getActiveRulesAt counts a precompile as active only after its activation timestamp, not at it."""

    breaks = ("RPC-EVM-037",)
    methods = ("eth_getActiveRulesAt",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        asked = _int(_args(call)[0]) if _args(call) else None
        if asked is not None and isinstance(result, dict) and isinstance(result.get("precompiles"), dict):
            result["precompiles"] = {name: value for name, value in result["precompiles"].items()
                                     if not (isinstance(value, dict) and value.get("timestamp") == asked)}
        return result


@register
class ChainConfigOfAnotherChain(Fault):
    """eth_getChainConfig answers with the config of the node's other EVM chain (the first chain registered)."""

    breaks = ("RPC-EVM-038",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "eth_getChainConfig":
            return proceed(call.with_(endpoint=_sibling(call.endpoint)))
        return proceed(call)
