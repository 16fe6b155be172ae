"""JSON objects of the data API, built from the world's compact records for the items of one page."""
from __future__ import annotations

from typing import Any

from conformance.reference import ids
from conformance.reference.data_api import accounts
from conformance.reference.data_api.world import (
    AVAX_ASSET_IDS, CHAIN_IDS, CHAIN_NAMES, L1_TYPES, NETWORK_NAMES, PRIMARY_NETWORK_ID, Block, DataWorld, Tx,
    Utxo, Validation,
)

SUBNET_EVM = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"


def chain_info(net: str, chain: str) -> dict[str, str]:
    return {"chainName": CHAIN_NAMES[chain], "network": NETWORK_NAMES[net]}


def asset(data: DataWorld, net: str, asset_id: str, amount: int) -> dict[str, Any]:
    if asset_id == AVAX_ASSET_IDS[net]:
        name, symbol, denomination = "Avalanche", "AVAX", 9
    else:
        k = data.n(net, asset_id, "asset-name", below=1000)
        name, symbol, denomination = f"Asset {k}", f"AS{k}", k % 10
    return {"assetId": asset_id, "name": name, "symbol": symbol, "denomination": denomination,
            "type": "secp256k1", "amount": str(amount)}


def utxo(data: DataWorld, net: str, chain: str, u: Utxo) -> dict[str, Any]:
    chain_id = CHAIN_IDS[net][chain]
    staked = chain == "p" and u.index % 5 == 0
    out: dict[str, Any] = {
        "addresses": [u.owner], "asset": asset(data, net, u.asset, u.amount),
        "createdOnChainId": accounts.created_on(data, net, chain, u.ts), "consumedOnChainId": chain_id,
        "utxoId": u.utxo_id,
        "utxoBytes": ids.hex_hash(data.seed, "utxo-bytes", u.utxo_id), "amount": str(u.amount), "assetId": u.asset,
        "blockNumber": str(data.height(chain, u.ts)), "blockTimestamp": u.ts, "platformLocktime": 0,
        "outputIndex": u.index % 4, "stakeableLocktime": 0, "staked": staked, "threshold": 1,
        "txHash": ids.cb58_id(data.seed, "utxo-tx", u.utxo_id), "utxoType": "STAKE" if staked else "TRANSFER",
    }
    if staked:
        out.update(rewardType="VALIDATOR", utxoStartTimestamp=u.ts, utxoEndTimestamp=u.ts + 14 * 86400)
    if u.spent:
        out.update(consumingTxHash=ids.cb58_id(data.seed, "spend", u.utxo_id),
                   consumingBlockNumber=str(data.height(chain, u.ts) + 50), consumingBlockTimestamp=u.ts + 100)
    return out


def bls(data: DataWorld, *parts: object) -> dict[str, str]:
    return {"publicKey": "0x" + (ids.digest(data.seed, "bls-pk", *parts) * 2)[:48].hex(),
            "proofOfPossession": "0x" + (ids.digest(data.seed, "bls-pop", *parts) * 3)[:96].hex()}


