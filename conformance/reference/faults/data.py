"""Faults that break rules of the data catalogue."""
from __future__ import annotations

import copy
import json
from typing import Any, ClassVar
from collections.abc import Callable

from conformance.reference.calls import HttpReply, RestCall
from conformance.reference.data_api.pages import deviating
from conformance.reference.data_api.world import ALIASES, CHAIN_IDS, PRIMARY_NETWORK_ID, VERTEX_ERA_IDS
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RestProceed
from conformance.reference.rest import phrase

NET = "/v1/networks/{network}"
CHAIN = NET + "/blockchains/{blockchainId}"
ADDR = "/v1/chains/{chainId}/addresses/{address}"
UTXOS, TXS, BLOCKCHAINS = CHAIN + "/utxos", CHAIN + "/transactions", NET + "/blockchains"
VALIDATORS, BY_NODE = NET + "/validators", NET + "/validators/{nodeId}"
DEPLOYMENT = "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment"
ERC721_TXS, ERC1155_TXS = ADDR + "/transactions:listErc721", ADDR + "/transactions:listErc1155"
TRANSFERS = "/v1/chains/{chainId}/tokens/{address}/transfers"
ERC20_BAL, ERC1155_BAL = ADDR + "/balances:listErc20", ADDR + "/balances:listErc1155"
ERC721_BAL, NATIVE = ADDR + "/balances:listErc721", ADDR + "/balances:getNative"
VERTICES, BLOCKS = CHAIN + "/vertices:listByHeight", CHAIN + "/nodes/{nodeId}/blocks"
PRICED = (DEPLOYMENT, ERC20_BAL, NATIVE)
TRANSFER_ROUTES = (ERC721_TXS, ERC1155_TXS, TRANSFERS)
LISTS = {UTXOS: "utxos", TXS: "transactions", BLOCKCHAINS: "blockchains", VALIDATORS: "validators",
         BY_NODE: "validators", ERC721_TXS: "transactions", ERC1155_TXS: "transactions", TRANSFERS: "transfers",
         ERC20_BAL: "erc20TokenBalances", ERC1155_BAL: "erc1155TokenBalances", ERC721_BAL: "erc721TokenBalances",
         VERTICES: "vertices", BLOCKS: "blocks"}
KNOWN_CHAINS = {cid for ids in CHAIN_IDS.values() for cid in ids.values()} | set(VERTEX_ERA_IDS.values()) | set(ALIASES)


def _error(status: int, message: str) -> HttpReply:
    return HttpReply(status, {"message": message, "statusCode": status, "error": phrase(status)})


def _segment(call: RestCall, name: str, value: str) -> RestCall:
    """The call with one path parameter replaced (the service re-reads the path)."""
    old = call.path_params[name]
    template_parts, path_parts = call.route.split("/"), call.path.split("/")
    for i, part in enumerate(template_parts):
        if part.startswith("{" + name + "}") and path_parts[i].startswith(old):
            path_parts[i] = value + path_parts[i][len(old):]
    return call.with_(path="/".join(path_parts), path_params={**call.path_params, name: value})


def _walk(value: Any, change: Callable[[dict[str, Any]], None]) -> None:
    """Calls `change` on every object inside a JSON value."""
    if isinstance(value, dict):
        change(value)
        for member in list(value.values()):
            _walk(member, change)
    elif isinstance(value, list):
        for member in value:
            _walk(member, change)


class _DataFault(Fault):
    routes: ClassVar[tuple[str, ...]] = ()     # the route templates touched; empty: every data route

    def touches(self, call: RestCall) -> bool:
        return call.api == "data" and (not self.routes or call.route in self.routes)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return self.handle(call, proceed) if self.touches(call) else proceed(call)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return proceed(call)


class _Rewrite(_DataFault):
    """Changes the request before the service sees it."""

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return proceed(self.rewrite(call))

    def rewrite(self, call: RestCall) -> RestCall:
        return call


class _Deviate(_DataFault):
    """Switches on one of the service's named deviations."""

    deviation: ClassVar[str] = ""

    def when(self, call: RestCall) -> bool:
        return True

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if not self.when(call):
            return proceed(call)
        with deviating(self.deviation):
            return proceed(call)


class _Mutate(_DataFault):
    """Changes the body of a status 200 answer."""

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if reply.status == 200 and isinstance(reply.body, dict):
            # The service serves some items from its cache: change a copy, so a later answer is changed once.
            reply.body = copy.deepcopy(reply.body)
            self.mutate(reply.body)
        return reply

    def mutate(self, body: dict[str, Any]) -> None:
        pass


class _Items(_Mutate):
    """Changes every item of the list member."""

    def mutate(self, body: dict[str, Any]) -> None:
        for route, name in LISTS.items():
            if route in self.routes and isinstance(body.get(name), list):
                for item in body[name]:
                    self.item(item)

    def item(self, item: dict[str, Any]) -> None:
        pass


class _Errors(_DataFault):
    """Changes error answers."""

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        return self.error(reply) if reply.status >= 400 and isinstance(reply.body, dict) else reply

    def error(self, reply: HttpReply) -> HttpReply:
        return reply


def _query(call: RestCall, name: str) -> str | None:
    return call.first(name)


def _set(call: RestCall, **changes: str | None) -> RestCall:
    return call.with_query(**changes)


# ENV: JSON bodies -------------------------------------------------------------------------------------------

