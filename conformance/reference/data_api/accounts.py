"""What makes the reference crawlable the way a real chain is: the identifiers its answers lead to.

The L1's genesis funds the known wallet (the address holding ERC-20, ERC-721 and ERC-1155 tokens, with
transfers), a few peers and a contract; C-Chain atomic transactions name the 0x address they credit; X-Chain UTXOs
created before the chain was linearized name the vertex-era chain they were created on.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.reference import ids
from conformance.reference.data_api.world import CHAIN_IDS, NETWORKS, VERTEX_ERA_IDS

if TYPE_CHECKING:
    from conformance.reference.data_api.world import DataWorld

#: Not shown: when the X-Chain left its vertex era; the reference puts it this long before its history ends.
VERTEX_ERA_AGE = 300 * 86400
GENESIS_PEERS = 3


def genesis_alloc(data: DataWorld) -> dict[str, dict[str, Any]]:
    """The reference L1's genesis accounts (keys without 0x, as genesis files write them), the wallet funded most."""
    chain = str(data.world.evm_chain_id)
    out = {data.wallet(chain)[2:]: _account(5 * 10**24)}
    for k in range(GENESIS_PEERS):
        out[ids.evm_address(data.seed, chain, "peer", k)[2:]] = _account(10**22 * (k + 1))
    manager = ids.evm_address(data.seed, "validator-manager")
    code = "0x608060405234801561001057600080fd5b50" + ids.digest(data.seed, "manager-code").hex()
    out[manager[2:]] = _account(0, code=code, storage={"0x" + "00" * 32: "0x" + "00" * 31 + "01"})
    return out


def _account(balance: int, *, code: str = "0x", storage: dict[str, str] | None = None) -> dict[str, Any]:
    return {"balance": hex(balance), "code": code, "storage": storage or {}}


def created_on(data: DataWorld, net: str, chain: str, ts: int) -> str:
    """The chain a UTXO was created on: the X-Chain's vertex era for X-Chain UTXOs older than its linearization."""
    network = NETWORKS.get(net, net)
    if chain == "x" and ts < data.t0 - VERTEX_ERA_AGE:
        return VERTEX_ERA_IDS[network]
    return CHAIN_IDS[network][chain]
