"""Named variants: answers a real node gives where the documents leave it free, which the suite must accept.

Faults prove each check can fail; variants prove the checks do not fail where the documents are silent or
permissive. A variant wraps the reference's handlers exactly like a fault, breaks no rule, and names the rules
whose tests read what it changes (`reads`), so a self-test can run just those tests and expect them to pass.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

from conformance import specs
from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.middleware import RpcHttpProceed, RpcProceed
from conformance.reference.variant_catalogue import VARIANTS, Variant, variant
# The same middleware the faults use: a variant differs in what it changes, never in how it hooks in.
from conformance.reference.faults.data import _Mutate, _walk
from conformance.reference.faults.rpc_shared import _Containers, _Result, _error_objects


def all_variants() -> list[type[Variant]]:
    # The Metrics API's variants live beside its reference, and register themselves when imported.
    import conformance.reference.metrics_api.variants  # noqa: F401

    return list(VARIANTS.values())


@variant
class BrandedRulesMember(Variant, _Result):
    """eth_getActiveRulesAt names networkRules after the network's brand, as nodes do."""

    methods = ("eth_getActiveRulesAt",)
    reads = ("RPC-EVM-022", "RPC-EVM-023", "RPC-EVM-024", "RPC-EVM-025", "RPC-EVM-026", "RPC-EVM-027", "RPC-EVM-037")
    allowed_by = "the identifier of this member carries a neutral word in place of the network's brand name"

    def patch(self, result: Any, call: RpcCall) -> Any:
        if isinstance(result, dict) and "networkRules" in result:
            result["brandRules"] = result.pop("networkRules")
        return result


@variant
class ChainConfigLeavesOutEmptyMembers(Variant, _Result):
    """eth_getChainConfig and eth_getActivePrecompilesAt leave out false, empty and retired members."""

    methods = ("eth_getChainConfig", "eth_getActivePrecompilesAt")
    reads = ("RPC-EVM-008", "RPC-EVM-009", "RPC-EVM-010", "RPC-EVM-011", "RPC-EVM-012", "RPC-EVM-013",
             "RPC-EVM-014", "RPC-EVM-015", "RPC-EVM-016", "RPC-EVM-017", "RPC-EVM-018", "RPC-EVM-019",
             "RPC-EVM-020", "RPC-EVM-021", "RPC-EVM-028", "RPC-EVM-029", "RPC-ENV-014", "RPC-EVM-038")
    allowed_by = "the chain config table gives each member's type, not that it is always present"

    def patch(self, result: Any, call: RpcCall) -> Any:
        if not isinstance(result, dict):
            return result
        if "chainId" not in result:  # eth_getActivePrecompilesAt: a map of precompile configs
            return {name: _without_admins(config) for name, config in result.items()}
        result.pop("eip150Hash", None)
        if result.get("allowFeeRecipients") is False:
            del result["allowFeeRecipients"]
        for name, value in list(result.items()):
            if name.endswith("Config") and name != "feeConfig":
                result[name] = _without_admins(value)
        result["upgrades"] = {}
        return result


def _without_admins(config: Any) -> Any:
    return {k: v for k, v in config.items() if k != "adminAddresses"} if isinstance(config, dict) else config


@variant
class EncodingIgnoredWhereNothingIsEncoded(Variant):
    """index.getIndex and index.isAccepted ignore the encoding: their results carry nothing encoded."""

    reads = ("RPC-IDX-041", "RPC-IDX-015", "RPC-ENV-001", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007",
             "RPC-ENV-015")
    allowed_by = "RPC-IDX-041: the results of index.getIndex and index.isAccepted carry nothing encoded"

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method in ("index.getIndex", "index.isAccepted") and isinstance(call.params, dict):
            call = call.with_(params={k: v for k, v in call.params.items() if k != "encoding"} | {"encoding": "hex"})
        return proceed(call)


