"""Faults that break rules of the node catalogue (specs/rules/rpc.yaml)."""
from __future__ import annotations

import base64
import copy
import itertools
import re
from datetime import datetime, timezone
from typing import Any

from conformance.reference import ids
from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.faults import Fault, RpcHttpProceed, RpcProceed, register

# Not imported from jsonrpc, which imports this package while it is being initialised.
INVALID_PARAMS, METHOD_NOT_FOUND, SERVER_ERROR = -32602, -32601, -32000


def _ids(family: str, last: int, first: int = 1) -> tuple[str, ...]:
    return tuple(f"RPC-{family}-{n:03d}" for n in range(first, last + 1))


#: Every testable rule of the catalogue: what a fault that takes a whole API offline may also break.
EVERY_RULE = (_ids("ENV", 14) + _ids("ADM", 27) + ("RPC-ADM-035",) + _ids("IDX", 35) + _ids("IDX", 44, first=42)
              + _ids("EVM", 38) + _ids("ETH", 24) + _ids("VAL", 16) + ("RPC-VAL-019",))
CONTAINER_METHODS = ("index.getContainerByID", "index.getContainerByIndex", "index.getContainerRange",
                     "index.getLastAccepted")
PARAMETERLESS = ("admin.loadVMs", "admin.lockProfile", "admin.memoryProfile", "admin.startCPUProfiler",
                 "admin.stopCPUProfiler", "eth_getChainConfig")


def _all_but(*own: str) -> tuple[str, ...]:
    return tuple(rule for rule in EVERY_RULE if rule not in own)


def _result(call: RpcCall, result: Any) -> dict:
    return {"jsonrpc": "2.0", "result": result, "id": call.id}