def transaction(data: DataWorld, net: str, chain: str, tx: Tx) -> dict[str, Any]:
    d = ids.digest(data.seed, net, chain, "tx-body", tx.index)
    avax = AVAX_ASSET_IDS[net]
    owners = sorted(a for a in tx.addresses if not a.startswith("0x"))
    evm_owners = sorted(a for a in tx.addresses if a.startswith("0x"))   # C-Chain atomic: the 0x address credited
    amount = 1_000_000 + int.from_bytes(d[:5], "big")
    fee = 1_000_000

    def made(k: int, owner: str, value: int) -> dict[str, Any]:
        return utxo(data, net, chain, Utxo(k, owner, tx.ts, value, False, avax, ids.cb58_id(tx.tx_hash, k)))
    consumed = made(9, owners[0], amount + fee)
    consumed.update(consumingTxHash=tx.tx_hash, consumingBlockNumber=str(data.height(chain, tx.ts)),
                    consumingBlockTimestamp=tx.ts)
    out: dict[str, Any] = {
        "txHash": tx.tx_hash, "txType": tx.tx_type, "blockTimestamp": tx.ts,
        "blockNumber": str(data.height(chain, tx.ts)), "blockHash": ids.cb58_id(data.seed, net, chain, "blk", tx.index),
        "consumedUtxos": [consumed], "emittedUtxos": [made(k, owner, amount // len(owners)) for k, owner in
                                                      enumerate(owners + evm_owners)],
        "sourceChain": CHAIN_IDS[net][chain], "destinationChain": CHAIN_IDS[net][chain],
        "value": [asset(data, net, avax, amount)], "amountBurned": [asset(data, net, avax, fee)],
        "amountStaked": [], "amountL1ValidatorBalanceBurned": [], "memo": "",
    }
    if tx.tx_type in ("ImportTx", "ExportTx"):
        other = "p" if chain != "p" else "x"
        src, dst = (other, chain) if tx.tx_type == "ImportTx" else (chain, other)
        out.update(sourceChain=CHAIN_IDS[net][src], destinationChain=CHAIN_IDS[net][dst])
    elif tx.tx_type in ("AddValidatorTx", "AddDelegatorTx",
                        "AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx"):
        node = data.nodes(net)[d[6] % len(data.nodes(net))]
        out.update(nodeId=node, subnetId=PRIMARY_NETWORK_ID,
                   startTimestamp=tx.ts, endTimestamp=tx.ts + 86400 * (14 + d[7]),
                   amountStaked=[asset(data, net, avax, amount)], estimatedReward=str(amount // 20),
                   rewardAddresses=owners[:1], stakingTxHash=tx.tx_hash)
        if "Validator" in tx.tx_type:
            out["delegationFeePercent"] = f"{2 + d[8] % 18}.0000"
            out["blsCredentials"] = bls(data, tx.tx_hash)
    elif tx.tx_type in L1_TYPES:
        validation = tx.l1_validation or ""
        out["subnetId"] = data.world.evm_subnet_id
        out["amountL1ValidatorBalanceBurned"] = [asset(data, net, avax, fee * 10)]
        out["l1ValidatorDetails"] = [{
            "validationId": validation, "validationIdHex": ids.hex_hash("l1", validation),
            "nodeId": data.nodes(net)[d[6] % len(data.nodes(net))], "subnetId": data.world.evm_subnet_id,
            "weight": 20 + d[9], "remainingBalance": amount, "balanceChange": fee * 10,
            "blsCredentials": bls(data, validation)}]
        if tx.tx_type == "ConvertSubnetToL1Tx":
            out["l1ValidatorManagerDetails"] = {"blockchainId": data.world.evm_blockchain_id,
                                                "contractAddress": ids.evm_address(data.seed, "validator-manager")}
            out["subnetOwnershipInfo"] = {"locktime": 0, "threshold": 1, "addresses": owners[:1]}
    elif tx.tx_type == "CreateChainTx":
        out.update(subnetId=data.subnets(net)[1], blockchainInfo={
            "chainName": f"chain{tx.index}", "vmId": SUBNET_EVM, "genesisData": genesis(data, net, "tx", tx.index)})
    elif tx.tx_type == "CreateSubnetTx":
        out["subnetOwnershipInfo"] = {"locktime": 0, "threshold": 1, "addresses": owners}
    return out


def genesis(data: DataWorld, *parts: object) -> dict[str, Any]:
    d = ids.digest(data.seed, "genesis", *parts)
    chain_id = 10_000 + int.from_bytes(d[:3], "big") % 900_000
    allowed = {"blockTimestamp": 0, "adminAddresses": [ids.evm_address(data.seed, "admin", *parts)],
               "managerAddresses": [], "enabledAddresses": []}
    funded = ids.evm_address(data.seed, "funded", *parts)
    return {
        "airdropAmount": None, "airdropHash": "0x" + "00" * 32,
        "alloc": {funded[2:]: {"balance": hex(10**24 + int.from_bytes(d[3:9], "big")), "code": "0x", "storage": {}}},
        "baseFeePerGas": None, "blobGasUsed": None, "coinbase": "0x" + "00" * 20,
        "config": {
            "berlinBlock": 0, "byzantiumBlock": 0, "constantinopleBlock": 0, "eip150Block": 0, "eip155Block": 0,
            "eip158Block": 0, "homesteadBlock": 0, "istanbulBlock": 0, "londonBlock": 0, "muirGlacierBlock": 0,
            "petersburgBlock": 0, "chainId": chain_id, "eip150Hash": "0x" + "00" * 32,
            "subnetEVMTimestamp": 0, "allowFeeRecipients": bool(d[9] % 2),
            "feeConfig": {"baseFeeChangeDenominator": 36, "blockGasCostStep": 200_000, "gasLimit": 15_000_000,
                          "maxBlockGasCost": 1_000_000, "minBaseFee": 25_000_000_000, "minBlockGasCost": 0,
                          "targetBlockRate": 2, "targetGas": 15_000_000},
            "warpConfig": {"blockTimestamp": 1_700_000_000 + d[10], "quorumNumerator": 67,
                           "requirePrimaryNetworkSigners": False},
            "txAllowListConfig": allowed, "contractDeployerAllowListConfig": allowed,
            "contractNativeMinterConfig": allowed, "feeManagerConfig": allowed, "rewardManagerConfig": allowed,
        },
        "difficulty": "0x0", "extraData": "0x", "gasLimit": hex(15_000_000), "gasUsed": "0x0",
        "mixHash": "0x" + "00" * 32, "nonce": "0x0", "number": "0x0", "parentHash": "0x" + "00" * 32,
        "timestamp": hex(1_600_000_000 + int.from_bytes(d[11:14], "big") % 100_000_000), "excessBlobGas": None,
    }


def blockchain(data: DataWorld, net: str, i: int) -> dict[str, Any]:
    d = ids.digest(data.seed, net, "blockchain", i)
    ts = 1_607_000_000 + i * 250_000 + int.from_bytes(d[:3], "big") % 200_000
    own = net == "mainnet" and i == data.blockchain_count(net) - 1
    evm = own or d[3] % 10 < 7
    out: dict[str, Any] = {
        "createBlockTimestamp": ts, "createBlockNumber": str(data.height("p", ts)),
        "blockchainId": data.world.evm_blockchain_id if own else ids.cb58_id(data.seed, net, "blockchain", i),
        "vmId": SUBNET_EVM if evm else ids.cb58_id("vm", d[4] % 5),
        "subnetId": data.world.evm_subnet_id if own else ids.cb58_id(data.seed, net, "bc-subnet", i),
        "blockchainName": "reference-l1" if own else f"chain{i}",
    }
    if evm:
        g = genesis(data, net, "blockchain", i)
        if own:
            g["config"]["chainId"] = data.world.evm_chain_id
            g["alloc"] = accounts.genesis_alloc(data)
        out.update(evmChainId=g["config"]["chainId"], genesisData=g)
    return out


def validator(data: DataWorld, v: Validation) -> dict[str, Any]:
    out: dict[str, Any] = {
        "txHash": v.tx_hash, "nodeId": v.node, "subnetId": v.subnet, "amountStaked": str(v.staked),
        "delegationFee": None if v.fee is None else f"{v.fee:.4f}", "startTimestamp": v.start,
        "endTimestamp": v.end, "delegatorCount": v.delegators, "amountDelegated": str(v.delegated),
        "uptimePerformance": v.uptime, "validationStatus": v.status,
    }
    if v.subnet == PRIMARY_NETWORK_ID:
        out["blsCredentials"] = bls(data, v.tx_hash)
    if v.status == "completed":
        out["rewards"] = {"validationRewardAmount": str(v.staked // 25),
                          "delegationRewardAmount": str(v.delegated // 40),
                          "rewardAddresses": [data.bech32("mainnet" if v.index % 2 else "testnet", "reward", v.index)],
                          "rewardTxHash": ids.cb58_id(data.seed, "reward", v.tx_hash)}
    return out


def block(data: DataWorld, net: str, chain: str, b: Block) -> dict[str, Any]:
    d = ids.digest(data.seed, net, chain, "block", b.height)
    count = d[0] % 6
    return {
        "blockNumber": str(b.height), "blockHash": ids.cb58_id(data.seed, net, chain, "block", b.height),
        "parentHash": ids.cb58_id(data.seed, net, chain, "block", b.height - 1), "blockTimestamp": b.ts,
        "blockType": {"p": "BanffStandardBlock", "x": "StandardBlock", "c": "StandardBlock"}[chain],
        "txCount": count,
        "transactions": [ids.cb58_id(data.seed, net, chain, "btx", b.height, k) for k in range(count)],
        "blockSizeBytes": 200 + d[1] * 8, "l1ValidatorsAccruedFees": d[2] * 1000, "activeL1Validators": d[3] % 40,
        "currentSupply": str(720_000_000_000_000_000 - 250_000_000_000_000_000 + b.height),
        "proposerDetails": {"proposerId": ids.cb58_id(data.seed, "proposer", b.height), "proposerParentId":
                            ids.cb58_id(data.seed, "proposer", b.height - 1), "proposerNodeId": b.node,
                            "proposerPChainHeight": data.height("p", b.ts) - 3, "proposerTimestamp": b.ts},
    }


def vertex(data: DataWorld, net: str, height: int, j: int) -> dict[str, Any]:
    count = data.n(net, "vertex-txs", height, j, below=8)
    return {
        "vertexHash": ids.cb58_id(data.seed, net, "vertex", height, j),
        "parentHashes": [ids.cb58_id(data.seed, net, "vertex", height - 1, k) for k in range(min(2, height))],
        "vertexHeight": height, "vertexIndex": height * 40 + j, "vertexTimestamp": data.vertex_time(height, j),
        "txCount": count, "transactions": [ids.cb58_id(data.seed, net, "vtx", height, j, k) for k in range(count)],
        "vertexSizeBytes": 300 + 250 * count,
    }