@variant
class EncodingReadWithoutCase(Variant):
    """The Index API reads the encoding without regard to case: "HEX" is hex."""

    reads = ("RPC-IDX-015", "RPC-IDX-004", "RPC-ENV-001", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007",
             "RPC-ENV-015")
    allowed_by = "another spelling of hex is not another encoding; the document does not ask for one case"

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.api == "index" and isinstance(call.params, dict) and isinstance(call.params.get("encoding"), str):
            call = call.with_(params={**call.params, "encoding": call.params["encoding"].lower()})
        return proceed(call)


@variant
class OmittedRequiredParamsRefused(Variant):
    """Standard eth methods refuse a call that leaves out a parameter the execution-apis require, as geth-based
    nodes, ganache and hardhat do ("missing value for required argument")."""

    reads = tuple(f"RPC-ETH-{n:03d}" for n in range(1, 25))
    allowed_by = "the document invokes the standard Ethereum methods, whose specification requires these parameters"

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        listed = specs.execution_apis().get(call.method)
        if listed is not None and isinstance(call.params, list):
            required = sum(1 for _, needed in listed["params"] if needed)
            if len(call.params) < required:
                return {"jsonrpc": "2.0", "id": call.id, "error": {
                    "code": -32602, "message": f"missing value for required argument {len(call.params)}"}}
        return proceed(call)


@variant
class UnknownValidatorIsAnError(Variant):
    """validators.getCurrentValidators refuses a nodeIDs list naming a node that is not a current validator."""

    reads = ("RPC-VAL-013", "RPC-VAL-014", "RPC-VAL-015", "RPC-VAL-016", "RPC-VAL-017", "RPC-VAL-019")
    allowed_by = "RPC-VAL-017: what a node ID that is not a current validator gives is not shown"
    # An operator may name their own node, which need not be a validator.
    samples = {"validator_node_id": "NodeID-111111111111111111116DBWJs"}

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        wanted = call.params.get("nodeIDs") if isinstance(call.params, dict) else None
        if call.method != "validators.getCurrentValidators" or not wanted or reply is None or "result" not in reply:
            return reply
        current = {v.get("nodeID") for v in reply["result"].get("validators", [])}
        missing = [node for node in wanted if node not in current]
        if missing:
            return {"jsonrpc": "2.0", "id": reply.get("id"),
                    "error": {"code": -32000, "message": f"couldn't find validator with node ID {missing[0]}"}}
        return reply


@variant
class NullForValuesNotKnown(Variant, _Mutate):
    """The Data API writes null, instead of leaving the member out, for a token value it does not know."""

    members: ClassVar[tuple[str, ...]] = ("tokenReputation", "logoUri", "price", "balanceValue", "tokenUri")
    reads = tuple(f"DATA-SHP-{n:03d}" for n in (*range(1, 16), 17, 18, 21))
    allowed_by = "Which response fields are always present and which may be omitted: not shown."

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, self.null)

    def null(self, obj: dict[str, Any]) -> None:
        obj.update({name: None for name in self.members if name in obj})


# --- node JSON-RPC APIs ---

@variant
class NodeErrorsAllServerError(Variant):
    """Every error object of the node's APIs carries code -32000 and "data": null, whatever went wrong."""

    reads = ("RPC-ENV-002", "RPC-ENV-004", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007", "RPC-ENV-008", "RPC-ENV-009",
             "RPC-ENV-010", "RPC-ENV-011", "RPC-ENV-015", "RPC-ENV-016", "RPC-ENV-017", "RPC-IDX-004", "RPC-IDX-005",
             "RPC-IDX-006", "RPC-IDX-015", "RPC-IDX-016", "RPC-IDX-024", "RPC-IDX-025", "RPC-IDX-026", "RPC-IDX-027",
             "RPC-IDX-029", "RPC-IDX-041", "RPC-ADM-006", "RPC-ADM-019", "RPC-EVM-033", "RPC-EVM-034", "RPC-EVM-035",
             "RPC-VAL-001", "RPC-VAL-017", "RPC-IDX-042", "RPC-IDX-044")
    allowed_by = "Shape of the JSON-RPC error object and its codes: not shown."

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        for item in _error_objects(reply.body):
            item["error"] = {"code": -32000, "message": item["error"].get("message", ""), "data": None}
        return reply


