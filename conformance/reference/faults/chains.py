"""Faults of the primary network routes on one chain only: the X- or C-Chain answers break a shape the P-Chain keeps."""
from __future__ import annotations

from typing import Any, ClassVar

from conformance.reference.calls import HttpReply, RestCall
from conformance.reference.data_api.world import ALIASES, CHAIN_IDS, VERTEX_ERA_IDS
from conformance.reference.faults import RestProceed, register
from conformance.reference.faults.data import BLOCKS, TXS, UTXOS, _Items, _walk


def on_chain(call: RestCall, letter: str) -> bool:
    """Whether the call names the chain `letter` (p, x, c) by alias or ID."""
    given = call.path_params.get("blockchainId", "")
    ids = {chains[letter] for chains in CHAIN_IDS.values()} | (set(VERTEX_ERA_IDS.values()) if letter == "x" else set())
    return ALIASES.get(given) == letter or given in ids


class _OnChain(_Items):
    """Changes the items of the route's answers on one chain."""

    chain: ClassVar[str] = ""

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return super().handle(call, proceed) if on_chain(call, self.chain) else proceed(call)


class _IntegerAsString(_OnChain):
    """Sends one integer member of each item as a string."""

    member: ClassVar[str] = ""

    def item(self, item: dict[str, Any]) -> None:
        if isinstance(item.get(self.member), int):
            item[self.member] = str(item[self.member])


@register
class XChainOutputIndexIsString(_IntegerAsString):
    """listUtxos on the X-Chain sends each UTXO's outputIndex as a string."""
    breaks = ("DATA-SHP-001",)
    routes = (UTXOS,)
    chain = "x"
    member = "outputIndex"


@register
class CChainAmountsAreNumbers(_OnChain):
    """listTransactions on the C-Chain sends asset amounts as JSON numbers."""
    breaks = ("DATA-SHP-016",)
    also = ("DATA-SHP-002",)
    routes = (TXS,)
    chain = "c"

    def item(self, item: dict[str, Any]) -> None:
        _walk(item, lambda o: o.update(amount=int(o["amount"])) if "assetId" in o and str(o.get("amount", "")).isdigit()
              else None)


@register
class XChainBlockTimestampIsString(_IntegerAsString):
    """listBlocksByNode on the X-Chain sends blockTimestamp as a string."""
    breaks = ("DATA-SHP-015",)
    routes = (BLOCKS,)
    chain = "x"
    member = "blockTimestamp"