@register
class BlockchainsBodyNotJson(_DataFault):
    """listBlockchains writes NaN into its 200 body, which is not JSON."""
    breaks = ("DATA-ENV-001",)
    routes = (BLOCKCHAINS,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if reply.status != 200:
            return reply
        text = json.dumps(reply.body, separators=(",", ":"))[:-1] + ',"totalCount":NaN}'
        return HttpReply(200, raw=text.encode(), headers={"Content-Type": "application/json"})


@register
class OkBodyServedAsText(_DataFault):
    """Status 200 answers declare Content-Type text/plain."""
    breaks = ("DATA-ENV-002",)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if reply.status == 200:
            reply.headers["Content-Type"] = "text/plain; charset=utf-8"
        return reply


# SHP: shapes and formats ------------------------------------------------------------------------------------

@register
class UtxosChainInfoIsString(_Mutate):
    """listUtxos writes chainInfo as the chain name string instead of an object."""
    breaks = ("DATA-SHP-001",)
    routes = (UTXOS,)

    def mutate(self, body: dict[str, Any]) -> None:
        body["chainInfo"] = body["chainInfo"]["chainName"]


@register
class TransactionsChainInfoIsString(_Mutate):
    """listTransactions writes chainInfo as the chain name string instead of an object."""
    breaks = ("DATA-SHP-002",)
    routes = (TXS,)

    def mutate(self, body: dict[str, Any]) -> None:
        body["chainInfo"] = body["chainInfo"]["chainName"]


@register
class DeploymentInternalTransactionsNotArray(_Mutate):
    """getDeployment writes internalTransactions as a single object instead of an array."""
    breaks = ("DATA-SHP-003",)
    routes = (DEPLOYMENT,)

    def mutate(self, body: dict[str, Any]) -> None:
        body["internalTransactions"] = (body["internalTransactions"] or [{}])[0]


@register
class BlockchainEvmChainIdIsString(_Items):
    """listBlockchains writes evmChainId as a string."""
    breaks = ("DATA-SHP-004",)
    routes = (BLOCKCHAINS,)

    def item(self, item: dict[str, Any]) -> None:
        if "evmChainId" in item:
            item["evmChainId"] = str(item["evmChainId"])


@register
class ValidatorDelegatorCountIsString(_Items):
    """listValidators writes delegatorCount as a string."""
    breaks = ("DATA-SHP-005",)
    routes = (VALIDATORS,)

    def item(self, item: dict[str, Any]) -> None:
        item["delegatorCount"] = str(item["delegatorCount"])


@register
class NodeValidatorAmountStakedIsNumber(_Items):
    """getValidatorsByNode writes amountStaked as a JSON number."""
    breaks = ("DATA-SHP-006",)
    routes = (BY_NODE,)

    def item(self, item: dict[str, Any]) -> None:
        item["amountStaked"] = int(item["amountStaked"])


@register
class Erc721TransferLogIndexIsString(_Items):
    """listErc721Transactions writes logIndex as a string."""
    breaks = ("DATA-SHP-007",)
    routes = (ERC721_TXS,)

    def item(self, item: dict[str, Any]) -> None:
        item["logIndex"] = str(item["logIndex"])


@register
class Erc1155TransferValueIsNumber(_Items):
    """listErc1155Transactions writes value as a JSON number."""
    breaks = ("DATA-SHP-008",)
    routes = (ERC1155_TXS,)

    def item(self, item: dict[str, Any]) -> None:
        item["value"] = int(item["value"])


@register
class TokenTransfersListMisnamed(_Mutate):
    """listTokenTransfers returns its list as tokenTransfers instead of transfers."""
    breaks = ("DATA-SHP-009",)
    also = ("DATA-SHP-021", "DATA-LIM-008", "DATA-DEF-008", "DATA-PAG-001", "DATA-PAG-003", "DATA-PAG-004",
            "DATA-PAG-005", "DATA-PAG-006", "DATA-FLT-022", "DATA-FLT-023", "DATA-FLT-024", "DATA-FLT-025",
            "DATA-SEM-010")
    routes = (TRANSFERS,)

    def mutate(self, body: dict[str, Any]) -> None:
        body["tokenTransfers"] = body.pop("transfers")


@register
class Erc20BalanceDecimalsIsString(_Items):
    """listErc20Balances writes each balance's decimals as a string."""
    breaks = ("DATA-SHP-010",)
    routes = (ERC20_BAL,)

    def item(self, item: dict[str, Any]) -> None:
        item["decimals"] = str(item["decimals"])


@register
class Erc1155BalanceMetadataIsText(_Items):
    """listErc1155Balances writes metadata as a JSON-encoded string."""
    breaks = ("DATA-SHP-011",)
    routes = (ERC1155_BAL,)

    def item(self, item: dict[str, Any]) -> None:
        item["metadata"] = json.dumps(item["metadata"])


@register
class Erc721BalanceMetadataIsText(_Items):
    """listErc721Balances writes metadata as a JSON-encoded string."""
    breaks = ("DATA-SHP-012",)
    routes = (ERC721_BAL,)

    def item(self, item: dict[str, Any]) -> None:
        item["metadata"] = json.dumps(item["metadata"])


@register
class NativeBalanceDecimalsIsString(_Mutate):
    """getNativeBalance writes nativeTokenBalance.decimals as a string."""
    breaks = ("DATA-SHP-013",)
    routes = (NATIVE,)

    def mutate(self, body: dict[str, Any]) -> None:
        body["nativeTokenBalance"]["decimals"] = str(body["nativeTokenBalance"]["decimals"])


@register
class VertexTxCountIsString(_Items):
    """listVerticesByHeight writes txCount as a string."""
    breaks = ("DATA-SHP-014",)
    routes = (VERTICES,)

    def item(self, item: dict[str, Any]) -> None:
        item["txCount"] = str(item["txCount"])


@register
class BlockSizeIsString(_Items):
    """listBlocksByNode writes blockSizeBytes as a string."""
    breaks = ("DATA-SHP-015",)
    routes = (BLOCKS,)

    def item(self, item: dict[str, Any]) -> None:
        item["blockSizeBytes"] = str(item["blockSizeBytes"])


@register
class AssetAmountInWholeUnits(_Mutate):
    """Asset amounts are written in whole units with a fraction (\"1.5\") instead of the smallest unit."""
    breaks = ("DATA-SHP-016",)
    routes = (UTXOS, TXS)

    def mutate(self, body: dict[str, Any]) -> None:
        def change(obj: dict[str, Any]) -> None:
            if "assetId" in obj and "denomination" in obj and isinstance(obj.get("amount"), str):
                obj["amount"] = f"{int(obj['amount']) / 10 ** 9:.9f}"
        _walk(body, change)


@register
class CurrencyCodeUpperCase(_Mutate):
    """Price currency codes are written in upper case (USD)."""
    breaks = ("DATA-SHP-017",)
    routes = PRICED

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, lambda o: o.update(currencyCode=o["currencyCode"].upper()) if "currencyCode" in o else None)


@register
class PriceValueScientific(_Mutate):
    """Price values are written in scientific notation (1.129800e+02)."""
    breaks = ("DATA-SHP-018",)
    routes = PRICED

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, lambda o: o.update(value=f"{float(o['value']):e}") if "currencyCode" in o else None)


@register
class PriceValueIsNumber(_Mutate):
    """Price values are written as JSON numbers (112.98) instead of decimal strings, as the real service does."""
    breaks = ("DATA-SHP-018",)
    real = True

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, lambda o: o.update(value=float(o["value"])) if "currencyCode" in o and isinstance(
            o.get("value"), str) else None)


@register
class GenesisTimestampIsDate(_Mutate):
    """Genesis data timestamp is written as an RFC 3339 date instead of a hex string."""
    breaks = ("DATA-SHP-019",)
    routes = (BLOCKCHAINS, TXS)

    def mutate(self, body: dict[str, Any]) -> None:
        from conformance.reference.ids import rfc3339

        def change(obj: dict[str, Any]) -> None:
            if "alloc" in obj and isinstance(obj.get("timestamp"), str):
                obj["timestamp"] = rfc3339(int(obj["timestamp"], 16))
        _walk(body, change)


@register
class GenesisAllocBalanceIsFloat(_Mutate):
    """Genesis alloc balances are written as float text (1e+24) instead of hex."""
    breaks = ("DATA-SHP-020",)
    routes = (BLOCKCHAINS, TXS)

    def mutate(self, body: dict[str, Any]) -> None:
        def change(obj: dict[str, Any]) -> None:
            if "alloc" in obj and isinstance(obj["alloc"], dict):
                for entry in obj["alloc"].values():
                    entry["balance"] = str(float(int(entry["balance"], 16)))
        _walk(body, change)


