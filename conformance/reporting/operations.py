"""Which documented operation a request exercised, and how long the target took to answer it."""
from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass, field
from functools import cache
from typing import Any
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


@dataclass
class OperationTimes:
    """Latencies per operation, in milliseconds, with the server and client versions the answers named."""

    times: dict[str, list[float]] = field(default_factory=dict)   # "api operation" -> [ms, ...]
    servers: set[str] = field(default_factory=set)                 # Server headers seen
    client_versions: set[str] = field(default_factory=set)         # web3_clientVersion results seen

    def record(self, exchange: Exchange) -> None:
        if exchange.status is None:
            return   # an attempt that got no answer: its time is not the operation's
        found = operation_of(exchange)
        if found is not None:
            self.times.setdefault(f"{found[0]} {found[1]}", []).append(round(exchange.elapsed * 1000, 3))
            if found[1] == "web3_clientVersion" and exchange.status == 200 and len(exchange.body) < 4096:
                result = exchange.json().get("result") if exchange.is_json() else None
                if isinstance(result, str) and isinstance(exchange.json(), dict):
                    self.client_versions.add(result[:200])
        server = exchange.response_headers.get("server")
        if server and len(self.servers) < 20:
            self.servers.add(server[:200])

    def summary(self) -> list[dict[str, Any]]:
        """One entry per operation: api, operation, requests, median/p95/max milliseconds."""
        out = []
        for key in sorted(self.times):
            api, operation = key.split(" ", 1)
            values = sorted(self.times[key])
            p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
            out.append({"api": api, "operation": operation, "requests": len(values),
                        "median_ms": round(statistics.median(values), 3), "p95_ms": p95, "max_ms": values[-1]})
        return out
