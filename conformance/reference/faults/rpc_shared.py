"""Helpers and base classes shared by the node faults of envelope, admin, index, evm, eth and validators."""
from __future__ import annotations

import copy
from typing import Any

from conformance.reference.calls import HttpReply, RpcCall, RpcHttp
from conformance.reference.middleware import Fault, RpcHttpProceed, RpcProceed


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


def _block_arg(call: RpcCall) -> Any:
    args = _args(call)
    return args[0] if args else None


def _int(value: Any) -> int | None:
    """A JSON number or a 0x hex quantity as an integer."""
    if isinstance(value, str) and value.startswith("0x"):
        try:
            return int(value, 16)
        except ValueError:
            return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