@register
class Erc20TransferValueIsNumber(_Items):
    """listTokenTransfers for an ERC-20 contract writes value as a JSON number."""
    breaks = ("DATA-SHP-021",)
    routes = (TRANSFERS,)

    def item(self, item: dict[str, Any]) -> None:
        if "erc20Token" in item:
            item["value"] = int(item["value"])


# LIM: bounds ------------------------------------------------------------------------------------------------

class _PageSizeOverMax(_Rewrite):
    maximum: ClassVar[int] = 0

    def rewrite(self, call: RestCall) -> RestCall:
        return _set(call, pageSize=str(self.maximum)) if _query(call, "pageSize") == str(self.maximum + 1) else call


def _page_size_fault(name: str, rule: str, route: str, maximum: int) -> None:
    doc = f"{route.rsplit('/', 1)[-1]} serves pageSize {maximum + 1} as {maximum} instead of refusing it."
    register(type(name, (_PageSizeOverMax,), {"__doc__": doc, "breaks": (rule,), "routes": (route,),
                                               "maximum": maximum, "__module__": __name__}))


for _name, _rule, _route, _max in (
        ("UtxosPageSizeOverMaxServed", "DATA-LIM-001", UTXOS, 1024),
        ("TransactionsPageSizeOverMaxServed", "DATA-LIM-002", TXS, 100),
        ("BlockchainsPageSizeOverMaxServed", "DATA-LIM-003", BLOCKCHAINS, 10000),
        ("ValidatorsPageSizeOverMaxServed", "DATA-LIM-004", VALIDATORS, 100),
        ("NodeValidatorsPageSizeOverMaxServed", "DATA-LIM-005", BY_NODE, 100),
        ("Erc721TransfersPageSizeOverMaxServed", "DATA-LIM-006", ERC721_TXS, 100),
        ("Erc1155TransfersPageSizeOverMaxServed", "DATA-LIM-007", ERC1155_TXS, 100),
        ("TokenTransfersPageSizeOverMaxServed", "DATA-LIM-008", TRANSFERS, 100),
        ("Erc20BalancesPageSizeOverMaxServed", "DATA-LIM-009", ERC20_BAL, 500),
        ("Erc1155BalancesPageSizeOverMaxServed", "DATA-LIM-010", ERC1155_BAL, 500),
        ("Erc721BalancesPageSizeOverMaxServed", "DATA-LIM-011", ERC721_BAL, 500),
        ("VerticesPageSizeOverMaxServed", "DATA-LIM-012", VERTICES, 100),
        ("BlocksPageSizeOverMaxServed", "DATA-LIM-013", BLOCKS, 100)):
    _page_size_fault(_name, _rule, _route, _max)


@register
class UtxosPageSizeCappedAt100(_DataFault):
    """listUtxos refuses pageSize above 100 with a 400, below its documented maximum of 1024, as the real service
    does."""
    breaks = ("DATA-LIM-001",)
    real = True
    routes = (UTXOS,)
    cap: ClassVar[int] = 100

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        raw = _query(call, "pageSize")
        if raw is not None and raw.isdigit() and int(raw) > self.cap:
            return _error(400, f"pageSize must not be greater than {self.cap}")
        return proceed(call)


class _Clamp(_Rewrite):
    """Clamps out-of-range values of `names` into [low, high] instead of refusing them."""
    names: ClassVar[tuple[str, ...]] = ()
    low: ClassVar[float | None] = None
    high: ClassVar[float | None] = None

    def rewrite(self, call: RestCall) -> RestCall:
        for name in self.names:
            raw = _query(call, name)
            try:
                value = float(raw) if raw is not None else None
            except ValueError:
                continue
            if value is None:
                continue
            if self.low is not None and value < self.low:
                call = _set(call, **{name: _num(self.low)})
            elif self.high is not None and value > self.high:
                call = _set(call, **{name: _num(self.high)})
        return call


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


@register
class TransactionsNegativeStartAccepted(_Clamp):
    """listTransactions treats a negative startTimestamp as 0 instead of refusing it."""
    breaks = ("DATA-LIM-014",)
    routes, names, low = (TXS,), ("startTimestamp",), 0


@register
class TransactionsNegativeEndAccepted(_Clamp):
    """listTransactions treats a negative endTimestamp as 0 instead of refusing it."""
    breaks = ("DATA-LIM-015",)
    routes, names, low = (TXS,), ("endTimestamp",), 0


@register
class BlocksNegativeTimestampAccepted(_Clamp):
    """listBlocksByNode treats negative timestamps as 0 instead of refusing them."""
    breaks = ("DATA-LIM-016",)
    routes, names, low = (BLOCKS,), ("startTimestamp", "endTimestamp"), 0


@register
class NegativeVertexHeightAccepted(_Clamp):
    """listVerticesByHeight treats a negative vertexHeight as 0 instead of refusing it."""
    breaks = ("DATA-LIM-017",)
    routes, names, low = (VERTICES,), ("vertexHeight",), 0


@register
class NegativeMinUtxoAmountAccepted(_Clamp):
    """listUtxos treats a negative minUtxoAmount as 0 instead of refusing it."""
    breaks = ("DATA-LIM-018",)
    routes, names, low = (UTXOS,), ("minUtxoAmount",), 0


@register
class DelegationCapacityBoundsClamped(_Clamp):
    """listValidators clamps delegation capacity filters into range instead of refusing them."""
    breaks = ("DATA-LIM-019",)
    routes, names, low, high = (VALIDATORS,), ("minDelegationCapacity", "maxDelegationCapacity"), 0, None

    def rewrite(self, call: RestCall) -> RestCall:
        call = super().rewrite(call)
        for name in self.names:
            raw = _query(call, name)
            if raw is not None and raw.isdigit() and int(raw) > 720_000_000_000_000_000:
                call = _set(call, **{name: "720000000000000000"})
        return call


@register
class TimeRemainingBoundsClamped(_Clamp):
    """listValidators clamps time remaining filters into range instead of refusing them."""
    breaks = ("DATA-LIM-020",)
    routes, names, low, high = (VALIDATORS,), ("minTimeRemaining", "maxTimeRemaining"), 0, 2147483647


@register
class MinFeeBoundsClamped(_Clamp):
    """listValidators clamps minFeePercentage into 2..100 instead of refusing it."""
    breaks = ("DATA-LIM-021",)
    routes, names, low, high = (VALIDATORS,), ("minFeePercentage",), 2, 100


@register
class MaxFeeBoundsClamped(_Clamp):
    """listValidators clamps maxFeePercentage into 2..100 instead of refusing it."""
    breaks = ("DATA-LIM-022",)
    routes, names, low, high = (VALIDATORS,), ("maxFeePercentage",), 2, 100


@register
class MinUptimeBoundsClamped(_Clamp):
    """listValidators clamps minUptimePerformance into 0..100 instead of refusing it."""
    breaks = ("DATA-LIM-023",)
    routes, names, low, high = (VALIDATORS,), ("minUptimePerformance",), 0, 100


