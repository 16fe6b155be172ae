"""Where the objects of each named schema sit in an answer, read from the response schema once per operation.

A plan is a list of (path, component): the steps from the body (or a JSON-RPC result) to every object the
document describes by a named schema (`#/components/schemas/Price`), through members, array items, map values and
`allOf`/`oneOf`/`anyOf` parts. Following a plan over an answer yields each instance with its JSON pointer; nothing
is validated here (shapes are the shape rules'), an instance that is not an object is passed over.
"""
from __future__ import annotations

from functools import cache
from typing import Any
from collections.abc import Iterator

from conformance import specs

#: Schemas nested deeper than this are not followed (no document nests its resources this deep).
MAX_DEPTH = 12
Step = str   # a member name, "[]" (each array item) or "{}" (each map value)


def _document(api: str) -> dict[str, Any]:
    return specs.openapi(api) if api in specs.REST_APIS else specs.openrpc(api)


def _plan(api: str, schema: Any, path: tuple[Step, ...], seen: tuple[str, ...],
          out: list[tuple[tuple[Step, ...], str]]) -> None:
    if not isinstance(schema, dict) or len(path) > MAX_DEPTH:
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            return
        out.append((path, name))
        _plan(api, specs.resolve(_document(api), schema), path, (*seen, name), out)
        return
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            _plan(api, part, path, seen, out)
    for name, member in schema.get("properties", {}).items():
        _plan(api, member, (*path, name), seen, out)
    # A list whose items the document describes for one case only (x-erc20-items: the transfers of an ERC-20
    # contract) is read as that case: an object of another kind shows none of the members compared.
    items = schema.get("x-erc20-items") if isinstance(schema.get("x-erc20-items"), dict) else schema.get("items")
    if isinstance(items, dict):
        _plan(api, items, (*path, "[]"), seen, out)
    if isinstance(schema.get("additionalProperties"), dict):
        _plan(api, schema["additionalProperties"], (*path, "{}"), seen, out)


@cache
def plan(api: str, root: str) -> tuple[tuple[tuple[Step, ...], str], ...]:
    """(path, component) of every named schema reachable from `root`: a response schema's JSON text key (see
    `response_root`), so that the plan of an operation is worked out once."""
    import json

    out: list[tuple[tuple[Step, ...], str]] = []
    _plan(api, json.loads(root), (), (), out)
    # one entry per (path, component): a component reached through two parts of a oneOf is read once
    return tuple(dict.fromkeys(out))


def response_root(schema: Any) -> str:
    import json

    return json.dumps(schema, sort_keys=True)


def _follow(value: Any, steps: tuple[Step, ...], pointer: str) -> Iterator[tuple[str, Any]]:
    if not steps:
        yield pointer, value
        return
    step, rest = steps[0], steps[1:]
    if step == "[]":
        if isinstance(value, list):
            for index, element in enumerate(value):
                yield from _follow(element, rest, f"{pointer}/{index}")
    elif step == "{}":
        if isinstance(value, dict):
            for key, element in value.items():
                yield from _follow(element, rest, f"{pointer}/{_escape(str(key))}")
    elif isinstance(value, dict) and step in value:
        yield from _follow(value[step], rest, f"{pointer}/{step}")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


_PLANS: dict[tuple[str, int], tuple[Any, tuple[tuple[tuple[Step, ...], str], ...]]] = {}


def plan_of(api: str, schema: Any) -> tuple[tuple[tuple[Step, ...], str], ...]:
    """The plan of a schema object of the specs, worked out once per object (the specs are loaded once)."""
    found = _PLANS.get((api, id(schema)))
    if found is None or found[0] is not schema:
        found = _PLANS[(api, id(schema))] = (schema, plan(api, response_root(schema)))
    return found[1]


def instances(api: str, schema: Any, answer: Any, components: tuple[str, ...] | None = None,
              ) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(component, JSON pointer, object) of every object of a named schema in `answer` (only of `components`)."""
    for path, component in plan_of(api, schema):
        if components is not None and component not in components:
            continue
        for pointer, found in _follow(answer, path, ""):
            if isinstance(found, dict):
                yield component, pointer or "/", found


def without(api: str, schema: Any, answer: Any, components: tuple[str, ...]) -> Any:
    """`answer` with every object of `components` replaced by null: what a projection onto them leaves alone."""
    import copy

    pointers = sorted((pointer for _, pointer, _ in instances(api, schema, answer, components)),
                      key=len, reverse=True)
    if not pointers:
        return answer
    out = copy.deepcopy(answer)
    for pointer in pointers:
        if pointer == "/":
            return None
        parts = [_unescape(part) for part in pointer.split("/")[1:]]
        parent: Any = out
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent.get(part)
            if parent is None:
                break
        else:
            if isinstance(parent, list):
                parent[int(parts[-1])] = None
            elif isinstance(parent, dict):
                parent[parts[-1]] = None
    return out


def documented(api: str, schema: Any, value: Any, depth: int = 0) -> Any:
    """`value` with only the members its schema names, at every depth: what two answers are compared on. A member
    the documents do not describe (a request ID, a server's timing) says nothing of the request that was sent, and
    may differ between two answers that agree on everything documented. An object whose schema names no members
    (a map, a free object) is kept whole."""
    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return value
    names, parts, extra = _members(api, schema)
    if isinstance(value, dict):
        if not names:
            return {key: documented(api, extra, item, depth + 1) for key, item in value.items()} \
                if extra is not None else value
        return {key: documented(api, _member_schema(api, parts, key), item, depth + 1)
                for key, item in value.items() if key in names}
    if isinstance(value, list):
        items = _items(api, parts)
        return [documented(api, items, item, depth + 1) for item in value] if items is not None else value
    return value


def _parts(api: str, schema: Any, depth: int = 0) -> list[dict[str, Any]]:
    """The schema and every schema it is made of (its $ref, allOf, oneOf, anyOf parts), resolved."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return []
    if isinstance(schema.get("$ref"), str):
        return _parts(api, specs.resolve(_document(api), schema), depth + 1)
    out = [schema]
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            out += _parts(api, part, depth + 1)
    return out


def _members(api: str, schema: Any) -> tuple[set[str], list[dict[str, Any]], Any]:
    parts = _parts(api, schema)
    names = {name for part in parts for name in part.get("properties", {})}
    extra = next((part["additionalProperties"] for part in parts if isinstance(part.get("additionalProperties"),
                                                                               dict)), None)
    return names, parts, extra


def _member_schema(api: str, parts: list[dict[str, Any]], name: str) -> Any:
    found = [part["properties"][name] for part in parts if name in part.get("properties", {})]
    return found[0] if len(found) == 1 else {"anyOf": found} if found else None


def _items(api: str, parts: list[dict[str, Any]]) -> Any:
    found = [part["items"] for part in parts if isinstance(part.get("items"), dict)]
    return found[0] if len(found) == 1 else {"anyOf": found} if found else None