def _error(call: RpcCall, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": call.id}


def _params(call: RpcCall) -> dict[str, Any]:
    return call.params if isinstance(call.params, dict) else {}


def _args(call: RpcCall) -> list[Any]:
    return call.params if isinstance(call.params, list) else []


def _requested() -> str:
    from conformance.reference.node import requested_path
    return requested_path().strip("/")


def _sibling(endpoint: str) -> str:
    """The same API of the node's other EVM chain (the endpoint itself where there is none)."""
    from conformance.reference.node import sibling_endpoint
    return sibling_endpoint(endpoint) or endpoint


def _not_found() -> HttpReply:
    return HttpReply(404, raw=b"404 page not found\n", headers={"Content-Type": "text/plain; charset=utf-8"})


class _Result(Fault):
    """Rewrites the result of the methods in `methods` (a deep copy: handlers may share structures)."""

    methods: tuple[str, ...] = ()

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method in self.methods and reply is not None and "result" in reply:
            reply = {**reply, "result": self.patch(copy.deepcopy(reply["result"]), call)}
        return reply

    def patch(self, result: Any, call: RpcCall) -> Any:
        return result


class _Containers(_Result):
    """Rewrites every container the Index API returns."""

    methods = CONTAINER_METHODS

    def patch(self, result: Any, call: RpcCall) -> Any:
        if isinstance(result, list):
            return [self.container(c) for c in result]
        return self.container(result) if isinstance(result, dict) else result

    def container(self, container: dict) -> dict:
        return container


class _Validators(_Result):
    """Rewrites every validator of validators.getCurrentValidators."""

    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["validators"] = [self.validator(v) for v in result["validators"]]
        return result

    def validator(self, validator: dict) -> dict:
        return validator


class _Unserved(Fault):
    """Answers 404 at an endpoint, as a node that does not register the API does."""

    also = EVERY_RULE

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        return _not_found() if self.unserved(request) else proceed(request)

    def unserved(self, request: RpcHttp) -> bool:
        return False


def _error_objects(body: Any) -> list[dict]:
    items = body if isinstance(body, list) else [body]
    return [item for item in items if isinstance(item, dict) and isinstance(item.get("error"), dict)]


# --- ENV: the JSON-RPC 2.0 envelope ---

@register
class JsonRpcVersionAsNumber(Fault):
    """Responses carry jsonrpc as the number 2.0 instead of the string "2.0"."""

    breaks = ("RPC-ENV-001",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        return None if reply is None else {**reply, "jsonrpc": 2.0}


@register
class NumericIdEchoedAsString(Fault):
    """Success responses echo a numeric request id as a string."""

    breaks = ("RPC-ENV-002",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if reply is not None and "result" in reply and isinstance(call.id, (int, float)):
            reply = {**reply, "id": str(call.id)}
        return reply


@register
class StringIdEchoedAsZero(Fault):
    """Responses carry id 0 for a string request id (the id is decoded into an integer)."""

    breaks = ("RPC-ENV-003",)
    also = ("RPC-ENV-004",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if reply is not None and isinstance(call.id, str):
            reply = {**reply, "id": 0}
        return reply


@register
class ErrorIdNull(Fault):
    """Error responses carry id null even when the request's id was read."""

    breaks = ("RPC-ENV-004",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        for item in _error_objects(reply.body):
            item["id"] = None
        return reply


@register
class ErrorWithNullResult(Fault):
    """Error responses also carry "result": null next to the error object."""

    breaks = ("RPC-ENV-005",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        for item in _error_objects(reply.body):
            item["result"] = None
        return reply


@register
class ErrorCodeAsString(Fault):
    """Error objects carry the code as a decimal string."""

    breaks = ("RPC-ENV-006",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        for item in _error_objects(reply.body):
            item["error"] = {**item["error"], "code": str(item["error"]["code"])}
        return reply


@register
class ErrorMessageInData(Fault):
    """Error objects carry the text in data and no message member."""

    breaks = ("RPC-ENV-007",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        for item in _error_objects(reply.body):
            error = dict(item["error"])
            error["data"] = error.pop("message", None)
            item["error"] = error
        return reply


@register
class UnknownMethodAnsweredWithNull(Fault):
    """A call to an unknown method is answered with result null instead of an error."""

    breaks = ("RPC-ENV-008",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if reply is not None and reply.get("error", {}).get("code") == METHOD_NOT_FOUND:
            reply = _result(call, None)
        return reply


def _json(body: bytes) -> Any:
    import json
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return _json  # a marker: not JSON


@register
class ParseErrorAsPlainText(Fault):
    """A body that is not JSON is answered with a plain-text 400 instead of a JSON-RPC error object."""

    breaks = ("RPC-ENV-009",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        if _json(request.body) is _json:
            return HttpReply(400, raw=b"invalid character looking for beginning of value\n",
                             headers={"Content-Type": "text/plain; charset=utf-8"})
        return proceed(request)


@register
class ScalarBodyAnsweredWithResult(Fault):
    """A body that is a JSON number or string is answered with result null instead of an error."""

    breaks = ("RPC-ENV-010",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        payload = _json(request.body)
        if payload is not _json and isinstance(payload, (int, float, str)) and not isinstance(payload, bool):
            return HttpReply(200, {"jsonrpc": "2.0", "result": None, "id": None})
        return proceed(request)


@register
class EmptyBatchAnsweredWithEmptyArray(Fault):
    """An empty batch is answered with an empty array instead of an error object."""

    breaks = ("RPC-ENV-011",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        if _json(request.body) == []:
            return HttpReply(200, [])
        return proceed(request)


@register
class SingleResponseInArray(Fault):
    """A single request is answered with a one-element array instead of a response object."""

    breaks = ("RPC-ENV-012",)
    also = _all_but("RPC-ENV-012")

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        if isinstance(reply.body, dict):
            reply.body = [reply.body]
        return reply


@register
class ContentTypeTextPlain(Fault):
    """JSON-RPC responses declare Content-Type text/plain."""

    breaks = ("RPC-ENV-013",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        reply = proceed(request)
        reply.headers = {**reply.headers, "Content-Type": "text/plain; charset=utf-8"}
        return reply


@register
class ParamsRequiredForParameterlessMethods(Fault):
    """Methods without parameters refuse a request that omits params."""

    breaks = ("RPC-ENV-014",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if not call.has_params and call.method in PARAMETERLESS:
            return _error(call, INVALID_PARAMS, "missing params: expected an object or array")
        return proceed(call)


# --- ADM: the Admin API ---

@register
class AdminApiRefusesPost(Fault):
    """/ext/admin answers POSTs with a plain-text 405 instead of JSON-RPC (the route is mounted for GET only)."""

    breaks = ("RPC-ADM-001",)
    also = _all_but("RPC-ADM-001")

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        if request.api == "admin":
            return HttpReply(405, raw=b"405 method not allowed\n", headers={"Content-Type": "text/plain",
                                                                             "Allow": "GET"})
        return proceed(request)


@register
class AliasReturnsNull(_Result):
    """admin.alias returns null instead of an empty object."""

    breaks = ("RPC-ADM-002",)
    methods = ("admin.alias",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return None


class _AliasTracker(Fault):
    """Remembers the endpoint aliases this node accepted."""

    def __init__(self) -> None:
        self.aliases: set[str] = set()
        self.endpoints: set[str] = set()

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        params = _params(call)
        if call.method == "admin.alias" and reply is not None and "result" in reply:
            self.aliases.add(str(params.get("alias", "")).strip("/"))
            self.endpoints.add(str(params.get("endpoint", "")).strip("/"))
        return reply


@register
class EndpointAliasNotRouted(_AliasTracker):
    """admin.alias succeeds but /ext/<alias> answers 404."""

    breaks = ("RPC-ADM-003",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        return _not_found() if _requested() in self.aliases else proceed(request)


@register
class AliasBelowRouteBaseRoutesNothing(_AliasTracker):
    """admin.alias of a path below a chain's route base (bc/<id>/rpc) answers {} but routes nothing there.

    Nodes register a chain's APIs under the base bc/<id> and alias bases only: an alias of bc/<id> serves
    /ext/<alias>/rpc, one of bc/<id>/rpc is accepted and leaves /ext/<alias> unanswered.
    """

    breaks = ("RPC-ADM-003",)
    real = True

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        parts = str(_params(call).get("endpoint", "")).strip("/").split("/")
        if call.method == "admin.alias" and len(parts) > 2 and parts[0] == "bc":
            return super().rpc(call, proceed)
        return proceed(call)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        return _not_found() if _requested() in self.aliases else proceed(request)


@register
class AliasMovesEndpoint(_AliasTracker):
    """After admin.alias the API answers only at /ext/<alias>; its original path answers 404."""

    breaks = ("RPC-ADM-004",)
    also = _all_but("RPC-ADM-004")   # whichever API a test aliases stops answering at its own path

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        path = _requested()
        if path not in self.aliases and (path in self.endpoints or request.endpoint in self.endpoints):
            return _not_found()
        return proceed(request)


@register
class AliasMaxLengthOffByOne(Fault):
    """admin.alias rejects an alias of exactly 512 characters (the bound is exclusive)."""

    breaks = ("RPC-ADM-005",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        alias = _params(call).get("alias")
        if call.method == "admin.alias" and isinstance(alias, str) and len(alias) >= 512:
            return _error(call, INVALID_PARAMS, f"alias length is too long: {len(alias)} characters, below 512")
        return proceed(call)


@register
class AliasLengthNotChecked(Fault):
    """admin.alias accepts an alias longer than 512 characters (and quietly drops it)."""

    breaks = ("RPC-ADM-006",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        alias = _params(call).get("alias")
        if call.method == "admin.alias" and isinstance(alias, str) and len(alias) > 512:
            return _result(call, {})
        return proceed(call)


@register
class AliasChainReturnsTrue(_Result):
    """admin.aliasChain returns true instead of an empty object."""

    breaks = ("RPC-ADM-007",)
    methods = ("admin.aliasChain",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return True


class _ChainAliasTracker(Fault):
    """Remembers the chain aliases this node accepted."""

    def __init__(self) -> None:
        self.chain_aliases: set[str] = set()

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method == "admin.aliasChain" and reply is not None and "result" in reply:
            self.chain_aliases.add(str(_params(call).get("alias", "")))
        return self.after(call, reply)

    def after(self, call: RpcCall, reply: dict | None) -> dict | None:
        return reply


@register
class ChainAliasNotRouted(_ChainAliasTracker):
    """admin.aliasChain succeeds but /ext/bc/<alias>/... answers 404."""

    breaks = ("RPC-ADM-008",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        parts = _requested().split("/")
        if len(parts) == 3 and parts[0] == "bc" and parts[1] in self.chain_aliases:
            return _not_found()
        return proceed(request)


@register
class ChainAliasesAsString(_Result):
    """admin.getChainAliases returns aliases as one comma-separated string."""

    breaks = ("RPC-ADM-009",)
    methods = ("admin.getChainAliases",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["aliases"] = ",".join(result["aliases"])
        return result


@register
class ChainAliasesOmitAdded(_ChainAliasTracker):
    """admin.getChainAliases lists only the built-in aliases, not those added with admin.aliasChain."""

    breaks = ("RPC-ADM-010",)

    def after(self, call: RpcCall, reply: dict | None) -> dict | None:
        if call.method == "admin.getChainAliases" and reply is not None and "result" in reply:
            kept = [a for a in reply["result"]["aliases"] if a not in self.chain_aliases]
            reply = {**reply, "result": {**reply["result"], "aliases": kept}}
        return reply


LEVEL_NUMBERS = {"OFF": 7, "FATAL": 6, "ERROR": 5, "WARN": 4, "INFO": 3, "TRACE": 2, "DEBUG": 1, "VERBO": 0}


@register
class LoggerLevelsAsNumbers(_Result):
    """admin.getLoggerLevel returns logLevel and displayLevel as level numbers."""

    breaks = ("RPC-ADM-011",)
    also = ("RPC-ADM-016", "RPC-ADM-017", "RPC-ADM-018")
    methods = ("admin.getLoggerLevel",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        for levels in result["loggerLevels"].values():
            for key in ("logLevel", "displayLevel"):
                levels[key] = LEVEL_NUMBERS.get(levels[key], 3)
        return result


@register
class LoggerNameFilterIgnored(Fault):
    """admin.getLoggerLevel with loggerName returns every logger."""

    breaks = ("RPC-ADM-012",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "admin.getLoggerLevel" and _params(call).get("loggerName"):
            call = call.with_(params={k: v for k, v in _params(call).items() if k != "loggerName"})
        return proceed(call)


@register
class LoggerLevelsOnlyMain(_Result):
    """admin.getLoggerLevel without loggerName returns the main logger only."""

    breaks = ("RPC-ADM-013",)
    methods = ("admin.getLoggerLevel",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if not _params(call).get("loggerName"):
            result["loggerLevels"] = {k: v for k, v in result["loggerLevels"].items() if k == "main"}
        return result


@register
class SetLoggerLevelReturnsNull(_Result):
    """admin.setLoggerLevel returns null instead of an empty object."""

    breaks = ("RPC-ADM-015",)
    methods = ("admin.setLoggerLevel",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return None


class _SetLoggerDrops(Fault):
    """admin.setLoggerLevel with a loggerName does not apply one of the two levels."""

    dropped = ""

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        params = _params(call)
        if call.method == "admin.setLoggerLevel" and params.get("loggerName") and params.get(self.dropped):
            params = {k: v for k, v in params.items() if k != self.dropped}
            if not params.get("logLevel") and not params.get("displayLevel"):
                return _result(call, {})
            call = call.with_(params=params)
        return proceed(call)


@register
class SetLoggerLevelIgnoresLogLevel(_SetLoggerDrops):
    """admin.setLoggerLevel with a loggerName accepts logLevel but does not apply it."""

    breaks = ("RPC-ADM-016",)
    dropped = "logLevel"


@register
class SetLoggerLevelIgnoresDisplayLevel(_SetLoggerDrops):
    """admin.setLoggerLevel with a loggerName accepts displayLevel but does not apply it."""

    breaks = ("RPC-ADM-017",)
    dropped = "displayLevel"


@register
class SetLoggerLevelWithoutNameChangesMainOnly(Fault):
    """admin.setLoggerLevel without loggerName changes the main logger only."""

    breaks = ("RPC-ADM-018",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "admin.setLoggerLevel" and not _params(call).get("loggerName"):
            call = call.with_(params={**_params(call), "loggerName": "main"})
        return proceed(call)


@register
class SetLoggerLevelBothOmittedAccepted(Fault):
    """admin.setLoggerLevel accepts a call with neither logLevel nor displayLevel."""

    breaks = ("RPC-ADM-019",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        params = _params(call)
        if call.method == "admin.setLoggerLevel" and params.get("logLevel") is None \
                and params.get("displayLevel") is None:
            return _result(call, {})
        return proceed(call)


@register
class LoadVmsNamesAsString(_Result):
    """admin.loadVMs maps each VM ID in newVMs to one comma-separated string of names."""

    breaks = ("RPC-ADM-021",)
    methods = ("admin.loadVMs",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["newVMs"] = {vm: ",".join(names) for vm, names in result["newVMs"].items()}
        return result


@register
class FailedVmsMessageAsObject(_Result):
    """admin.loadVMs maps each failed VM ID to an object {error} instead of a message string."""

    breaks = ("RPC-ADM-022",)
    methods = ("admin.loadVMs",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if "failedVMs" in result:
            result["failedVMs"] = {vm: {"error": message} for vm, message in result["failedVMs"].items()}
        return result


@register
class FailedVmsAlwaysPresent(_Result):
    """admin.loadVMs carries an empty failedVMs when every VM loaded."""

    breaks = ("RPC-ADM-023",)
    methods = ("admin.loadVMs",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result.setdefault("failedVMs", {})
        return result


@register
class LockProfileReturnsFileName(_Result):
    """admin.lockProfile returns the file name as a string instead of an empty object."""

    breaks = ("RPC-ADM-024",)
    methods = ("admin.lockProfile",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return "lock.profile"


@register
class MemoryProfileReturnsNull(_Result):
    """admin.memoryProfile returns null instead of an empty object."""

    breaks = ("RPC-ADM-025",)
    methods = ("admin.memoryProfile",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return None


@register
class StartCpuProfilerReturnsTrue(_Result):
    """admin.startCPUProfiler returns true instead of an empty object."""

    breaks = ("RPC-ADM-026",)
    methods = ("admin.startCPUProfiler",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return True


@register
class StopCpuProfilerReturnsFileName(_Result):
    """admin.stopCPUProfiler returns the profile's file name instead of an empty object."""

    breaks = ("RPC-ADM-027",)
    methods = ("admin.stopCPUProfiler",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return "cpu.profile"


# --- IDX: the Index API ---

def _range_args(call: RpcCall) -> tuple[int, int] | None:
    params = _params(call)
    start, wanted = params.get("startIndex"), params.get("numToFetch")
    try:
        return int(start), int(wanted)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _is_range(call: RpcCall) -> bool:
    return call.method == "index.getContainerRange" and _range_args(call) is not None


def _beyond_error(reply: dict | None) -> bool:
    return reply is not None and "beyond the last accepted" in str(reply.get("error", {}).get("message", ""))


@register
class RangeReversed(_Result):
    """index.getContainerRange returns the containers newest first."""

    breaks = ("RPC-IDX-001",)
    methods = ("index.getContainerRange",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return result[::-1] if isinstance(result, list) else result


@register
class RangeZeroFetchesOne(Fault):
    """index.getContainerRange treats numToFetch 0 as 1 when the start index exists."""

    breaks = ("RPC-IDX-002",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] == 0:  # type: ignore[index]
            reply = proceed(call.with_(params={**_params(call), "numToFetch": 1}))
            if reply is not None and "result" in reply:
                return reply
        return proceed(call)


@register
class ZeroToFetchRefused(Fault):
    """index.getContainerRange refuses numToFetch 0 as outside [1, 1024], wherever startIndex points."""

    breaks = ("RPC-IDX-002", "RPC-IDX-006")
    real = True

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] == 0:  # type: ignore[index]
            return _error(call, SERVER_ERROR, "numToFetch must be in [1,1024]")
        return proceed(call)


@register
class RangeMaxOffByOne(Fault):
    """index.getContainerRange rejects numToFetch 1024 (the bound is exclusive)."""

    breaks = ("RPC-IDX-003",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] >= 1024:  # type: ignore[index]
            return _error(call, INVALID_PARAMS, "numToFetch must be below 1024")
        return proceed(call)


@register
class RangeMaxClamped(Fault):
    """index.getContainerRange serves 1024 containers for numToFetch above 1024 instead of rejecting it."""

    breaks = ("RPC-IDX-004",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] > 1024:  # type: ignore[index]
            call = call.with_(params={**_params(call), "numToFetch": 1024})
        return proceed(call)


@register
class RangeBeyondLastGivesEmpty(Fault):
    """index.getContainerRange answers an empty array for a startIndex beyond the last accepted index."""

    breaks = ("RPC-IDX-005",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        return _result(call, []) if _is_range(call) and _beyond_error(reply) else reply


@register
class RangeZeroBeyondLastRejected(Fault):
    """index.getContainerRange rejects a startIndex beyond the last accepted index even for numToFetch 0."""

    breaks = ("RPC-IDX-006",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] == 0:  # type: ignore[index]
            probe = proceed(call.with_(params={**_params(call), "numToFetch": 1}))
            if _beyond_error(probe):
                return probe
        return proceed(call)


@register
class RangePastEndRejected(Fault):
    """index.getContainerRange rejects a range that reaches past the last accepted container."""

    breaks = ("RPC-IDX-007",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        args = _range_args(call)
        if args and reply is not None and isinstance(reply.get("result"), list) and len(reply["result"]) < args[1]:
            return _error(call, SERVER_ERROR, f"only {len(reply['result'])} containers from {args[0]}")
        return reply


@register
class RangeWrappedInObject(_Result):
    """index.getContainerRange returns an object {containers, numFetched} instead of an array, as nodes do."""

    breaks = ("RPC-IDX-008",)
    real = True
    methods = ("index.getContainerRange",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return {"containers": result, "numFetched": str(len(result))} if isinstance(result, list) else result


@register
class ContainerIdAsByteArray(_Containers):
    """Containers carry id as an array of byte values instead of a string."""

    breaks = ("RPC-IDX-009",)
    also = ("RPC-IDX-018", "RPC-IDX-019", "RPC-IDX-021", "RPC-IDX-023", "RPC-IDX-028")

    def container(self, container: dict) -> dict:
        from conformance.reference.node.world import cb58_decode
        container["id"] = list(cb58_decode(container["id"]) or b"")
        return container


@register
class ContainerBytesBase64(_Containers):
    """Containers carry bytes base64-encoded instead of hex."""

    breaks = ("RPC-IDX-010",)

    def container(self, container: dict) -> dict:
        container["bytes"] = base64.b64encode(bytes.fromhex(container["bytes"][2:])).decode()
        return container


@register
class ContainerTimestampWithoutFraction(_Containers):
    """Containers carry timestamps without fractional seconds."""

    breaks = ("RPC-IDX-012",)

    def container(self, container: dict) -> dict:
        container["timestamp"] = re.sub(r"\.\d+", "", container["timestamp"])
        return container


@register
class ContainerEncodingHexC(_Containers):
    """Containers carry encoding "hexc" instead of "hex"."""

    breaks = ("RPC-IDX-013",)

    def container(self, container: dict) -> dict:
        container["encoding"] = "hexc"
        return container


@register
class ContainerIndexAsNumber(_Containers):
    """Containers carry index as a JSON number instead of a decimal string."""

    breaks = ("RPC-IDX-014",)
    also = ("RPC-IDX-001", "RPC-IDX-017", "RPC-IDX-021", "RPC-IDX-027")

    def container(self, container: dict) -> dict:
        container["index"] = int(container["index"])
        return container


@register
class EncodingNotChecked(Fault):
    """Index API methods accept any encoding and answer in hex."""

    breaks = ("RPC-IDX-015",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.api == "index" and isinstance(call.params, dict) and "encoding" in call.params:
            call = call.with_(params={**call.params, "encoding": "hex"})
        return proceed(call)


@register
class HexVariantsAccepted(Fault):
    """The Index API also takes the encodings "hexc" and "hexnc" (hex without checksum), as nodes do."""

    breaks = ("RPC-IDX-015",)
    real = True
    variants = ("hexc", "hexnc")

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        encoding = _params(call).get("encoding")
        if call.api != "index" or encoding not in self.variants:
            return proceed(call)
        reply = proceed(call.with_(params={**_params(call), "encoding": "hex"}))
        if call.method in CONTAINER_METHODS and reply is not None and reply.get("result") is not None:
            found = reply["result"] = copy.deepcopy(reply["result"])
            for container in found if isinstance(found, list) else [found]:
                container["encoding"] = encoding
                if encoding == "hexnc":  # the 4-byte checksum hex carries is left out
                    container["bytes"] = container["bytes"][:-8]
        return reply


@register
class ContainerByIndexOffByOne(Fault):
    """index.getContainerByIndex returns the container after the one requested."""

    breaks = ("RPC-IDX-017",)
    also = ("RPC-IDX-019", "RPC-IDX-028")

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        index = _params(call).get("index")
        if call.method == "index.getContainerByIndex" and isinstance(index, int) and not isinstance(index, bool):
            call = call.with_(params={**_params(call), "index": index + 1})
        return proceed(call)


@register
class ContainerByIdReturnsNext(Fault):
    """index.getContainerByID returns the container accepted after the one named."""

    breaks = ("RPC-IDX-018",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method == "index.getContainerByID" and reply is not None and "result" in reply:
            nxt = int(reply["result"]["index"]) + 1
            reply = proceed(call.with_(method="index.getContainerByIndex",
                                       params={"index": nxt, "encoding": "hex"}))
            if reply is not None and "error" in reply:
                reply = _error(call, SERVER_ERROR, "container not found")
        return reply


@register
class RangeBytesWithoutChecksum(_Result):
    """index.getContainerRange serves each container's bytes without the 4-byte checksum."""

    breaks = ("RPC-IDX-019",)
    methods = ("index.getContainerRange",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        for container in result or ():
            container["bytes"] = container["bytes"][:-8]
        return result


@register
class GetIndexAsNumber(_Result):
    """index.getIndex returns index as a JSON number instead of a decimal string."""

    breaks = ("RPC-IDX-020",)
    also = ("RPC-IDX-021",)
    methods = ("index.getIndex",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["index"] = int(result["index"])
        return result


@register
class GetIndexOffByOne(_Result):
    """index.getIndex returns the index one past the container's."""

    breaks = ("RPC-IDX-021",)
    methods = ("index.getIndex",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["index"] = str(int(result["index"]) + 1)
        return result


@register
class IsAcceptedAsString(_Result):
    """index.isAccepted returns isAccepted as the string "true" or "false"."""

    breaks = ("RPC-IDX-022",)
    also = ("RPC-IDX-023",)
    methods = ("index.isAccepted",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["isAccepted"] = "true" if result["isAccepted"] else "false"
        return result


@register
class IsAcceptedAlwaysFalse(_Result):
    """index.isAccepted answers false even for a container in the index."""

    breaks = ("RPC-IDX-023",)
    methods = ("index.isAccepted",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["isAccepted"] = False
        return result


@register
class LastAcceptedIsPrevious(Fault):
    """index.getLastAccepted returns the container before the last accepted one."""

    breaks = ("RPC-IDX-027",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method == "index.getLastAccepted" and reply is not None and "result" in reply:
            last = int(reply["result"]["index"])
            if last > 0:
                reply = proceed(call.with_(method="index.getContainerByIndex",
                                           params={"index": last - 1, "encoding": "hex"}))
        return reply


@register
class LastAcceptedStampedNow(_Result):
    """index.getLastAccepted stamps the container with the time of the call instead of its acceptance time."""

    breaks = ("RPC-IDX-028",)
    methods = ("index.getLastAccepted",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["timestamp"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return result


def _index_unserved(endpoint: str, rule: str, name: str) -> type[Fault]:
    def unserved(self: _Unserved, request: RpcHttp) -> bool:
        return request.endpoint == endpoint

    cls = type(name, (_Unserved,), {
        "__doc__": f"/ext/{endpoint} answers 404, as a node that does not register that index.",
        "breaks": (rule,), "also": _all_but(rule), "unserved": unserved, "__module__": __name__,
    })
    return register(cls)


IndexCBlockNotServed = _index_unserved("index/C/block", "RPC-IDX-030", "IndexCBlockNotServed")
IndexPBlockNotServed = _index_unserved("index/P/block", "RPC-IDX-031", "IndexPBlockNotServed")
IndexXTxNotServed = _index_unserved("index/X/tx", "RPC-IDX-032", "IndexXTxNotServed")
IndexXBlockNotServed = _index_unserved("index/X/block", "RPC-IDX-033", "IndexXBlockNotServed")
IndexXVtxNotServed = _index_unserved("index/X/vtx", "RPC-IDX-034", "IndexXVtxNotServed")


@register
class LegacyVtxServesXBlock(Fault):
    """/ext/index/X/vtx is wired to the X-Chain block index, so the legacy index keeps growing."""

    breaks = ("RPC-IDX-035",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        if request.endpoint == "index/X/vtx":
            request = request.with_(endpoint="index/X/block")
        return proceed(request)


# --- EVM: the EVM chain RPC ---

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


def _block_arg(call: RpcCall) -> Any:
    args = _args(call)
    return args[0] if args else None


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
class EvmRpcNotServed(_Unserved):
    """/ext/bc/<blockchainID>/rpc answers 404, as a node that does not track the chain."""

    breaks = ("RPC-EVM-032",)
    also = _all_but("RPC-EVM-032")

    def unserved(self, request: RpcHttp) -> bool:
        return request.api == "evm"


# --- VAL: the validators API ---

@register
class ValidatorsApiNotServed(_Unserved):
    """/ext/bc/<blockchainID>/validators answers 404, as a chain whose VM does not register it."""

    breaks = ("RPC-VAL-001",)
    also = _all_but("RPC-VAL-001")

    def unserved(self, request: RpcHttp) -> bool:
        return request.api == "validators"


@register
class ValidatorsAsMap(_Result):
    """validators.getCurrentValidators returns validators as an object keyed by node ID."""

    breaks = ("RPC-VAL-002",)
    also = _ids("VAL", 16, first=3)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["validators"] = {v["nodeID"]: v for v in result["validators"]}
        return result


@register
class SubnetValidationIdNull(_Validators):
    """Subnet validators carry validationID null (only L1 validators get one)."""

    breaks = ("RPC-VAL-003",)

    def validator(self, validator: dict) -> dict:
        if not validator["isL1Validator"]:
            validator["validationID"] = None
        return validator


@register
class NodeIdWithoutPrefix(_Validators):
    """validators.getCurrentValidators writes node IDs without the NodeID- prefix."""

    breaks = ("RPC-VAL-004",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        node_ids = _params(call).get("nodeIDs")
        if call.method in self.methods and isinstance(node_ids, list):
            # the filter keeps working with the IDs the fault hands out
            fixed = [n if not isinstance(n, str) or n.startswith("NodeID-") else "NodeID-" + n for n in node_ids]
            call = call.with_(params={**_params(call), "nodeIDs": fixed})
        return super().rpc(call, proceed)

    def validator(self, validator: dict) -> dict:
        validator["nodeID"] = validator["nodeID"].removeprefix("NodeID-")
        return validator


@register
class WeightAsString(_Validators):
    """Validators carry weight as a decimal string."""

    breaks = ("RPC-VAL-005",)

    def validator(self, validator: dict) -> dict:
        validator["weight"] = str(validator["weight"])
        return validator


@register
class StartTimestampAsRfc3339(_Validators):
    """Validators carry startTimestamp as an RFC 3339 string instead of UNIX seconds."""

    breaks = ("RPC-VAL-006",)

    def validator(self, validator: dict) -> dict:
        validator["startTimestamp"] = ids.rfc3339(validator["startTimestamp"])
        return validator


@register
class L1IsActiveAsNumber(_Validators):
    """L1 validators carry isActive as 0 or 1."""

    breaks = ("RPC-VAL-007",)

    def validator(self, validator: dict) -> dict:
        if validator["isL1Validator"]:
            validator["isActive"] = int(validator["isActive"])
        return validator


@register
class IsL1ValidatorAsString(_Validators):
    """Validators carry isL1Validator as a string."""

    breaks = ("RPC-VAL-008",)
    also = ("RPC-VAL-007", "RPC-VAL-012")

    def validator(self, validator: dict) -> dict:
        validator["isL1Validator"] = str(validator["isL1Validator"]).lower()
        return validator


@register
class IsConnectedAsString(_Validators):
    """Validators carry isConnected as a string."""

    breaks = ("RPC-VAL-009",)

    def validator(self, validator: dict) -> dict:
        validator["isConnected"] = str(validator["isConnected"]).lower()
        return validator


@register
class UptimeSecondsFractional(_Validators):
    """Validators carry uptimeSeconds as a fractional number."""

    breaks = ("RPC-VAL-010",)

    def validator(self, validator: dict) -> dict:
        validator["uptimeSeconds"] = validator["uptimeSeconds"] + 0.5
        return validator


@register
class UptimePercentageAsString(_Validators):
    """Validators carry uptimePercentage as a decimal string."""

    breaks = ("RPC-VAL-011",)

    def validator(self, validator: dict) -> dict:
        validator["uptimePercentage"] = f"{validator['uptimePercentage']:.2f}"
        return validator


@register
class SubnetValidatorsInactive(_Validators):
    """Subnet validators report isActive false, as if judged by an L1 fee balance they do not have."""

    breaks = ("RPC-VAL-012",)

    def validator(self, validator: dict) -> dict:
        if not validator["isL1Validator"]:
            validator["isActive"] = False
        return validator


@register
class NodeIdsFilterIgnored(Fault):
    """validators.getCurrentValidators ignores nodeIDs and returns every validator."""

    breaks = ("RPC-VAL-013",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "validators.getCurrentValidators" and _params(call).get("nodeIDs"):
            call = call.with_(params={k: v for k, v in _params(call).items() if k != "nodeIDs"})
        return proceed(call)


@register
class NodeIdsFilterDropsLast(_Result):
    """validators.getCurrentValidators leaves out the validator of the last node ID requested."""

    breaks = ("RPC-VAL-014",)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        node_ids = _params(call).get("nodeIDs")
        if isinstance(node_ids, list) and node_ids:
            result["validators"] = [v for v in result["validators"] if v["nodeID"] != node_ids[-1]]
        return result


@register
class EmptyNodeIdsReturnsNone(_Result):
    """validators.getCurrentValidators with an empty nodeIDs array returns no validators."""

    breaks = ("RPC-VAL-015",)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if _params(call).get("nodeIDs") == []:
            result["validators"] = []
        return result


@register
class OmittedNodeIdsReturnsNone(_Result):
    """validators.getCurrentValidators without nodeIDs returns no validators (a nil filter matches nothing)."""

    breaks = ("RPC-VAL-016",)
    also = _ids("VAL", 15, first=2)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if _params(call).get("nodeIDs") is None:
            result["validators"] = []
        return result


# --- EVM: the listed extra methods are served ---

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


# --- ETH: standard Ethereum methods ---

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
        first = _hex_param(query.get("fromBlock")) if isinstance(query, dict) else None
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

#: The index endpoints, as the reference's node service names them (not imported: see the error codes above).
INDEX_ENDPOINTS = ("index/C/block", "index/P/block", "index/X/tx", "index/X/block", "index/X/vtx")


def _int(value: Any) -> int | None:
    """A JSON number or a 0x hex quantity as an integer."""
    if isinstance(value, str) and value.startswith("0x"):
        try:
            return int(value, 16)
        except ValueError:
            return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@register
class IsAcceptedTrueForAnyId(_Result):
    """index.isAccepted answers true for any well-formed container ID: it checks that the ID parses, not that the
    index holds it."""

    breaks = ("RPC-IDX-042",)
    methods = ("index.isAccepted",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        return {**result, "isAccepted": True} if isinstance(result, dict) else result


@register
class IsAcceptedSearchesEveryIndex(Fault):
    """index.isAccepted answers true for a container any index of the node holds, not only the one asked."""

    breaks = ("RPC-IDX-042",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method != "index.isAccepted" or reply is None or reply.get("result") != {"isAccepted": False}:
            return reply
        for endpoint in INDEX_ENDPOINTS:
            other = proceed(call.with_(endpoint=endpoint)) if endpoint != call.endpoint else None
            if other is not None and other.get("result") == {"isAccepted": True}:
                return {**reply, "result": {"isAccepted": True}}
        return reply


@register
class IndexPathServesAnotherIndex(Fault):
    """/ext/index/X/block serves the X-Chain transaction index: the two X-Chain indexes are wired to one database."""

    breaks = ("RPC-IDX-043",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        if request.endpoint == "index/X/block":
            request = request.with_(endpoint="index/X/tx")
        return proceed(request)


@register
class RangeStartAtLastRefused(Fault):
    """index.getContainerRange refuses a startIndex equal to the last accepted index (the bound is checked with >=
    instead of >)."""

    breaks = ("RPC-IDX-044",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        args = _range_args(call) if call.method == "index.getContainerRange" else None
        if args is not None and args[1] > 0:
            last = proceed(call.with_(method="index.getLastAccepted", params={"encoding": "hex"}))
            found = last.get("result") if last is not None else None
            index = found.get("index") if isinstance(found, dict) else None
            if index is not None and str(args[0]) == str(index):
                return _error(call, SERVER_ERROR, f"startIndex {args[0]} is beyond the last accepted index {index}")
        return proceed(call)


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


@register
class NodeIdsFilterMismatchesEntries(Fault):
    """validators.getCurrentValidators with nodeIDs takes the members of each validator from the validator at the
    same position of the full list: the node IDs are those asked for, the rest is another validator's."""

    breaks = ("RPC-VAL-019",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method != "validators.getCurrentValidators" or not _params(call).get("nodeIDs") \
                or reply is None or not isinstance(reply.get("result"), dict):
            return reply
        everyone = (proceed(call.with_(params={})) or {}).get("result", {}).get("validators", [])
        found = reply["result"].get("validators", [])
        mixed = [{**everyone[position], "nodeID": validator["nodeID"]} if position < len(everyone) else validator
                 for position, validator in enumerate(found)]
        return {**reply, "result": {**reply["result"], "validators": mixed}}


@register
class ChainAliasRoutedToAnotherChain(_ChainAliasTracker):
    """A chain alias from admin.aliasChain answers for the node's other EVM chain (the alias table is keyed by the
    wrong chain)."""

    breaks = ("RPC-ADM-008",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        parts = _requested().split("/")
        if len(parts) == 3 and parts[0] == "bc" and parts[1] in self.chain_aliases:
            request = request.with_(endpoint=_sibling(request.endpoint))
        return proceed(request)


@register
class EndpointAliasRoutedToAnotherChain(_AliasTracker):
    """/ext/<alias> made with admin.alias of a chain's RPC answers for the node's other EVM chain."""

    breaks = ("RPC-ADM-003",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        if _requested() in self.aliases:
            request = request.with_(endpoint=_sibling(request.endpoint))
        return proceed(request)


@register
class SetLoggerLevelWithNameChangesAll(Fault):
    """admin.setLoggerLevel with loggerName changes every logger: the name is checked, then ignored."""

    breaks = ("RPC-ADM-035",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        params = _params(call)
        if call.method == "admin.setLoggerLevel" and params.get("loggerName") and reply is not None \
                and "result" in reply:
            proceed(call.with_(params={k: v for k, v in params.items() if k != "loggerName"}))
        return reply


@register
class ChainAliasServesRpcOnly(_ChainAliasTracker):
    """A chain alias from admin.aliasChain is registered for the chain's RPC route only: /ext/bc/<alias>/validators
    answers 404."""

    breaks = ("RPC-ADM-008",)

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        parts = _requested().split("/")
        if len(parts) == 3 and parts[0] == "bc" and parts[1] in self.chain_aliases and parts[2] != "rpc":
            return _not_found()
        return proceed(request)
