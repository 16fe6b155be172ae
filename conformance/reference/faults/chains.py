"""Faults of meaning: answers each well-shaped on its own that contradict another answer (the next page of a walk,
the chain an alias stands for, another network, a past block, the route that looks an item up), and faults of the
primary network routes on one chain only.

Each is a behaviour a real service could have; each breaks the one rule whose sentence it contradicts.
"""
from __future__ import annotations

from typing import Any, ClassVar

from conformance.reference.calls import HttpReply, RestCall
from conformance.reference.data_api.params import CURRENCIES
from conformance.reference.data_api.world import ALIASES, CHAIN_IDS, VERTEX_ERA_IDS
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import RestProceed
from conformance.reference.faults.data import (
    BLOCKCHAINS, BLOCKS, BY_NODE, DEPLOYMENT, ERC20_BAL, ERC721_BAL, ERC1155_BAL, ERC1155_TXS, NATIVE, TRANSFERS,
    TRANSFER_ROUTES, TXS, UTXOS, VALIDATORS, VERTICES, _DataFault, _Deviate, _Items, _Mutate, _Rewrite, _segment,
    _set, _walk)


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


# Filters on every page: the filter applied to the first page only ------------------------------------------------

class _FirstPageOnly(_Deviate):
    """A filter applied to the first page only: a page asked by token is cut from the unfiltered list (the
    deviation "first-page-only:<parameter>" of the reference's handlers)."""


@register
class ValidatorsStatusOnFirstPageOnly(_FirstPageOnly):
    """listValidators applies validationStatus to the first page only; later pages hold every status."""
    breaks = ("DATA-FLT-001",)
    routes, deviation = (VALIDATORS,), "first-page-only:validationStatus"


@register
class TransactionsTxTypesOnFirstPageOnly(_FirstPageOnly):
    """listTransactions with addresses applies txTypes to the first page only; later pages hold every type."""
    breaks = ("DATA-FLT-018",)
    routes, deviation = (TXS,), "first-page-only:txTypes"

    def when(self, call: RestCall) -> bool:
        return bool(call.first("addresses"))


@register
class UtxosMinAmountOnFirstPageOnly(_FirstPageOnly):
    """listUtxos applies minUtxoAmount to the first page only; later pages hold smaller UTXOs."""
    breaks = ("DATA-FLT-033",)
    routes, deviation = (UTXOS,), "first-page-only:minUtxoAmount"


@register
class BlocksStartTimestampOnFirstPageOnly(_FirstPageOnly):
    """listBlocksByNode applies startTimestamp to the first page only; later pages hold older blocks."""
    breaks = ("DATA-FLT-015",)
    routes, deviation = (BLOCKS,), "first-page-only:startTimestamp"


# What each route is asked about: the address, validation, height, token, node ---------------------------------

@register
class VerticesFromTheRequestedHeightUp(_Deviate):
    """listVerticesByHeight reads vertexHeight as the lowest height: the next height's vertices follow."""
    breaks = ("DATA-FLT-039",)
    routes, deviation = (VERTICES,), "vertices-from-height"


@register
class L1TransactionsOfEveryValidation(_Deviate):
    """listTransactions with l1ValidationId lists the transactions of every L1 validation."""
    breaks = ("DATA-FLT-040",)
    routes, deviation = (TXS,), "l1-any-validation"


@register
class TransactionsAddressesOnlyEnableFilters(_Deviate):
    """listTransactions with addresses lists the chain's transactions: the addresses only enable txTypes and the
    timestamps."""
    breaks = ("DATA-FLT-041",)
    routes, deviation = (TXS,), "addresses-ignored"


