"""Which documented operation a request exercised: its API and JSON-RPC method or `VERB /template` REST route."""
from __future__ import annotations

import json
import re
from functools import cache
from urllib.parse import urlsplit

from conformance import specs
from conformance.clients.http import Exchange

_HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@cache
def _rpc_methods() -> dict[str, str]:
    """JSON-RPC method name -> the API whose OpenRPC document declares it."""
    return {method["name"]: api for api in specs.RPC_APIS for method in specs.openrpc(api)["methods"]}


@cache
def _rest_routes() -> list[tuple[re.Pattern[str], str, str, str]]:
    """(path pattern, HTTP method, API, template) for every documented REST operation, most literal first."""
    routes = []
    for api in specs.REST_APIS:
        for template, item in specs.openapi(api).get("paths", {}).items():
            pattern = re.compile(re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template)) + "$")
            for verb in _HTTP_METHODS:
                if verb in item:
                    routes.append((pattern, verb.upper(), api, template))
    routes.sort(key=lambda route: -len(re.sub(r"\{[^}]+\}", "", route[3])))
    return routes


def all_operations() -> dict[str, set[str]]:
    """Every documented operation, per API: JSON-RPC method names and `VERB /template` REST operations."""
    out: dict[str, set[str]] = {api: set() for api in specs.ALL_APIS}
    for name, api in _rpc_methods().items():
        out[api].add(name)
    for _, verb, api, template in _rest_routes():
        out[api].add(f"{verb} {template}")
    return out


def _rpc_api_from_path(path: str) -> str | None:
    if path.endswith("/ext/admin"):
        return "admin"
    if "/ext/index/" in path:
        return "index"
    if path.endswith("/validators"):
        return "validators"
    return "evm" if path.endswith("/rpc") else None


def operation_of(exchange: Exchange) -> tuple[str, str] | None:
    """(API, operation) of one exchange, or None when it matches nothing documented (a probe of a wrong path);
    worked out once per exchange, for coverage, the watch and the latencies alike."""
    known = exchange.__dict__.get("_operation", _UNKNOWN)
    if known is _UNKNOWN:
        known = exchange._operation = _operation_of(exchange)   # type: ignore[attr-defined]  # a memo, not a field
    return known


_UNKNOWN = object()


def _operation_of(exchange: Exchange) -> tuple[str, str] | None:
    path = urlsplit(exchange.url).path
    if exchange.method == "POST" and exchange.request_body and exchange.request_body[:1] in (b"{", b"["):
        try:
            body = json.loads(exchange.request_body)
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("method"), str):
            method = body["method"]
            api = _rpc_methods().get(method) or _rpc_api_from_path(path)
            return (api, method) if api else None
        if isinstance(body, list):
            api = _rpc_api_from_path(path)
            return (api, "batch") if api else None
    for pattern, verb, api, template in _rest_routes():
        if verb == exchange.method and pattern.search(path):
            return api, f"{verb} {template}"
    return None
