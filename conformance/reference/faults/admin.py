"""Faults that break the Admin API rules of the node catalogue (RPC-ADM-*, specs/rules/rpc.yaml)."""
from __future__ import annotations

from typing import Any

from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RpcHttpProceed, RpcProceed
from conformance.reference.jsonrpc import INVALID_PARAMS
from conformance.reference.faults.rpc_shared import (_Result, _all_but, _error, _not_found, _params, _requested,
    _result, _sibling)


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
class NamedLoggerLevelsSwapped(_Result):
    """admin.getLoggerLevel with a loggerName answers that logger's levels the other way round (and a level both
    share as another one), while the answer for all loggers is right."""

    breaks = ("RPC-ADM-036",)
    methods = ("admin.getLoggerLevel",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if _params(call).get("loggerName"):
            for levels in result["loggerLevels"].values():
                log, display = levels["logLevel"], levels["displayLevel"]
                levels["logLevel"], levels["displayLevel"] = (display, log) if log != display else \
                    ("DEBUG" if log != "DEBUG" else "INFO", display)
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


# --- Relations: each answer well-formed, what they mean together wrong ---

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


@register
class ChainAliasListedUnderEveryChain(_ChainAliasTracker):
    """admin.getChainAliases lists an alias made with admin.aliasChain under every chain, not only the one it names
    (the node keeps one list of added aliases for all chains)."""

    breaks = ("RPC-WRT-001",)

    def after(self, call: RpcCall, reply: dict | None) -> dict | None:
        if call.method == "admin.getChainAliases" and reply is not None and isinstance(reply.get("result"), dict):
            listed = reply["result"].get("aliases")
            if isinstance(listed, list):
                reply = {**reply, "result": {**reply["result"],
                                             "aliases": list(dict.fromkeys([*listed, *sorted(self.chain_aliases)]))}}
        return reply