@register
class TransactionsEndTimestampInMilliseconds(_Rewrite):
    """listTransactions with addresses reads endTimestamp in milliseconds."""
    breaks = ("DATA-FLT-042",)
    routes = (TXS,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("endTimestamp")
        if call.first("addresses") and raw and raw.isdigit():
            return _set(call, endTimestamp=str(int(raw) // 1000))
        return call


@register
class BlocksStartTimestampOneDayLate(_Rewrite):
    """listBlocksByNode applies startTimestamp one day later than asked (a time zone applied twice)."""
    breaks = ("DATA-FLT-043",)
    routes = (BLOCKS,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("startTimestamp")
        return _set(call, startTimestamp=str(int(raw) + 86400)) if raw and raw.isdigit() else call


def _other_holder(k: int) -> dict[str, str]:
    return {"address": "0x" + f"{0xb0b0 + k:040x}"}


@register
class Erc1155TransfersOfTheCollection(_Mutate):
    """listErc1155Transactions lists the transfers of the address's collection, other holders' among them."""
    breaks = ("DATA-FLT-044",)
    routes = (ERC1155_TXS,)

    def mutate(self, body: dict[str, Any]) -> None:
        for k, item in enumerate(body.get("transactions") or []):
            if k % 2 and isinstance(item, dict):
                item.update({"from": _other_holder(k), "to": _other_holder(k + 1)})


@register
class TokenTransfersOfEveryToken(_Mutate):
    """listTokenTransfers lists the transfers of every ERC-20 token of the chain, not only the contract's."""
    breaks = ("DATA-FLT-045",)
    routes = (TRANSFERS,)

    def mutate(self, body: dict[str, Any]) -> None:
        for k, item in enumerate(body.get("transfers") or []):
            token = item.get("erc20Token") if isinstance(item, dict) else None
            if k % 2 and isinstance(token, dict):
                item["erc20Token"] = {**token, "address": _other_holder(k)["address"], "symbol": f"OTHER{k}"}


@register
class Erc20ContractAddressesFirstOnly(_Rewrite):
    """listErc20Balances reads only the first of comma-separated contractAddresses."""
    breaks = ("DATA-FLT-026",)
    routes = (ERC20_BAL,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("contractAddresses")
        return _set(call, contractAddresses=raw.split(",")[0]) if raw and "," in raw else call


@register
class NodeValidationsWithoutCompleted(_Deviate):
    """getValidatorsByNode leaves out the node's completed validations, which listValidators lists."""
    breaks = ("DATA-REL-001",)
    routes, deviation = (BY_NODE,), "node-validations-without-completed"


# History: a past block asked for, the latest answered ------------------------------------------------------------

class _BlockNumberIgnored(_Rewrite):
    def rewrite(self, call: RestCall) -> RestCall:
        return _set(call, blockNumber=None)


@register
class Erc20BalancesBlockNumberIgnored(_BlockNumberIgnored):
    """listErc20Balances ignores blockNumber and answers the latest balances."""
    breaks = ("DATA-REL-002",)
    routes = (ERC20_BAL,)


@register
class NativeBalanceBlockNumberIgnored(_BlockNumberIgnored):
    """getNativeBalance ignores blockNumber and answers the latest balance."""
    breaks = ("DATA-REL-003",)
    routes = (NATIVE,)


@register
class Erc1155BalancesBlockNumberIgnored(_BlockNumberIgnored):
    """listErc1155Balances ignores blockNumber and answers the latest balances."""
    breaks = ("DATA-REL-007",)
    routes = (ERC1155_BAL,)


@register
class DeploymentIsTheLatestTransaction(_Deviate):
    """getDeployment answers the contract's latest transaction instead of the one that deployed it."""
    breaks = ("DATA-SEM-011",)
    routes, deviation = (DEPLOYMENT,), "deployment-is-latest-transaction"


# Networks and chains that must not mix --------------------------------------------------------------------------

@register
class MainnetBlockchainsFromTheTestNetwork(_Rewrite):
    """listBlockchains on mainnet answers with the test network's blockchains."""
    breaks = ("DATA-REL-004",)
    routes = (BLOCKCHAINS,)

    def rewrite(self, call: RestCall) -> RestCall:
        return _segment(call, "network", "testnet") if call.path_params.get("network") == "mainnet" else call


@register
class ChainInfoNetworkAlwaysMainnet(_Mutate):
    """chainInfo names mainnet as the network whatever the network of the request."""
    breaks = ("DATA-REL-005",)
    routes = (UTXOS, TXS, VERTICES, BLOCKS)

    def mutate(self, body: dict[str, Any]) -> None:
        if isinstance(body.get("chainInfo"), dict):
            body["chainInfo"]["network"] = "mainnet"


@register
class BalancesNameTheCChain(_Mutate):
    """Balances carry the C-Chain's chainId (43114) whatever chain the request names."""
    breaks = ("DATA-REL-006",)
    routes = (NATIVE, ERC20_BAL, ERC721_BAL, ERC1155_BAL)

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, lambda o: o.update(chainId="43114" if o["chainId"] != "43114" else "43113")
              if isinstance(o.get("chainId"), str) else None)


@register
class XChainAliasServedFromThePChain(_Rewrite):
    """The alias x-chain is answered from the P-Chain's index on the transaction, UTXO and block routes."""
    breaks = ("DATA-SEM-006",)
    routes = (TXS, UTXOS, BLOCKS)

    def rewrite(self, call: RestCall) -> RestCall:
        return _segment(call, "blockchainId", "p-chain") if call.path_params.get("blockchainId") == "x-chain" else call


# Boundaries and defaults ------------------------------------------------------------------------------------------

@register
class TransfersEndBlockOneEarly(_Rewrite):
    """Transfer lists stop one block before the block before endBlock (endBlock - 1 read as exclusive)."""
    breaks = ("DATA-FLT-023",)
    routes = TRANSFER_ROUTES

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("endBlock")
        return _set(call, endBlock=str(max(0, int(raw) - 1))) if raw and raw.isdigit() else call


@register
class ValidatorsDefaultPageOldestFirst(_Rewrite):
    """listValidators without pageSize lists the oldest validations first, unlike the same request with
    pageSize=10."""
    breaks = ("DATA-DEF-004",)
    routes = (VALIDATORS,)

    def rewrite(self, call: RestCall) -> RestCall:
        if call.first("pageSize") is None and call.first("sortOrder") is None:
            return _set(call, sortOrder="asc")
        return call


@register
class NativeBalanceDefaultPricesInEur(_DataFault):
    """getNativeBalance without currency states prices in eur, labelled usd."""
    breaks = ("DATA-DEF-016",)
    routes = (NATIVE,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if call.first("currency"):
            return proceed(call)
        reply = proceed(_set(call, currency="eur"))
        if reply.status == 200 and isinstance(reply.body, dict):
            _walk(reply.body, lambda o: o.update(currencyCode="usd") if "currencyCode" in o else None)
        return reply


@register
class PricesLabelledNotConverted(_DataFault):
    """Prices carry the requested currency's code but the usd value: the service never converts."""
    breaks = ("DATA-SEM-013",)
    routes = (DEPLOYMENT, ERC20_BAL, NATIVE)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        code = call.first("currency")
        if code not in CURRENCIES or code == "usd":   # an undocumented code is still refused
            return proceed(call)
        reply = proceed(_set(call, currency="usd"))
        if reply.status == 200 and isinstance(reply.body, dict):
            _walk(reply.body, lambda o: o.update(currencyCode=code) if "currencyCode" in o else None)
        return reply