@register
class MaxUptimeBoundsClamped(_Clamp):
    """listValidators clamps maxUptimePerformance into 0..100 instead of refusing it."""
    breaks = ("DATA-LIM-024",)
    routes, names, low, high = (VALIDATORS,), ("maxUptimePerformance",), 0, 100


# DEF: defaults ----------------------------------------------------------------------------------------------

class _Default(_Rewrite):
    """Applies a wrong default when `name` is omitted."""
    name: ClassVar[str] = ""
    value: ClassVar[str] = ""

    def rewrite(self, call: RestCall) -> RestCall:
        return call if _query(call, self.name) not in (None, "") else _set(call, **{self.name: self.value})


def _default_fault(name: str, rule: str, route: str, param: str, value: str, doc: str) -> None:
    register(type(name, (_Default,), {"__doc__": doc, "breaks": (rule,), "routes": (route,), "name": param,
                                      "value": value, "__module__": __name__}))


for _name, _rule, _route, _value in (
        ("UtxosDefaultPageSizeWrong", "DATA-DEF-001", UTXOS, "25"),
        ("TransactionsDefaultPageSizeWrong", "DATA-DEF-002", TXS, "25"),
        ("BlockchainsDefaultPageSizeWrong", "DATA-DEF-003", BLOCKCHAINS, "50"),
        ("ValidatorsDefaultPageSizeWrong", "DATA-DEF-004", VALIDATORS, "25"),
        ("NodeValidatorsDefaultPageSizeWrong", "DATA-DEF-005", BY_NODE, "25"),
        ("Erc721TransfersDefaultPageSizeWrong", "DATA-DEF-006", ERC721_TXS, "25"),
        ("Erc1155TransfersDefaultPageSizeWrong", "DATA-DEF-007", ERC1155_TXS, "25"),
        ("TokenTransfersDefaultPageSizeWrong", "DATA-DEF-008", TRANSFERS, "25"),
        ("Erc20BalancesDefaultPageSizeWrong", "DATA-DEF-009", ERC20_BAL, "25"),
        ("Erc1155BalancesDefaultPageSizeWrong", "DATA-DEF-010", ERC1155_BAL, "20"),
        ("Erc721BalancesDefaultPageSizeWrong", "DATA-DEF-011", ERC721_BAL, "20"),
        ("VerticesDefaultPageSizeWrong", "DATA-DEF-012", VERTICES, "25"),
        ("BlocksDefaultPageSizeWrong", "DATA-DEF-013", BLOCKS, "25")):
    _default_fault(_name, _rule, _route, "pageSize", _value,
                   f"{_route.rsplit('/', 1)[-1]} serves {_value} items a page when pageSize is omitted.")



class _DefaultLostAfterPageOne(_Rewrite):
    """Applies a default one larger when pageSize is omitted on a page a token leads to (the first page is right)."""
    size: ClassVar[str] = ""

    def rewrite(self, call: RestCall) -> RestCall:
        if _query(call, "pageSize") not in (None, "") or _query(call, "pageToken") in (None, ""):
            return call
        return _set(call, pageSize=self.size)


for _name, _rule, _route, _size in (("TransactionsDefaultPageSizeLostAfterPageOne", "DATA-DEF-002", TXS, "11"),
                                    ("ValidatorsDefaultPageSizeLostAfterPageOne", "DATA-DEF-004", VALIDATORS,
                                     "11")):
    register(type(_name, (_DefaultLostAfterPageOne,), {
        "__doc__": f"{_route.rsplit('/', 1)[-1]} serves {_size} items on pages a token leads to when pageSize is "
                   "omitted (its first page holds the default).", "breaks": (_rule,), "routes": (_route,),
        "size": _size, "__module__": __name__}))

for _name, _rule, _route in (("DeploymentDefaultCurrencyEur", "DATA-DEF-014", DEPLOYMENT),
                             ("Erc20BalancesDefaultCurrencyEur", "DATA-DEF-015", ERC20_BAL),
                             ("NativeBalanceDefaultCurrencyEur", "DATA-DEF-016", NATIVE)):
    _default_fault(_name, _rule, _route, "currency", "eur",
                   f"{_route.rsplit('/', 1)[-1]} states prices in eur when currency is omitted.")

_default_fault("UtxosDefaultMinAmountSkipsDust", "DATA-DEF-017", UTXOS, "minUtxoAmount", "1000000",
               "listUtxos leaves out UTXOs below 1000000 when minUtxoAmount is omitted.")
_default_fault("SpamTokensShownByDefault", "DATA-DEF-018", ERC20_BAL, "filterSpamTokens", "false",
               "listErc20Balances does not filter spam tokens when filterSpamTokens is omitted.")
_default_fault("MinUptimeDefaultZero", "DATA-DEF-021", VALIDATORS, "minUptimePerformance", "0",
               "listValidators applies minUptimePerformance 0 instead of 90 when it is omitted.")
_default_fault("MaxUptimeDefaultTooLow", "DATA-DEF-022", VALIDATORS, "maxUptimePerformance", "95",
               "listValidators applies maxUptimePerformance 95 instead of 100 when it is omitted.")


@register
class Erc20BalancesStaleDefaultBlock(_Deviate):
    """listErc20Balances without blockNumber answers 1000 blocks behind the latest block."""
    breaks = ("DATA-DEF-019",)
    routes, deviation = (ERC20_BAL,), "stale-default-block"


@register
class NativeBalanceStaleDefaultBlock(_Deviate):
    """getNativeBalance without blockNumber answers 1000 blocks behind the latest block."""
    breaks = ("DATA-DEF-020",)
    routes, deviation = (NATIVE,), "stale-default-block"


# ENUM and REQ: enumerations and required parameters -----------------------------------------------------------

NETWORK_ROUTES = (UTXOS, TXS, BLOCKCHAINS, VALIDATORS, BY_NODE, VERTICES, BLOCKS)
CHAIN_ROUTES = (UTXOS, TXS, VERTICES, BLOCKS)


@register
class UnknownNetworkServedAsMainnet(_Rewrite):
    """An unknown network is served as mainnet instead of being refused."""
    breaks = ("DATA-ENUM-001",)
    routes = NETWORK_ROUTES

    def rewrite(self, call: RestCall) -> RestCall:
        known = call.path_params.get("network") in ("mainnet", "fuji", "testnet")
        return call if known else _segment(call, "network", "mainnet")


@register
class TestnetNetworkRefused(_DataFault):
    """The network name testnet is refused; only mainnet and fuji are served."""
    breaks = ("DATA-ENUM-002",)
    routes = NETWORK_ROUTES

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if call.path_params.get("network") == "testnet":
            return _error(400, "network must be one of the following values: mainnet, fuji")
        return proceed(call)


class _DropInvalid(_Rewrite):
    """Ignores a value of `name` outside `allowed` instead of refusing it."""
    name: ClassVar[str] = ""
    allowed: ClassVar[tuple[str, ...]] = ()

    def rewrite(self, call: RestCall) -> RestCall:
        raw = _query(call, self.name)
        return _set(call, **{self.name: None}) if raw not in (None, "") and raw not in self.allowed else call


