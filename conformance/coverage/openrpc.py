"""Coverage items of a node API (its OpenRPC document), and what one JSON-RPC exchange shows of them.

A call's valid side counts when it was answered with a `result`, its invalid side when it was answered with an
`error`. The forms of params the method allows (an object by name, an array by position) are parameter items of
their own; the documented errors (`x-errors`) are one response item beside `result`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from conformance import specs
from conformance.clients.http import KEEP_WHOLE, Exchange
from conformance.coverage.items import REACHED, VALID, Shape, Update
from conformance.coverage.keywords import BOUNDS, Keywords, Sampler, presence_updates, value_updates

FORMS = {"by-name": ("by-name",), "by-position": ("by-position",), "either": ("by-name", "by-position")}


@dataclass
class Param:
    name: str
    required: bool
    keywords: Keywords


@dataclass
class Method:
    name: str
    params: list[Param]
    forms: tuple[str, ...]
    result: Keywords | None
    errors: list[str]
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)   # example name -> {param: value}


@cache
def _methods(api: str) -> dict[str, Method]:
    """The methods of one OpenRPC document, their params' and results' keywords compiled."""
    document = specs.openrpc(api)
    methods: dict[str, Method] = {}
    for method in document["methods"]:
        params = []
        for raw in method.get("params", []):
            raw = specs.resolve(document, raw)
            params.append(Param(raw["name"], bool(raw.get("required")),
                                Keywords(api, raw.get("schema", {}), raw["name"])))
        result = specs.resolve(document, method.get("result"))
        examples = {example.get("name", str(index)): {p["name"]: p.get("value") for p in example.get("params", [])}
                    for index, example in enumerate(method.get("examples", []))}
        methods[method["name"]] = Method(
            method["name"], params, FORMS.get(method.get("paramStructure", "either"), FORMS["either"]),
            Keywords(api, result["schema"], "result") if isinstance(result, dict) and "schema" in result
            else None,
            [error.get("when", "") for error in method.get("x-errors", [])], examples)
    return methods


class RpcModel:
    """The methods of one OpenRPC document as coverage items."""

    def __init__(self, api: str, has_key: bool) -> None:
        self.api = api
        self.document = specs.openrpc(api)
        self.methods: dict[str, Method] = _methods(api)   # compiled once per process, as RestModel's operations
        self.sampler = Sampler()

    def shapes(self) -> dict[str, dict[str, dict[str, Shape]]]:
        out: dict[str, dict[str, dict[str, Shape]]] = {}
        for name, method in self.methods.items():
            dims: dict[str, dict[str, Shape]] = {
                "operations": {"answered": Shape(invalid=False)}, "parameters": {}, "keywords": {},
                "examples": {}, "responses": {"result": Shape(invalid=False)}, "response_keywords": {}}
            if method.params:
                for form in method.forms:
                    dims["parameters"][f"({form} form)"] = Shape(invalid=False)
            for param in method.params:
                dims["parameters"][param.name] = Shape(invalid=bool(param.keywords) or param.required)
                if param.required:
                    dims["keywords"][f"{param.name} required"] = Shape()
                for keyword in param.keywords:
                    dims["keywords"][keyword.id] = Shape(
                        bound=keyword.name in BOUNDS,
                        members=tuple(keyword.value) if keyword.name == "enum" else None)
            for example in method.examples:
                dims["examples"][example] = Shape(invalid=False)
            if method.errors:
                dims["responses"]["error"] = Shape(invalid=False)
            if method.result is not None:
                for keyword in method.result:
                    dims["response_keywords"][keyword.id] = Shape(invalid=False)
            out[name] = dims
        return out

    def observe(self, operation: str, exchange: Exchange) -> list[Update]:
        method = self.methods.get(operation)
        if method is None or not exchange.request_body or len(exchange.body) > KEEP_WHOLE:
            return []
        try:
            request = json.loads(exchange.request_body)
        except ValueError:
            return []
        answer = exchange.json() if exchange.body[:1] == b"{" and exchange.is_json() else None
        if not isinstance(request, dict) or not isinstance(answer, dict):
            return []
        ok, refused = "result" in answer and "error" not in answer, "error" in answer
        updates = [Update(operation, "operations", "answered", VALID if ok else REACHED)]
        if ok:
            updates.append(Update(operation, "responses", "result", VALID))
            if method.result is not None and self.sampler.read(operation):
                updates += [Update(operation, "response_keywords", j.id, VALID)
                            for j in method.result.judge(answer["result"]) if j.satisfied]
        elif refused and method.errors:
            updates.append(Update(operation, "responses", "error", VALID))
        if not (ok or refused):
            return updates
        params = request.get("params")
        if isinstance(params, list):
            form, named = "by-position", {p.name: v for p, v in zip(method.params, params)}
        elif isinstance(params, dict):
            form, named = "by-name", params
        else:
            form, named = None, {}
        if form in method.forms and method.params and ok:
            updates.append(Update(operation, "parameters", f"({form} form)", VALID))
        for param in method.params:
            updates += self._param_updates(operation, param, named, ok)
        if ok:
            updates += [Update(operation, "examples", name, VALID) for name, values in method.examples.items()
                        if all(named.get(key) == value for key, value in values.items())]
        return updates

    def _param_updates(self, operation: str, param: Param, named: dict[str, Any], ok: bool) -> list[Update]:
        present = param.name in named
        updates = presence_updates(operation, param.name, param.required, present, ok)
        if not present:
            return updates
        return updates + value_updates(operation, param.name, param.keywords.judge(named[param.name]), ok)
