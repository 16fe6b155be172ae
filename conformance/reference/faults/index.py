"""Faults that break the Index API rules of the node catalogue (RPC-IDX-*, specs/rules/rpc.yaml)."""
from __future__ import annotations

import base64
import copy
import re
from datetime import datetime, UTC
from typing import Any

from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RpcHttpProceed, RpcProceed
from conformance.reference.jsonrpc import INVALID_PARAMS, SERVER_ERROR
from conformance.reference.faults.rpc_shared import (CONTAINER_METHODS, _Containers, _Result, _Unserved, _all_but,
    _error, _params, _result)


def _range_args(call: RpcCall) -> tuple[int, int] | None:
    params = _params(call)
    start, wanted = params.get("startIndex"), params.get("numToFetch")
    try:
        return int(start), int(wanted)  # type: ignore[arg-type]  # None or a non-number raises, caught below
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
        if _is_range(call) and _range_args(call)[1] == 0:  # type: ignore[index]  # _is_range read the arguments
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
        if _is_range(call) and _range_args(call)[1] == 0:  # type: ignore[index]  # _is_range read the arguments
            return _error(call, SERVER_ERROR, "numToFetch must be in [1,1024]")
        return proceed(call)


@register
class RangeMaxOffByOne(Fault):
    """index.getContainerRange rejects numToFetch 1024 (the bound is exclusive)."""

    breaks = ("RPC-IDX-003",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] >= 1024:  # type: ignore[index]  # _is_range read the arguments
            return _error(call, INVALID_PARAMS, "numToFetch must be below 1024")
        return proceed(call)


@register
class RangeMaxClamped(Fault):
    """index.getContainerRange serves 1024 containers for numToFetch above 1024 instead of rejecting it."""

    breaks = ("RPC-IDX-004",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if _is_range(call) and _range_args(call)[1] > 1024:  # type: ignore[index]  # _is_range read the arguments
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
        if _is_range(call) and _range_args(call)[1] == 0:  # type: ignore[index]  # _is_range read the arguments
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
        result["timestamp"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
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


# --- Relations: each answer well-formed, what they mean together wrong ---

#: The index endpoints, as the reference's node service names them (not imported: see rpc_shared's error codes).
INDEX_ENDPOINTS = ("index/C/block", "index/P/block", "index/X/tx", "index/X/block", "index/X/vtx")


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
