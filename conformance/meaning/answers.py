"""One exchange read as a documented answer: its operation, the request's parameters, and the answer's schema.

REST: the operation's 200 response; JSON-RPC: the method's result (of a response object with a `result`).
Anything else (an error, a batch, an undocumented path) is not an answer the declarations speak about.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from conformance import specs
from conformance.clients.http import Exchange
from conformance.operations import operation_of


@dataclass(frozen=True)
class Answer:
    api: str
    operation: str        # "GET /template" or the JSON-RPC method name
    subject: str          # the operationId or method name the declarations use
    value: Any            # the REST body, or the JSON-RPC result
    schema: Any           # its schema (local references unresolved)
    params: dict[str, Any]   # path and query parameters, or the JSON-RPC params by name; `endpoint` the RPC path
    exchange: Exchange


@cache
def _rest_operations(api: str) -> dict[str, tuple[str, re.Pattern[str], Any, tuple[str, ...]]]:
    """"VERB /template" -> (operationId, path pattern capturing its parameters, 200 schema, path names)."""
    out = {}
    for template, item in specs.openapi(api)["paths"].items():
        names = tuple(re.findall(r"\{(\w+)\}", template))
        pattern = re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$")
        for verb, operation in item.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            schema = operation.get("responses", {}).get("200", {}).get("content", {}).get(
                "application/json", {}).get("schema")
            out[f"{verb.upper()} {template}"] = (operation["operationId"], pattern, schema, names)
    return out


@cache
def _rpc_methods(api: str) -> dict[str, tuple[Any, tuple[str, ...]]]:
    """method -> (result schema, parameter names in order)."""
    return {method["name"]: (method.get("result", {}).get("schema"), tuple(p["name"] for p in method.get("params", [])))
            for method in specs.openrpc(api)["methods"]}


def answer_of(exchange: Exchange) -> Answer | None:
    if exchange.status != 200:
        return None
    found = operation_of(exchange)
    if found is None:
        return None
    api, operation = found
    if api in specs.REST_APIS:
        known = _rest_operations(api).get(operation)
        if known is None or not exchange.is_json():
            return None
        subject, pattern, schema, _ = known
        parts = urlsplit(exchange.url)
        matched = pattern.search(parts.path)
        params: dict[str, Any] = {k: unquote(v) for k, v in matched.groupdict().items()} if matched else {}
        params.update(parse_qsl(parts.query))
        return Answer(api, operation, subject, exchange.json(), schema, params, exchange)
    method = _rpc_methods(api).get(operation)
    if method is None or not exchange.is_json():
        return None
    body = exchange.json()
    if not isinstance(body, dict) or "result" not in body or "error" in body:
        return None
    schema, names = method
    request = _request(exchange)
    given = request.get("params") if isinstance(request, dict) else None
    params = dict(given) if isinstance(given, dict) else dict(zip(names, given)) if isinstance(given, list) else {}
    params["endpoint"] = urlsplit(exchange.url).path
    return Answer(api, operation, operation, body["result"], schema, params, exchange)


def _request(exchange: Exchange) -> Any:
    try:
        return json.loads(exchange.request_body or b"null")
    except ValueError:
        return None
