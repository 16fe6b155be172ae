"""The JSON-RPC 2.0 envelope of every node API: parsing, batches, errors, dispatch to method handlers."""
from __future__ import annotations

import json
from typing import Any
from collections.abc import Callable

from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.middleware import Fault, chain

# The documents leave codes "not shown"; these are JSON-RPC 2.0's own, as a careful server would use.
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
SERVER_ERROR = -32000


class RpcError(Exception):
    """Ends a call with a JSON-RPC error object."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def invalid_params(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, message)


Handler = Callable[[RpcCall], Any]


def error_object(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": request_id}


class JsonRpcDispatcher:
    """Answers JSON-RPC requests with handlers registered per API: {api: {method: handler}}."""

    def __init__(self, methods: dict[str, dict[str, Handler]]) -> None:
        self.methods = methods

    def handle(self, request: RpcHttp, faults: list[Fault]) -> HttpReply:
        return chain(faults, "rpc_http", lambda r: self._http(r, faults))(request)

    def _http(self, request: RpcHttp, faults: list[Fault]) -> HttpReply:
        try:
            payload = json.loads(request.body)
        except (ValueError, UnicodeDecodeError):
            return HttpReply(200, error_object(None, PARSE_ERROR, "parse error: the body is not JSON"))
        call_one = chain(faults, "rpc", self._call)
        if isinstance(payload, list):
            if not payload:
                return HttpReply(200, error_object(None, INVALID_REQUEST, "empty batch"))
            replies = [reply for item in payload if (reply := self._one(request, item, call_one)) is not None]
            return HttpReply(200, replies) if replies else HttpReply(204)
        reply = self._one(request, payload, call_one)
        return HttpReply(200, reply) if reply is not None else HttpReply(204)

    def _one(self, request: RpcHttp, item: Any, call_one: Callable[[RpcCall], Any]) -> dict | None:
        if not isinstance(item, dict):
            return error_object(None, INVALID_REQUEST, "invalid request: not a JSON object")
        request_id = item.get("id")
        if item.get("jsonrpc") != "2.0" or not isinstance(item.get("method"), str):
            return error_object(request_id if _valid_id(request_id) else None, INVALID_REQUEST,
                                "invalid request: jsonrpc must be \"2.0\" and method a string")
        if not _valid_id(request_id):
            return error_object(None, INVALID_REQUEST, "invalid request: id must be a string, number or null")
        params = item.get("params")
        if "params" in item and not isinstance(params, (dict, list)):
            return error_object(request_id, INVALID_REQUEST, "invalid request: params must be an object or array")
        call = RpcCall(endpoint=request.endpoint, api=request.api, method=item["method"], params=params,
                       id=request_id, has_params="params" in item)
        reply = call_one(call)
        return None if "id" not in item else reply

    def _call(self, call: RpcCall) -> dict:
        handler = self.methods.get(call.api, {}).get(call.method)
        if handler is None:
            return error_object(call.id, METHOD_NOT_FOUND, f"the method {call.method} does not exist/is not available")
        try:
            return {"jsonrpc": "2.0", "result": handler(call), "id": call.id}
        except RpcError as exc:
            return error_object(call.id, exc.code, exc.message)


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))