@variant
class ContainerTimesInLocalOffset(Variant, _Containers):
    """Container timestamps are written as Go writes a local time: nanoseconds and an offset such as -07:00."""

    reads = ("RPC-IDX-009", "RPC-IDX-010", "RPC-IDX-012", "RPC-IDX-013", "RPC-IDX-014", "RPC-IDX-017", "RPC-IDX-018",
             "RPC-IDX-019", "RPC-IDX-027", "RPC-IDX-028", "RPC-IDX-042", "RPC-IDX-043", "RPC-IDX-044")
    allowed_by = "timestamp: RFC 3339 with fractional seconds and a UTC offset or Z"
    offset = dt.timezone(-dt.timedelta(hours=7))

    def container(self, container: dict) -> dict:
        moment = dt.datetime.fromisoformat(container["timestamp"].replace("Z", "+00:00")).astimezone(self.offset)
        text = moment.isoformat(timespec="microseconds")
        # The same instant, with three more digits the reference does not keep: "…12.123456789-07:00".
        container["timestamp"] = text[:-6] + "789" + text[-6:]
        return container


# --- Data API ---

import copy  # noqa: E402

from conformance.reference.calls import RestCall  # noqa: E402
from conformance.reference.data_api.world import ALIASES, CHAIN_IDS, VERTEX_ERA_IDS  # noqa: E402
from conformance.reference.middleware import RestProceed  # noqa: E402
from conformance.reference.faults.data import (  # noqa: E402
    BY_NODE, DEPLOYMENT, ERC20_BAL, ERC721_BAL, ERC1155_BAL, LISTS, NATIVE, TRANSFER_ROUTES, TXS, UTXOS, VALIDATORS)

#: The Data API rules of the documented body shapes (every route's, and the members with their own rules).
_DATA_SHAPES = tuple(f"DATA-SHP-{n:03d}" for n in range(1, 22))


class _DataAnswers(Variant):
    """Changes the status 200 bodies of the Data API routes in `routes` (every route when empty)."""

    routes: ClassVar[tuple[str, ...]] = ()

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if call.api == "data" and (not self.routes or call.route in self.routes) and reply.status == 200 \
                and isinstance(reply.body, dict) and self.applies(call):
            reply.body = copy.deepcopy(reply.body)   # the service serves some items from its cache
            self.change(reply.body, call)
        return reply

    def applies(self, call: RestCall) -> bool:
        return True

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        raise NotImplementedError


def _on_x_chain(call: RestCall) -> bool:
    given = call.path_params.get("blockchainId", "")
    return ALIASES.get(given) == "x" or given in {ids["x"] for ids in CHAIN_IDS.values()} | set(VERTEX_ERA_IDS.values())


@variant
class XChainRecordsInTheirOwnShape(_DataAnswers):
    """The X-Chain's transactions and UTXOs come in the X-Chain's own records: txTimestamp, chainFormat,
    amountUnlocked and amountCreated, creationTxHash and timestamp, without the P-Chain's block and staking
    members."""

    routes = (UTXOS, TXS)
    reads = ("DATA-SHP-001", "DATA-SHP-002", "DATA-SHP-016", "DATA-FLT-031", "DATA-SEM-005")
    allowed_by = "Which response fields are always present and which may be omitted: not shown (shapes are open)."

    def applies(self, call: RestCall) -> bool:
        return _on_x_chain(call)

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        for item in body.get(LISTS[call.route]) or []:
            if isinstance(item, dict):
                (_x_utxo if call.route == UTXOS else _x_transaction)(item)


