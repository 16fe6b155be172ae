"""The calls a declared effect of a JSON-RPC method is checked with: which endpoint, how the parameters are sent
(by name or by position, the other required ones filled from their schemas), and which values are tried."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance import specs
from conformance.checks.envelope import is_error
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.meaning import instances, members
from conformance.meaning.declarations import Declaration

#: Values of a filter or an echo tried beyond the first, in exhaustive profiles.
MORE_VALUES = 2


def method_spec(effect: Declaration) -> dict[str, Any]:
    return specs.rpc_method(effect.api, effect.subject)


class RpcEffectCalls:
    """Calls of one declared effect on one endpoint."""

    def __init__(self, client: JsonRpcClient, exhaustive: bool) -> None:
        self.client = client
        self.exhaustive = exhaustive

    def params(self, effect: Declaration, values: dict[str, Any]) -> Any:
        """The params of a call sending `values` (others required filled from their schemas, left out when None)."""
        method = method_spec(effect)
        ordered: list[tuple[str, Any]] = []
        for param in method.get("params", []):
            name = param["name"]
            if name in values:
                if values[name] is not None:
                    ordered.append((name, values[name]))
            elif param.get("required"):
                ordered.append((name, filler(param.get("schema", {}))))
        if method.get("paramStructure") == "by-position":
            return [value for _, value in ordered]
        return dict(ordered)

    def call(self, effect: Declaration, values: dict[str, Any]) -> Exchange:
        return self.client.call(effect.subject, self.params(effect, values))

    def result(self, exchange: Exchange, method: str | None = None) -> Any:
        """The result of an answered call; the test skips on an error (the method's own rules report it)."""
        body = exchange.json() if exchange.is_json() else None
        if not isinstance(body, dict) or "result" not in body or is_error(exchange):
            if method is not None and deprecated(method):
                pytest.skip(f"{method} (deprecated) is not served")
            pytest.skip(f"{exchange.url} answered no result: the method's own rules report it")
        return body["result"]

    def peek(self, method: str, params: Any) -> Any:
        exchange = self.client.call(method, params)
        body = exchange.json() if exchange.is_json() else None
        return body.get("result") if isinstance(body, dict) and "error" not in body else None

    def items(self, effect: Declaration, result: Any) -> list[Any]:
        """The items a filter keeps or drops: the elements of `items` (an array), or the keys of a map (`x{}`)."""
        path = effect.get("items")
        if path is None:
            return result if isinstance(result, list) else []
        if path.endswith("{}"):
            found = members.first(result, path[:-2])
            return [{"@key": key, **(value if isinstance(value, dict) else {})} for key, value in found.items()] \
                if isinstance(found, dict) else []
        found = members.first(result, path)
        return found if isinstance(found, list) else []

    def count(self) -> int:
        return 1 + (MORE_VALUES if self.exhaustive else 0)

    def source_values(self, effect: Declaration) -> list[Any]:
        """The values an echo is tried with: from the declared source call's answers, or recent blocks."""
        source = effect.get("values")
        if source in ("blocks", "block-hashes"):
            head = members.number(self.peek("eth_blockNumber", []))
            if not isinstance(head, int):
                return []
            numbers = [max(0, head - k) for k in (1, 2, 3)][:self.count()]
            if source == "blocks":
                return [hex(n) for n in numbers]
            blocks = [self.peek("eth_getBlockByNumber", [hex(n), False]) for n in numbers]
            return [block["hash"] for block in blocks if isinstance(block, dict) and isinstance(block.get("hash"), str)]
        if isinstance(source, dict):
            result = self.peek(source["method"], source.get("params", {}))
            found = members.values(result, source["member"])
            picked = [value for value in found if value is not None]
            if effect.get("numeric"):
                picked = [int(n) for v in picked if isinstance(n := members.number(v), (int, float))]
            return picked[1:1 + self.count()] or picked[:1]
        return []


def deprecated(method: str) -> bool:
    """Whether the specs mark a method deprecated (a node may no longer serve it)."""
    found = [m for api in specs.RPC_APIS for m in specs.openrpc(api)["methods"] if m["name"] == method]
    return bool(found and found[0].get("deprecated"))


def filler(schema: dict[str, Any]) -> Any:
    """A value of a required parameter no effect is about: its one allowed value, false, or zero."""
    if "enum" in schema:
        return schema["enum"][0]
    if schema.get("type") == "boolean":
        return False
    if schema.get("type") == "integer":
        return schema.get("minimum", 0)
    return None


def equal_results(normalise: Callable[[Any], Any], effect: Declaration | None = None) -> Callable[[Exchange], Any]:
    """What two answers of a method are compared on: the error code of an error, else the result normalised, with
    only the members its documented schema names when `effect` says which method it is (see
    instances.documented)."""
    schema = specs.rpc_method(effect.api, effect.subject).get("result", {}).get("schema") if effect else None

    def value(exchange: Exchange) -> Any:
        body = exchange.json() if exchange.is_json() else None
        if not isinstance(body, dict):
            return ("not JSON-RPC", exchange.status)
        if "error" in body:
            return ("error", (body["error"] or {}).get("code") if isinstance(body["error"], dict) else None)
        result = body.get("result")
        if effect is not None and schema is not None:
            result = instances.documented(effect.api, schema, result)
        return normalise(result)
    return value