@register
class UnknownSortOrderIgnored(_DropInvalid):
    """A sortOrder outside asc and desc is ignored instead of refused."""
    breaks = ("DATA-ENUM-003",)
    routes, name, allowed = (UTXOS, TXS, BLOCKCHAINS, VALIDATORS, BY_NODE, VERTICES), "sortOrder", ("asc", "desc")


CURRENCIES = ("usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd")


@register
class UnknownCurrencyServedInUsd(_DropInvalid):
    """An unknown currency is served in usd instead of refused."""
    breaks = ("DATA-ENUM-004",)
    routes, name, allowed = PRICED, "currency", CURRENCIES


@register
class SomeCurrenciesRefused(_DataFault):
    """The currencies clp, czk and huf are refused."""
    breaks = ("DATA-ENUM-005",)
    routes = PRICED

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _query(call, "currency") in ("clp", "czk", "huf"):
            return _error(400, "currency is not supported")
        return proceed(call)


STATUSES = ("completed", "active", "pending", "removed")


@register
class ValidatorsUnknownStatusIgnored(_DropInvalid):
    """listValidators ignores an unknown validationStatus instead of refusing it."""
    breaks = ("DATA-ENUM-006",)
    routes, name, allowed = (VALIDATORS,), "validationStatus", STATUSES


@register
class NodeValidatorsUnknownStatusIgnored(_DropInvalid):
    """getValidatorsByNode ignores an unknown validationStatus instead of refusing it."""
    breaks = ("DATA-ENUM-007",)
    routes, name, allowed = (BY_NODE,), "validationStatus", STATUSES


@register
class UtxosUnknownSortByIgnored(_DropInvalid):
    """listUtxos ignores an unknown sortBy instead of refusing it."""
    breaks = ("DATA-ENUM-008",)
    routes, name, allowed = (UTXOS,), "sortBy", ("timestamp", "amount")


