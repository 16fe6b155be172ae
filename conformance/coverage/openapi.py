"""Coverage items of a REST API (its OpenAPI document), and what one exchange shows of them.

Parameters arrive as text (path segments, query values): each is read as its schema's type when it can be (`10`
as an integer), else judged as the text it is, so `pageSize=abc` violates `type: integer`. A value's valid side
counts when the target answered 2XX; its invalid side when the target refused the request (400, 404, 422).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from conformance import specs
from conformance.clients.http import KEEP_WHOLE, Exchange, opens_a_container
from conformance.coverage.items import REACHED, VALID, Shape, Update
from conformance.coverage.keywords import (BOUNDS, Keyword, Keywords, Sampler, merged, presence_updates,
                                           value_updates)

VERBS = ("get", "post", "put", "patch", "delete")
REFUSED = frozenset({400, 404, 422})


def accepted(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


def unreachable_status(status: str, has_key: bool) -> bool:
    """Statuses no conformant target can be made to answer on request: 5XX, 429, and 401/403 without a key."""
    return status.startswith("5") or status == "429" or (not has_key and status in ("401", "403"))


@dataclass
class Parameter:
    """One declared parameter (or the request body, named `body`) with its merged schema and keyword items."""

    name: str
    location: str
    required: bool
    schema: dict[str, Any]
    keywords: Keywords
    explode: bool = True
    examples: dict[str, Any] = field(default_factory=dict)

    def text_only(self, keyword: Keyword) -> bool:
        """Whether no request can violate `keyword`: any text of a path or query value is a string, and a list
        of strings once split."""
        if self.location == "body":
            return False
        if keyword.name == "type":
            return keyword.value in ("string", "array") or keyword.value == ["string"]
        return keyword.name == "minLength" and keyword.value <= 0


@dataclass
class Operation:
    name: str          # "GET /v1/…"
    pattern: re.Pattern[str]
    parameters: list[Parameter]
    responses: dict[str, Keywords | None]   # status ("200", "4XX", "default") -> its schema's keywords, or None


def _path_pattern(template: str) -> re.Pattern[str]:
    names: list[str] = []

    def group(match: re.Match[str]) -> str:
        names.append(match.group(1))
        return f"(?P<p{len(names) - 1}>[^/]+)"
    pattern = re.sub(r"\\\{([^}]+)\\\}", group, re.escape(template))
    return re.compile(pattern + "$")


def _examples(parameter: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "example" in parameter:
        out["example"] = parameter["example"]
    for name, example in (parameter.get("examples") or {}).items():
        if isinstance(example, dict) and "value" in example:
            out[name] = example["value"]
    for index, value in enumerate(schema.get("examples") or []):
        out[f"schema[{index}]"] = value
    return out


@cache
def _operations(api: str) -> dict[str, Operation]:
    """The operations of one OpenAPI document, their parameters' and responses' keywords compiled."""
    document = specs.openapi(api)
    operations: dict[str, Operation] = {}
    for template, item in document.get("paths", {}).items():
        shared = item.get("parameters", [])
        for verb in VERBS:
            if verb not in item:
                continue
            op = item[verb]
            parameters = []
            for raw in [*shared, *op.get("parameters", [])]:
                raw = specs.resolve(document, raw)
                schema = merged(document, raw.get("schema", {}))
                parameters.append(Parameter(
                    raw["name"], raw["in"], bool(raw.get("required")), schema,
                    Keywords(api, schema, raw["name"]), explode=raw.get("explode", True),
                    examples=_examples(raw, schema)))
            body = specs.resolve(document, op.get("requestBody"))
            if isinstance(body, dict):
                schema = merged(document, (body.get("content", {}).get("application/json") or {}).get("schema"))
                parameters.append(Parameter("body", "body", bool(body.get("required")), schema,
                                            Keywords(api, schema, "body")))
            responses = {}
            for status, response in op.get("responses", {}).items():
                response = specs.resolve(document, response)
                media = (response.get("content") or {}).get("application/json") or {}
                responses[str(status)] = Keywords(api, media["schema"]) if "schema" in media else None
            name = f"{verb.upper()} {template}"
            operations[name] = Operation(name, _path_pattern(template), parameters, responses)
    return operations


class RestModel:
    """The operations of one OpenAPI document as coverage items."""

    def __init__(self, api: str, has_key: bool) -> None:
        self.api, self.has_key = api, has_key
        self.document = specs.openapi(api)
        # compiled once per process: the specs do not change while it lives, so every run (each target of a
        # fleet, each in-process self-test run) shares them; what a run counts is its own (the sampler, the tallies)
        self.operations: dict[str, Operation] = _operations(api)
        self.sampler = Sampler()

    def shapes(self) -> dict[str, dict[str, dict[str, Shape]]]:
        out: dict[str, dict[str, dict[str, Shape]]] = {}
        for name, op in self.operations.items():
            dims: dict[str, dict[str, Shape]] = {
                "operations": {"answered": Shape(invalid=False)}, "parameters": {}, "keywords": {},
                "examples": {}, "responses": {}, "response_keywords": {}}
            for parameter in op.parameters:
                can_violate = any(not parameter.text_only(k) for k in parameter.keywords)
                path_param = parameter.location == "path"
                dims["parameters"][parameter.name] = Shape(
                    invalid=can_violate or (parameter.required and not path_param))
                if parameter.required:
                    dims["keywords"][f"{parameter.name} required"] = Shape(invalid=not path_param)
                for keyword in parameter.keywords:
                    members = tuple(keyword.value) if keyword.name == "enum" else None
                    dims["keywords"][keyword.id] = Shape(invalid=not parameter.text_only(keyword),
                                                         bound=keyword.name in BOUNDS, members=members)
                for example in parameter.examples:
                    dims["examples"][f"{parameter.name} {example}"] = Shape(invalid=False)
            for status, keywords in op.responses.items():
                unreachable = unreachable_status(status, self.has_key)
                dims["responses"][status] = Shape(invalid=False, unreachable=unreachable)
                if keywords is not None:
                    for keyword in keywords:
                        dims["response_keywords"][f"{status} {keyword.id}"] = Shape(
                            invalid=False, unreachable=unreachable)
            out[name] = dims
        return out

    def observe(self, operation: str, exchange: Exchange) -> list[Update]:
        """What one exchange of `operation` shows, as updates to apply."""
        op = self.operations.get(operation)
        if op is None or exchange.status is None:
            return []
        parts = urlsplit(exchange.url)
        match = op.pattern.search(parts.path)
        if match is None:
            return []
        ok, refused = accepted(exchange.status), exchange.status in REFUSED
        updates = [Update(operation, "operations", "answered", VALID if ok else REACHED)]
        status = self._documented_status(op, exchange.status)
        if status is not None:
            updates.append(Update(operation, "responses", status, VALID))
            keywords = op.responses[status]
            if keywords is not None and len(exchange.body) <= KEEP_WHOLE and opens_a_container(exchange.body) \
                    and self.sampler.read((operation, status)):
                body = exchange.json() if exchange.is_json() else None
                if body is not None:
                    updates += [Update(operation, "response_keywords", f"{status} {j.id}", VALID)
                                for j in keywords.judge(body) if j.satisfied]
        if not (ok or refused):
            return updates
        query = parse_qs(parts.query, keep_blank_values=True)
        path_values = [unquote(value) for value in match.groups()]
        path_names = [p.name for p in op.parameters if p.location == "path"]
        for parameter in op.parameters:
            values = self._values(parameter, query, dict(zip(path_names, path_values)), exchange)
            updates += self._parameter_updates(operation, parameter, values, ok)
        return updates

    def _documented_status(self, op: Operation, status: int) -> str | None:
        for candidate in (str(status), f"{str(status)[0]}XX", "default"):
            if candidate in op.responses:
                return candidate
        return None

    def _values(self, parameter: Parameter, query: dict[str, list[str]], path: dict[str, str],
                exchange: Exchange) -> list[tuple[Any, str]]:
        """The values sent for one parameter, each as (typed value, text sent)."""
        if parameter.location == "path":
            texts = [path[parameter.name]] if parameter.name in path else []
        elif parameter.location == "query":
            texts = query.get(parameter.name, [])
        elif parameter.location == "header":
            texts = [v for k, v in exchange.request_headers.items() if k.lower() == parameter.name.lower()]
        else:
            if exchange.request_body is None:
                return []
            try:
                return [(json.loads(exchange.request_body), "")]
            except ValueError:
                return [(exchange.request_body.decode("utf-8", "replace"), "")]
        if parameter.schema.get("type") == "array" and not parameter.explode:
            return [([typed(part, parameter.schema.get("items") or {}) for part in text.split(",")], text)
                    for text in texts]
        if parameter.schema.get("type") == "array":
            return [([typed(text, parameter.schema.get("items") or {}) for text in texts], ",".join(texts))] \
                if texts else []
        return [(typed(text, parameter.schema), text) for text in texts]

    def _parameter_updates(self, operation: str, parameter: Parameter, values: list[tuple[Any, str]],
                           ok: bool) -> list[Update]:
        updates = presence_updates(operation, parameter.name, parameter.required, bool(values), ok)
        for value, text in values:
            judgements = parameter.keywords.judge(value)
            updates += value_updates(operation, parameter.name, judgements, ok)
            if ok and all(j.satisfied for j in judgements):
                updates += [Update(operation, "examples", f"{parameter.name} {name}", VALID)
                            for name, example in parameter.examples.items()
                            if example == value or str(example) == text]
        return updates


_INTEGER = re.compile(r"-?[0-9]+")


def typed(text: str, schema: dict[str, Any]) -> Any:
    """A path or query value read as its schema's type when it is one; else the text itself."""
    kind = schema.get("type")
    if kind == "integer" and _INTEGER.fullmatch(text):
        return int(text)
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            return text
        if math.isfinite(number):
            return int(number) if _INTEGER.fullmatch(text) else number
        return text
    if kind == "boolean" and text in ("true", "false"):
        return text == "true"
    return text
