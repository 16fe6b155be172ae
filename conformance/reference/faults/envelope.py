"""Faults that break the JSON-RPC 2.0 envelope rules of the node catalogue (RPC-ENV-*, specs/rules/rpc.yaml)."""
from __future__ import annotations

from typing import Any

from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RpcHttpProceed, RpcProceed
from conformance.reference.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from conformance.reference.faults.rpc_shared import PARAMETERLESS, _all_but, _error, _error_objects, _result


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