def _x_utxo(utxo: dict[str, Any]) -> None:
    created, created_at = utxo.pop("txHash", None), utxo.pop("blockTimestamp", None)
    spent_at = utxo.pop("consumingBlockTimestamp", None)
    for name in ("amount", "assetId", "blockNumber", "consumingBlockNumber", "platformLocktime", "stakeableLocktime",
                 "staked"):
        utxo.pop(name, None)
    utxo.update(creationTxHash=created, timestamp=created_at, locktime=0)
    if spent_at is not None:
        utxo["consumingTxTimestamp"] = spent_at


def _x_transaction(tx: dict[str, Any]) -> None:
    created_at, height = tx.pop("blockTimestamp", None), tx.pop("blockNumber", None)
    created, unlocked = tx.pop("value", []), tx.pop("amountBurned", [])
    for name in ("amountStaked", "amountL1ValidatorBalanceBurned"):
        tx.pop(name, None)
    tx.update(chainFormat="linear", txTimestamp=created_at, amountCreated=created, amountUnlocked=unlocked)
    if isinstance(height, str) and height.isdigit():
        tx["blockHeight"] = int(height)
    for utxo in (tx.get("consumedUtxos") or []) + (tx.get("emittedUtxos") or []):
        if isinstance(utxo, dict):
            _x_utxo(utxo)