@register
class UtxosSortByAmountRefused(_DataFault):
    """listUtxos refuses sortBy=amount."""
    breaks = ("DATA-ENUM-009",)
    also = ("DATA-PAG-011",)
    routes = (UTXOS,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _query(call, "sortBy") == "amount":
            return _error(400, "sortBy must be timestamp")
        return proceed(call)


@register
class ValidatorsUnknownSortByIgnored(_DropInvalid):
    """listValidators ignores an unknown sortBy instead of refusing it."""
    breaks = ("DATA-ENUM-010",)
    routes, name = (VALIDATORS,), "sortBy"
    allowed = ("blockIndex", "delegationCapacity", "timeRemaining", "delegationFee", "uptimePerformance")


@register
class ValidatorsSortByUptimeRefused(_DataFault):
    """listValidators refuses sortBy=uptimePerformance."""
    breaks = ("DATA-ENUM-011",)
    routes = (VALIDATORS,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _query(call, "sortBy") == "uptimePerformance":
            return _error(400, "sortBy must be blockIndex, delegationCapacity, timeRemaining or delegationFee")
        return proceed(call)


@register
class UnknownBlockchainServedAsPChain(_Rewrite):
    """An unknown blockchainId is served as the P-Chain instead of refused."""
    breaks = ("DATA-ENUM-012",)
    routes = CHAIN_ROUTES

    def rewrite(self, call: RestCall) -> RestCall:
        known = call.path_params.get("blockchainId") in KNOWN_CHAINS
        return call if known else _segment(call, "blockchainId", "x-chain" if call.route == VERTICES else "p-chain")


@register
class VertexHeightDefaultsToZero(_Default):
    """listVerticesByHeight without vertexHeight serves height 0 instead of refusing the request."""
    breaks = ("DATA-REQ-001",)
    routes, name, value = (VERTICES,), "vertexHeight", "0"


@register
class UtxosWithoutAddressesServeNothing(_Rewrite):
    """listUtxos without addresses answers an empty list instead of refusing the request."""
    breaks = ("DATA-REQ-002",)
    routes = (UTXOS,)

    def rewrite(self, call: RestCall) -> RestCall:
        body = call.body
        if isinstance(body, dict) and isinstance(body.get("addresses"), str) and body["addresses"].strip():
            return call
        return call.with_(body={"addresses": "avax1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"})


# ERR: error bodies ------------------------------------------------------------------------------------------

@register
class ErrorBodyIsText(_Errors):
    """Error answers carry the bare phrase as text, not a JSON object."""
    breaks = ("DATA-ERR-001",)
    also = ("DATA-ERR-003", "DATA-ERR-004", "DATA-ERR-005", "DATA-ERR-006", "DATA-ERR-007")

    def error(self, reply: HttpReply) -> HttpReply:
        return HttpReply(reply.status, raw=phrase(reply.status).encode(), headers={"Content-Type": "application/json"})


@register
class ErrorServedAsHtml(_Errors):
    """Error answers declare Content-Type text/html."""
    breaks = ("DATA-ERR-002",)

    def error(self, reply: HttpReply) -> HttpReply:
        reply.headers["Content-Type"] = "text/html; charset=utf-8"
        return reply


@register
class ErrorMessageIsList(_Errors):
    """Error bodies carry message as a list of strings, as the real service does for a 400."""
    breaks = ("DATA-ERR-003",)
    real = True

    def error(self, reply: HttpReply) -> HttpReply:
        reply.body["message"] = [reply.body["message"]]
        return reply


@register
class ErrorStatusCodeIsString(_Errors):
    """Error bodies carry statusCode as a string."""
    breaks = ("DATA-ERR-004",)

    def error(self, reply: HttpReply) -> HttpReply:
        reply.body["statusCode"] = str(reply.body["statusCode"])
        return reply


@register
class NotFoundBodySays400(_Errors):
    """404 answers carry statusCode 400 in the body."""
    breaks = ("DATA-ERR-005",)

    def error(self, reply: HttpReply) -> HttpReply:
        if reply.status == 404:
            reply.body["statusCode"] = 400
        return reply


@register
class ErrorPhraseMissing(_Errors):
    """Error bodies carry error as null."""
    breaks = ("DATA-ERR-006",)
    also = ("DATA-ERR-007",)

    def error(self, reply: HttpReply) -> HttpReply:
        reply.body["error"] = None
        return reply


@register
class BadRequestPhraseWrong(_Errors):
    """400 answers carry the phrase BadRequest instead of Bad Request."""
    breaks = ("DATA-ERR-007",)

    def error(self, reply: HttpReply) -> HttpReply:
        if reply.status == 400:
            reply.body["error"] = "BadRequest"
        return reply


@register
class BadRequestsAre422(_Errors):
    """Refused requests answer 422 Unprocessable Entity instead of a listed status."""
    breaks = ("DATA-ERR-008",)
    also = ("DATA-ERR-007",)

    def error(self, reply: HttpReply) -> HttpReply:
        if reply.status != 400:
            return reply
        return HttpReply(422, {**reply.body, "statusCode": 422, "error": phrase(422)}, headers=reply.headers)


# PAG: pagination and order ----------------------------------------------------------------------------------

ALL_LISTS = tuple(LISTS)


@register
class BlockchainsPageOverfull(_Rewrite):
    """listBlockchains serves one item more than the pageSize asked for."""
    breaks = ("DATA-PAG-001",)
    also = ("DATA-DEF-003",)
    routes = (BLOCKCHAINS,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = _query(call, "pageSize")
        return _set(call, pageSize=str(int(raw) + 1)) if raw and raw.isdigit() and 0 < int(raw) < 10000 else call


@register
class ValidatorsTokenMissing(_Mutate):
    """listValidators never carries nextPageToken, even when more validators exist."""
    breaks = ("DATA-PAG-003",)
    also = ("DATA-PAG-005", "DATA-PAG-006", "DATA-PAG-007")
    routes = (VALIDATORS,)

    def mutate(self, body: dict[str, Any]) -> None:
        body.pop("nextPageToken", None)


@register
class TokenOnLastPage(_Deviate):
    """The last page of a list still carries a nextPageToken (which leads to an empty page)."""
    breaks = ("DATA-PAG-004",)
    routes, deviation = ALL_LISTS, "token-on-last-page"


@register
class TokenSkipsAPage(_DataFault):
    """A request with a pageToken answers the page after the following one."""
    breaks = ("DATA-PAG-005",)
    routes = ALL_LISTS

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if call.first("pageToken") and reply.status == 200 and reply.body.get("nextPageToken"):
            return proceed(_set(call, pageToken=reply.body["nextPageToken"]))
        return reply


@register
class PagesOverlapByOne(_Deviate):
    """Each following page starts with the last item of the page before."""
    breaks = ("DATA-PAG-006",)
    routes, deviation = ALL_LISTS, "overlapping-pages"


@register
class PagesSortedOnlyWithin(_Deviate):
    """Pages are cut from the unsorted store and sorted one by one, so the order breaks between pages."""
    breaks = ("DATA-PAG-007",)
    also = ("DATA-PAG-008", "DATA-PAG-009", "DATA-PAG-010", "DATA-PAG-011", "DATA-PAG-012", "DATA-PAG-013")
    routes, deviation = ALL_LISTS, "unordered-walk"


class _Replace(_Rewrite):
    """Replaces one value of a query parameter by another."""
    name: ClassVar[str] = ""
    old: ClassVar[str] = ""
    new: ClassVar[str] = ""

    def rewrite(self, call: RestCall) -> RestCall:
        return _set(call, **{self.name: self.new}) if _query(call, self.name) == self.old else call


@register
class AscendingOrderIgnored(_Replace):
    """sortOrder=asc answers newest first."""
    breaks = ("DATA-PAG-008",)
    also = ("DATA-PAG-007",)
    routes, name, old, new = (TXS, BLOCKCHAINS, VERTICES), "sortOrder", "asc", "desc"


@register
class DescendingOrderIgnored(_Replace):
    """sortOrder=desc answers oldest first."""
    breaks = ("DATA-PAG-009",)
    also = ("DATA-PAG-007",)
    routes, name, old, new = (TXS, BLOCKCHAINS, VERTICES), "sortOrder", "desc", "asc"


@register
class BlockchainsDescendingPagesReversed(_Mutate):
    """listBlockchains with sortOrder=desc cuts its pages newest first but lists each page's items oldest first."""
    breaks = ("DATA-PAG-009",)
    routes = (BLOCKCHAINS,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return super().handle(call, proceed) if _query(call, "sortOrder") == "desc" else proceed(call)

    def mutate(self, body: dict[str, Any]) -> None:
        if isinstance(body.get("blockchains"), list):
            body["blockchains"].reverse()


@register
class UtxosSortByTimestampIgnored(_Replace):
    """listUtxos with sortBy=timestamp sorts by amount."""
    breaks = ("DATA-PAG-010",)
    routes, name, old, new = (UTXOS,), "sortBy", "timestamp", "amount"


@register
class UtxosSortByAmountIgnored(_Replace):
    """listUtxos with sortBy=amount sorts by timestamp."""
    breaks = ("DATA-PAG-011",)
    routes, name, old, new = (UTXOS,), "sortBy", "amount", "timestamp"


@register
class ValidatorsSortByTimeRemainingIgnored(_Replace):
    """listValidators with sortBy=timeRemaining sorts by block index."""
    breaks = ("DATA-PAG-012",)
    routes, name, old, new = (VALIDATORS,), "sortBy", "timeRemaining", "blockIndex"


@register
class ValidatorsSortByFeeIgnored(_Replace):
    """listValidators with sortBy=delegationFee sorts by block index."""
    breaks = ("DATA-PAG-013",)
    routes, name, old, new = (VALIDATORS,), "sortBy", "delegationFee", "blockIndex"


# FLT: filters -----------------------------------------------------------------------------------------------

class _Drop(_Rewrite):
    """Ignores query parameters `names` (when `when` holds)."""
    names: ClassVar[tuple[str, ...]] = ()

    def when(self, call: RestCall) -> bool:
        return True

    def rewrite(self, call: RestCall) -> RestCall:
        return _set(call, **{name: None for name in self.names}) if self.when(call) else call


@register
class ValidatorsStatusFilterIgnored(_Drop):
    """listValidators ignores validationStatus (a documented status is still checked, then not applied)."""
    breaks = ("DATA-FLT-001",)
    routes, names = (VALIDATORS,), ("validationStatus",)

    def when(self, call: RestCall) -> bool:
        return call.first("validationStatus") in STATUSES


@register
class NodeValidatorsStatusFilterIgnored(_Drop):
    """getValidatorsByNode ignores validationStatus (a documented status is still checked, then not applied)."""
    breaks = ("DATA-FLT-002",)
    routes, names = (BY_NODE,), ("validationStatus",)

    def when(self, call: RestCall) -> bool:
        return call.first("validationStatus") in STATUSES


@register
class ValidatorsNodeIdsFilterIgnored(_Drop):
    """listValidators ignores nodeIds."""
    breaks = ("DATA-FLT-003",)
    also = ("DATA-FLT-004", "DATA-FLT-005")
    routes, names = (VALIDATORS,), ("nodeIds",)


@register
class NodeIdsMatchedExactly(_Mutate):
    """listValidators matches nodeIds exactly instead of by substring."""
    breaks = ("DATA-FLT-004",)
    routes = (VALIDATORS,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        wanted = {part.strip() for part in (call.first("nodeIds") or "").split(",") if part.strip()}
        reply = proceed(call)
        if wanted and reply.status == 200:
            reply.body["validators"] = [v for v in reply.body["validators"] if v["nodeId"] in wanted]
        return reply


@register
class NodeIdsOnlyFirstUsed(_Rewrite):
    """listValidators uses only the first of comma-separated nodeIds."""
    breaks = ("DATA-FLT-005",)
    routes = (VALIDATORS,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("nodeIds")
        return _set(call, nodeIds=raw.split(",")[0]) if raw and "," in raw else call


@register
class SubnetFilterIgnored(_Drop):
    """listValidators ignores subnetId (unless sorting by delegationFee)."""
    breaks = ("DATA-FLT-006",)
    routes, names = (VALIDATORS,), ("subnetId",)

    def when(self, call: RestCall) -> bool:
        return call.first("sortBy") != "delegationFee"


@register
class PrimaryNetworkOnlyWithoutSubnet(_Rewrite):
    """listValidators without subnetId returns only primary network validations."""
    breaks = ("DATA-FLT-007",)
    routes = (VALIDATORS,)

    def rewrite(self, call: RestCall) -> RestCall:
        return call if call.first("subnetId") else _set(call, subnetId=PRIMARY_NETWORK_ID)


@register
class MinFeeKeepsSubnetValidations(_Deviate):
    """listValidators with minFeePercentage still returns subnet validations (null fee)."""
    breaks = ("DATA-FLT-008",)
    routes, deviation = (VALIDATORS,), "subnet-fee-null-kept"

    def when(self, call: RestCall) -> bool:
        return bool(call.first("minFeePercentage")) and not call.first("maxFeePercentage")


@register
class MaxFeeKeepsSubnetValidations(_Deviate):
    """listValidators with maxFeePercentage still returns subnet validations (null fee)."""
    breaks = ("DATA-FLT-009",)
    routes, deviation = (VALIDATORS,), "subnet-fee-null-kept"

    def when(self, call: RestCall) -> bool:
        return bool(call.first("maxFeePercentage"))


@register
class MinFeeValueIgnored(_Rewrite):
    """listValidators applies minFeePercentage as 2 whatever value is given."""
    breaks = ("DATA-FLT-010",)
    routes = (VALIDATORS,)

    def rewrite(self, call: RestCall) -> RestCall:
        return _set(call, minFeePercentage="2") if _within(call.first("minFeePercentage"), 2, 100) else call


@register
class MaxFeeValueIgnored(_Rewrite):
    """listValidators applies maxFeePercentage as 100 whatever value is given."""
    breaks = ("DATA-FLT-011",)
    routes = (VALIDATORS,)

    def rewrite(self, call: RestCall) -> RestCall:
        return _set(call, maxFeePercentage="100") if _within(call.first("maxFeePercentage"), 2, 100) else call


def _within(raw: str | None, low: float, high: float) -> bool:
    """Whether a query value is a number in the documented range: a fault of a filter's meaning still checks it."""
    try:
        return raw is not None and low <= float(raw) <= high
    except ValueError:
        return False


class _WithAddresses(_Drop):
    routes = (TXS,)

    def when(self, call: RestCall) -> bool:
        return bool(call.first("addresses"))


class _WithL1Only(_Drop):
    routes = (TXS,)

    def when(self, call: RestCall) -> bool:
        return bool(call.first("l1ValidationId")) and not call.first("addresses")


@register
class TransactionsStartIgnored(_WithAddresses):
    """listTransactions with addresses ignores startTimestamp."""
    breaks = ("DATA-FLT-013",)
    also = ("DATA-LIM-014",)   # a filter ignored is not checked either: -1 is served
    names = ("startTimestamp",)


@register
class TransactionsEndIgnored(_WithAddresses):
    """listTransactions with addresses ignores endTimestamp."""
    breaks = ("DATA-FLT-014",)
    also = ("DATA-LIM-015",)   # a filter ignored is not checked either: -1 is served
    names = ("endTimestamp",)


@register
class BlocksStartIgnored(_Drop):
    """listBlocksByNode ignores startTimestamp."""
    breaks = ("DATA-FLT-015",)
    also = ("DATA-LIM-016",)   # a filter ignored is not checked either: -1 is served
    routes, names = (BLOCKS,), ("startTimestamp",)


@register
class BlocksEndIgnored(_Drop):
    """listBlocksByNode ignores endTimestamp."""
    breaks = ("DATA-FLT-016",)
    also = ("DATA-LIM-016",)   # a filter ignored is not checked either: -1 is served
    routes, names = (BLOCKS,), ("endTimestamp",)


@register
class TransactionsTxTypesIgnored(_WithAddresses):
    """listTransactions with addresses ignores txTypes."""
    breaks = ("DATA-FLT-018",)
    names = ("txTypes",)


@register
class L1TransactionsTxTypesIgnored(_WithL1Only):
    """listTransactions with l1ValidationId ignores txTypes."""
    breaks = ("DATA-FLT-019",)
    names = ("txTypes",)


@register
class L1TransactionsTimestampsIgnored(_WithL1Only):
    """listTransactions with l1ValidationId ignores startTimestamp and endTimestamp."""
    breaks = ("DATA-FLT-020",)
    names = ("startTimestamp", "endTimestamp")


class _Shift(_Rewrite):
    routes = TRANSFER_ROUTES

    def shifted(self, call: RestCall, name: str, by: int, base: str | None = None) -> RestCall:
        raw = call.first(base or name)
        return _set(call, **{name: str(max(0, int(raw) + by))}) if raw and raw.isdigit() else call


@register
class StartBlockExclusive(_Shift):
    """Transfer lists treat startBlock as exclusive."""
    breaks = ("DATA-FLT-022",)

    def rewrite(self, call: RestCall) -> RestCall:
        return self.shifted(call, "startBlock", 1)


@register
class EndBlockInclusive(_Shift):
    """Transfer lists treat endBlock as inclusive."""
    breaks = ("DATA-FLT-023",)

    def rewrite(self, call: RestCall) -> RestCall:
        return self.shifted(call, "endBlock", 1)


@register
class StartBlockAloneEndsEarly(_Shift):
    """Transfer lists with startBlock alone end 100 blocks later instead of at the latest block."""
    breaks = ("DATA-FLT-024",)

    def rewrite(self, call: RestCall) -> RestCall:
        return call if call.first("endBlock") else self.shifted(call, "endBlock", 100, base="startBlock")


@register
class EndBlockAloneStartsLate(_Shift):
    """Transfer lists with endBlock alone start 100 blocks earlier instead of at genesis."""
    breaks = ("DATA-FLT-025",)

    def rewrite(self, call: RestCall) -> RestCall:
        return call if call.first("startBlock") else self.shifted(call, "startBlock", -100, base="endBlock")


@register
class Erc20ContractFilterIgnored(_Drop):
    """listErc20Balances ignores contractAddresses."""
    breaks = ("DATA-FLT-026",)
    routes, names = (ERC20_BAL,), ("contractAddresses",)


@register
class Erc1155ContractFilterIgnored(_Drop):
    """listErc1155Balances ignores contractAddress."""
    breaks = ("DATA-FLT-027",)
    routes, names = (ERC1155_BAL,), ("contractAddress",)


@register
class Erc721ContractFilterIgnored(_Drop):
    """listErc721Balances ignores contractAddress."""
    breaks = ("DATA-FLT-028",)
    routes, names = (ERC721_BAL,), ("contractAddress",)


@register
class SpamFilterInverted(_Deviate):
    """listErc20Balances with filterSpamTokens=false returns only the spam tokens."""
    breaks = ("DATA-FLT-029",)
    routes, deviation = (ERC20_BAL,), "spam-inverted"


@register
class UtxosAssetFilterIgnored(_Drop):
    """listUtxos ignores assetId."""
    breaks = ("DATA-FLT-031",)
    routes, names = (UTXOS,), ("assetId",)


@register
class MinUtxoAmountExclusive(_Rewrite):
    """listUtxos leaves out UTXOs whose amount equals minUtxoAmount."""
    breaks = ("DATA-FLT-033",)
    routes = (UTXOS,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("minUtxoAmount")
        try:
            return _set(call, minUtxoAmount=_num(float(raw) + 1)) if raw and float(raw) >= 0 else call
        except ValueError:
            return call


@register
class SpentUtxosAlwaysListed(_Replace):
    """listUtxos with includeSpent=false still lists spent UTXOs."""
    breaks = ("DATA-FLT-034",)
    routes, name, old, new = (UTXOS,), "includeSpent", "false", "true"


@register
class IncludeSpentListsSpentOnly(_Deviate):
    """listUtxos with includeSpent=true lists only spent UTXOs."""
    breaks = ("DATA-FLT-035",)
    routes, deviation = (UTXOS,), "spent-only"


@register
class UtxosOfOtherOwners(_Deviate):
    """listUtxos also lists the UTXOs of an address that is not in the body."""
    breaks = ("DATA-FLT-036",)
    routes, deviation = (UTXOS,), "utxo-owner-ignored"


@register
class NodeValidatorsOfEveryNode(_Deviate):
    """getValidatorsByNode returns the validations of every node."""
    breaks = ("DATA-FLT-037",)
    routes, deviation = (BY_NODE,), "node-ignored"


@register
class BlocksOfAnotherProposer(_Deviate):
    """listBlocksByNode also returns blocks proposed by another node."""
    breaks = ("DATA-FLT-038",)
    routes, deviation = (BLOCKS,), "proposer-ignored"


# SEM: identifiers and aliases -------------------------------------------------------------------------------

class _DropNewest(_Mutate):
    """Serves the list without its first item (a lagging replica)."""

    def mutate(self, body: dict[str, Any]) -> None:
        for name in set(LISTS.values()):
            if isinstance(body.get(name), list) and body[name]:
                body[name] = body[name][1:]


@register
class FujiServedFromLaggingReplica(_DropNewest):
    """Requests naming fuji are served from a replica that lacks the first item of each list."""
    breaks = ("DATA-SEM-001",)
    routes = NETWORK_ROUTES

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return super().handle(call, proceed) if call.path_params.get("network") == "fuji" else proceed(call)


@register
class VerticesServedForAnyChain(_Rewrite):
    """listVerticesByHeight serves X-Chain vertices for P-Chain and C-Chain IDs and aliases."""
    breaks = ("DATA-SEM-002",)
    routes = (VERTICES,)

    def rewrite(self, call: RestCall) -> RestCall:
        given = call.path_params.get("blockchainId", "")
        other = given in ("p-chain", "c-chain") or any(given in (ids["p"], ids["c"]) for ids in CHAIN_IDS.values())
        return _segment(call, "blockchainId", "x-chain") if other else call


@register
class VertexEraIdRefused(_DataFault):
    """listVerticesByHeight refuses the X-Chain vertex-era ID."""
    breaks = ("DATA-SEM-003",)
    routes = (VERTICES,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if call.path_params.get("blockchainId") in VERTEX_ERA_IDS.values():
            return _error(400, "blockchainId is not supported")
        return proceed(call)


@register
class ChainAliasesRefused(_DataFault):
    """The aliases p-chain, x-chain and c-chain are refused as blockchainId."""
    breaks = ("DATA-SEM-005",)
    also = ("DATA-SEM-006", "DATA-SEM-002", "DATA-SEM-003")
    routes = CHAIN_ROUTES

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if call.path_params.get("blockchainId") in ALIASES:
            return _error(400, "blockchainId must be a blockchain ID")
        return proceed(call)


@register
class AliasServedFromStaleCache(_DropNewest):
    """A chain alias is served from a stale cache that lacks the first item of each list."""
    breaks = ("DATA-SEM-006",)
    routes = CHAIN_ROUTES

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        alias = call.path_params.get("blockchainId") in ALIASES
        return super().handle(call, proceed) if alias else proceed(call)


@register
class PrefixedAddressesIgnored(_Rewrite):
    """listTransactions ignores addresses that carry a chain letter prefix."""
    breaks = ("DATA-SEM-008",)
    routes = (TXS,)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("addresses")
        if not raw:
            return call
        kept = [a for a in raw.split(",") if not (len(a) > 2 and a[1] == "-" and a[0] in "PXCpxc")]
        return _set(call, addresses=",".join(kept) or None)


@register
class EvmAddressesRefused(_DataFault):
    """listTransactions refuses 0x EVM addresses on the C-Chain."""
    breaks = ("DATA-SEM-009",)
    routes = (TXS,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if "0x" in (call.first("addresses") or "").lower():
            return _error(400, "addresses must be bech32 addresses")
        return proceed(call)


@register
class BlockchainIdChainNotFound(_DataFault):
    """EVM routes answer 404 for a blockchain ID given as chainId."""
    breaks = ("DATA-SEM-010",)
    routes = (DEPLOYMENT, ERC721_TXS, ERC1155_TXS, TRANSFERS, ERC20_BAL, ERC1155_BAL, ERC721_BAL, NATIVE)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if not call.path_params.get("chainId", "").isdigit():
            return _error(404, f"chain {call.path_params.get('chainId')} not found")
        return proceed(call)


@register
class DeploymentWithoutNativeTransaction(_Mutate):
    """getDeployment leaves out nativeTransaction, the deploying transaction."""
    breaks = ("DATA-SEM-011",)
    routes = (DEPLOYMENT,)

    def mutate(self, body: dict[str, Any]) -> None:
        body.pop("nativeTransaction", None)


@register
class CurrencyCodeAlwaysUsd(_Mutate):
    """Prices carry currencyCode usd whatever currency was requested."""
    breaks = ("DATA-SEM-013",)
    routes = PRICED

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, lambda o: o.update(currencyCode="usd") if "currencyCode" in o else None)


@register
class NativeBalanceColonRouteMissing(_DataFault):
    """The literal path .../balances:getNative is not served (404)."""
    breaks = ("DATA-SEM-015",)
    also = ("DATA-SHP-013", "DATA-SHP-017", "DATA-SHP-018", "DATA-DEF-016", "DATA-DEF-020", "DATA-ENUM-004",
            "DATA-ENUM-005", "DATA-SEM-010", "DATA-SEM-013")
    routes = (NATIVE,)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return _error(404, f"Cannot GET {call.path}")


# AUTH -------------------------------------------------------------------------------------------------------

@register
class KeyedRequestsRefused(_DataFault):
    """Requests carrying an x-data-api-key header are refused with 401."""
    breaks = ("DATA-AUTH-001",)

    def handle(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if "x-data-api-key" in call.headers:
            return _error(401, "invalid API key")
        return proceed(call)
