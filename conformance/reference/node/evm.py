"""The EVM chain RPC (/ext/bc/<blockchainID>/rpc): fee config, chain config, active rules, a few standard methods."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.reference import ids
from conformance.reference.calls import RpcCall
from conformance.reference.jsonrpc import SERVER_ERROR, RpcError, invalid_params
from conformance.reference.node.params import positional, quantity
from conformance.reference.node.world import EvmChain

if TYPE_CHECKING:
    from conformance.reference.node import NodeService

LATEST_TAGS = ("latest", "pending", "accepted", "safe", "finalized")
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


class EvmApi:
    def __init__(self, service: NodeService) -> None:
        self.world = service.world
        self.chain: EvmChain = service.world.node.evm

    def methods(self) -> dict[str, Any]:
        return {
            "eth_feeConfig": self.fee_config, "eth_getChainConfig": self.get_chain_config,
            "eth_getActiveRulesAt": self.get_active_rules_at,
            "eth_getActivePrecompilesAt": self.get_active_precompiles_at,
            "eth_chainId": self.chain_id, "eth_blockNumber": self.block_number,
            "eth_getBlockByNumber": self.get_block_by_number, "eth_getBlockByHash": self.get_block_by_hash,
        }

    def _latest(self) -> int:
        with self.world.lock:
            return self.chain.latest(self.world.clock.now)

    def _block(self, value: Any) -> int:
        """The number of the block a block parameter names (tag, number or hash); an error when there is none."""
        latest = self._latest()
        if value is None or value in LATEST_TAGS:
            return latest
        if value == "earliest":
            return 0
        if isinstance(value, str) and len(value) == 66 and value.startswith("0x"):
            n = self.chain.block_of_hash(value)
            if n is None or n > latest:
                raise RpcError(SERVER_ERROR, f"header for hash {value} not found")
            return n
        n = quantity(value, "block number")
        if n > latest:
            raise RpcError(SERVER_ERROR, f"header for number {n} not found")
        return n

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

    # --- standard methods ---

    def chain_id(self, call: RpcCall) -> str:
        positional(call, most=0)
        return hex(self.chain.chain_id)

    def block_number(self, call: RpcCall) -> str:
        positional(call, most=0)
        return hex(self._latest())

    def _header(self, n: int) -> dict[str, Any]:
        chain = self.chain
        gas_limit = (CURRENT_FEES if n >= chain.fee_change_block else GENESIS_FEES)["gasLimit"]
        return {"number": hex(n), "hash": chain.block_hash(n),
                "parentHash": chain.block_hash(n - 1) if n else "0x" + "00" * 32,
                "timestamp": hex(chain.block_time(n)), "gasLimit": hex(gas_limit), "gasUsed": "0x0",
                "miner": "0x0100000000000000000000000000000000000000", "transactions": [], "uncles": []}

    def _get_block(self, call: RpcCall, *, by_hash: bool) -> dict | None:
        params = positional(call, most=2)
        if not params:
            raise invalid_params("missing value for required argument 0")
        if by_hash and not (isinstance(params[0], str) and len(params[0]) == 66):
            raise invalid_params("the block hash must be 32 bytes of 0x hex")
        try:
            return self._header(self._block(params[0]))
        except RpcError as exc:
            if exc.code == SERVER_ERROR:
                return None  # an unknown block is null, as Ethereum nodes answer
            raise

    def get_block_by_number(self, call: RpcCall) -> dict | None:
        return self._get_block(call, by_hash=False)

    def get_block_by_hash(self, call: RpcCall) -> dict | None:
        return self._get_block(call, by_hash=True)