@variant
class ValidatorsWithPerStatusMembers(_DataAnswers):
    """Validators carry the members of their status: active ones stakePercentage, potentialRewards,
    validatorHealth, geolocation null and delegationCapacity; pending ones potentialRewards and delegationCapacity;
    removed ones removeTxHash and removeTimestamp."""

    routes = (VALIDATORS, BY_NODE)
    reads = ("DATA-SHP-005", "DATA-SHP-006", "DATA-FLT-001", "DATA-FLT-002", "DATA-FLT-003", "DATA-FLT-004",
             "DATA-FLT-005", "DATA-FLT-006", "DATA-FLT-007", "DATA-FLT-008", "DATA-FLT-009", "DATA-FLT-010",
             "DATA-FLT-011", "DATA-FLT-037", "DATA-PAG-012", "DATA-PAG-013", "DATA-DEF-004", "DATA-DEF-005",
             "DATA-DEF-021", "DATA-DEF-022")
    allowed_by = "Which response fields are always present and which may be omitted: not shown (shapes are open)."

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        for validator in body.get("validators") or []:
            if isinstance(validator, dict):
                self.members(validator)

    @staticmethod
    def members(validator: dict[str, Any]) -> None:
        status, staked = validator.get("validationStatus"), int(validator.get("amountStaked") or 0)
        if status in ("active", "pending"):
            validator["potentialRewards"] = {"validationRewardAmount": str(staked // 20),
                                             "delegationRewardAmount": str(int(validator.get("amountDelegated") or 0)
                                                                           // 30)}
            validator["delegationCapacity"] = str(staked * 4)
        if status == "active":
            validator.update(stakePercentage=round(staked / 10**17, 6), geolocation=None, validatorHealth={
                "reachabilityPercent": 100, "benchedPChainRequestsPercent": 0, "benchedXChainRequestsPercent": 0,
                "benchedCChainRequestsPercent": 0})
        if status == "removed":
            validator.update(removeTxHash=validator.get("txHash"), removeTimestamp=validator.get("endTimestamp"))


@variant
class NftIndexStatusUpperCase(_DataAnswers):
    """NFT metadata carries indexStatus in upper case ("INDEXED")."""

    routes = (ERC721_BAL, ERC1155_BAL, *TRANSFER_ROUTES)
    reads = ("DATA-SHP-007", "DATA-SHP-008", "DATA-SHP-009", "DATA-SHP-011", "DATA-SHP-012", "DATA-FLT-027",
             "DATA-FLT-028")
    allowed_by = "indexStatus string (sample: indexed); its allowed values are not shown"

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        _walk(body, lambda o: o.update(indexStatus=o["indexStatus"].upper())
              if isinstance(o.get("indexStatus"), str) else None)


@variant
class TokensWithoutPrice(_DataAnswers):
    """Tokens and native balances the service has no price for carry no price and no balanceValue, and
    tokenReputation null."""

    routes = (ERC20_BAL, ERC721_BAL, ERC1155_BAL, NATIVE, *TRANSFER_ROUTES)
    reads = ("DATA-SHP-009", "DATA-SHP-010", "DATA-SHP-011", "DATA-SHP-012", "DATA-SHP-013", "DATA-SHP-017",
             "DATA-SHP-018", "DATA-SHP-021", "DATA-FLT-026", "DATA-FLT-029", "DATA-DEF-015", "DATA-DEF-016",
             "DATA-DEF-018", "DATA-DEF-019", "DATA-DEF-020", "DATA-SEM-013", "DATA-ENUM-005")
    allowed_by = "Which response fields are always present and which may be omitted: not shown; tokenReputation's " \
                 "values are not shown"

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        def unpriced(obj: dict[str, Any]) -> None:
            if "price" in obj:
                obj.pop("price")
                obj.pop("balanceValue", None)
            if "tokenReputation" in obj:
                obj["tokenReputation"] = None
        _walk(body, unpriced)


@variant
class EmptyMembersLeftOut(_DataAnswers):
    """Members whose value is empty ("", [] or {}) are left out, the list member of a list route aside."""

    reads = (*_DATA_SHAPES, "DATA-FLT-031", "DATA-FLT-033", "DATA-FLT-034", "DATA-FLT-035", "DATA-FLT-036",
             "DATA-PAG-001", "DATA-PAG-005", "DATA-PAG-006")
    allowed_by = "Which response fields are always present and which may be omitted: not shown."

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        keep = LISTS.get(call.route)
        for name in [name for name in body if name != keep]:
            body[name] = _without_empty(body[name])
            if body[name] in ("", [], {}):
                del body[name]
        if keep is not None and isinstance(body.get(keep), list):
            body[keep] = [_without_empty(item) for item in body[keep]]


def _without_empty(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {name: _without_empty(member) for name, member in value.items()}
        return {name: member for name, member in kept.items() if member not in ("", [], {})}
    if isinstance(value, list):
        return [_without_empty(item) for item in value]
    return value


@variant
class EvmRecordsWithMillisecondTimestamps(_DataAnswers):
    """EVM transfer records and native transactions carry blockTimestampMilliseconds besides blockTimestamp."""

    routes = (*TRANSFER_ROUTES, DEPLOYMENT)
    reads = ("DATA-SHP-003", "DATA-SHP-007", "DATA-SHP-008", "DATA-SHP-009", "DATA-SHP-021", "DATA-FLT-022",
             "DATA-FLT-023", "DATA-FLT-024", "DATA-FLT-025", "DATA-SEM-011")
    allowed_by = "Which response fields are always present and which may be omitted: not shown (shapes are open)."

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        _walk(body, lambda o: o.update(blockTimestampMilliseconds=o["blockTimestamp"] * 1000 + 417)
              if isinstance(o.get("blockTimestamp"), int) else None)


@variant
class EmptyTokenOnLastPage(_DataAnswers):
    """The page that ends a list carries "nextPageToken": "" instead of leaving the member out."""

    routes = tuple(LISTS)
    reads = ("DATA-PAG-001", "DATA-PAG-002", "DATA-PAG-003", "DATA-PAG-004", "DATA-PAG-005", "DATA-PAG-006",
             "DATA-PAG-007", *(f"DATA-DEF-{n:03d}" for n in range(1, 14)), *_DATA_SHAPES[:15], "DATA-FLT-005",
             "DATA-FLT-024", "DATA-FLT-025", "DATA-FLT-029")
    allowed_by = "List responses carry nextPageToken (string) when more data exists: an empty one names no page"

    def change(self, body: dict[str, Any], call: RestCall) -> None:
        if body.get("nextPageToken") is None:
            body["nextPageToken"] = ""

