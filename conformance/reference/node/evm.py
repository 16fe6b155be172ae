"""The EVM chain RPC (/ext/bc/<blockchainID>/rpc): the extra methods (fee config, chain config, active rules)
beside the standard Ethereum methods of EthApi."""
from __future__ import annotations

from typing import Any

from conformance.reference import ids
from conformance.reference.calls import RpcCall
from conformance.reference.node.eth import EthApi
from conformance.reference.node.params import positional, quantity

GENESIS_FEES = {"gasLimit": 8_000_000, "targetBlockRate": 2, "minBaseFee": 25_000_000_000,
                "targetGas": 15_000_000, "baseFeeChangeDenominator": 36, "minBlockGasCost": 0,
                "maxBlockGasCost": 1_000_000, "blockGasCostStep": 200_000}
#: The fee config the fee manager precompile set at EvmChain.fee_change_block.
CURRENT_FEES = {**GENESIS_FEES, "gasLimit": 15_000_000, "minBaseFee": 1_000_000_000, "targetGas": 20_000_000,
                "baseFeeChangeDenominator": 48, "blockGasCostStep": 100_000}
FORKS = ("homesteadBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock", "constantinopleBlock",
         "petersburgBlock", "istanbulBlock", "muirGlacierBlock")
ETH_RULES = ("IsHomestead", "IsEIP150", "IsEIP155", "IsEIP158", "IsByzantium", "IsConstantinople", "IsPetersburg",
             "IsIstanbul")


class EvmApi(EthApi):
    def methods(self) -> dict[str, Any]:
        return {
            **self.standard_methods(),
            "eth_feeConfig": self.fee_config, "eth_getChainConfig": self.get_chain_config,
            "eth_getActiveRulesAt": self.get_active_rules_at,
            "eth_getActivePrecompilesAt": self.get_active_precompiles_at,
        }

    def gas_limit(self, n: int) -> int:
        # The fee manager precompile raised the gas limit with the rest of the fee config.
        return (CURRENT_FEES if n >= self.chain.fee_change_block else GENESIS_FEES)["gasLimit"]

    # --- the chain's extra methods ---

    def fee_config(self, call: RpcCall) -> dict:
        params = positional(call, most=1)
        n = self._block(params[0] if params else None)
        if n >= self.chain.fee_change_block:
            return {"feeConfig": dict(CURRENT_FEES), "lastChangedAt": self.chain.fee_change_block}
        return {"feeConfig": dict(GENESIS_FEES), "lastChangedAt": 0}

    def _precompiles(self) -> dict[str, dict[str, Any]]:
        admins = self.chain.admins
        return {"contractDeployerAllowListConfig": {"adminAddresses": admins[:2], "blockTimestamp": 0},
                "feeManagerConfig": {"adminAddresses": admins[2:], "blockTimestamp": 0}}

    def _upgrades(self) -> list[dict[str, Any]]:
        chain, admins = self.chain, self.chain.admins
        return [
            {"contractNativeMinterConfig": {"adminAddresses": admins[:1], "blockTimestamp": chain.minter_activation}},
            {"contractDeployerAllowListConfig": {"adminAddresses": None, "blockTimestamp": chain.deployer_disabled,
                                                 "disable": True}},
            {"txAllowListConfig": {"adminAddresses": admins[1:], "blockTimestamp": chain.tx_allow_list_activation}},
        ]

    def get_chain_config(self, call: RpcCall) -> dict:
        positional(call, most=0)
        chain = self.chain
        config: dict[str, Any] = {"chainId": chain.chain_id, "feeConfig": dict(GENESIS_FEES),
                                  "allowFeeRecipients": False}
        config.update({fork: 0 for fork in FORKS})
        config.update({"eip150Hash": ids.hex_hash(chain.seed, "eip150"), "subnetEVMTimestamp": 0,
                       "durangoTimestamp": chain.durango, "etnaTimestamp": chain.etna})
        config.update(self._precompiles())
        config["upgrades"] = {"precompileUpgrades": self._upgrades()}
        return config

    def _timestamp(self, call: RpcCall) -> int:
        params = positional(call, most=1)
        if not params or params[0] is None:
            return self.chain.block_time(self._latest())
        return quantity(params[0], "timestamp")

    def _active(self, timestamp: int) -> dict[str, dict[str, Any]]:
        """The precompile configs in force at a timestamp, later upgrades overriding earlier ones."""
        active: dict[str, dict[str, Any]] = {}
        for name, config in self._precompiles().items():
            if config["blockTimestamp"] <= timestamp:
                active[name] = config
        for entry in self._upgrades():
            (name, config), = entry.items()
            if config["blockTimestamp"] <= timestamp:
                if config.get("disable"):
                    active.pop(name, None)
                else:
                    active[name] = config
        return active

    def get_active_rules_at(self, call: RpcCall) -> dict:
        t = self._timestamp(call)
        chain = self.chain
        eth_rules = {name: True for name in ETH_RULES}
        eth_rules["IsCancun"] = t >= chain.etna
        return {"ethRules": eth_rules,
                "networkRules": {"IsSubnetEVM": True, "IsDurango": t >= chain.durango, "IsEtna": t >= chain.etna},
                "precompiles": {name: {"timestamp": config["blockTimestamp"]}
                                for name, config in self._active(t).items()}}

    def get_active_precompiles_at(self, call: RpcCall) -> dict:
        # Deprecated in favour of eth_getActiveRulesAt, still served.
        t = self._timestamp(call)
        return {name: {"adminAddresses": config["adminAddresses"], "blockTimestamp": config["blockTimestamp"]}
                for name, config in self._active(t).items()}
