"""Strategies from the OpenRPC param schemas, for the JSON Schema subset the specs use.

Supported: type (one or a list), enum, const, minimum/maximum, minLength/maxLength, pattern (via from_regex),
items, required/properties, oneOf/anyOf, local $ref. Invalid values are tagged with why they are invalid, and
with the rule that documents their refusal where a document does (RPC-IDX-004, RPC-IDX-015, RPC-ADM-006);
other invalid params are undocumented, so only the JSON-RPC envelope of the answer is decided.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar
from collections.abc import Callable

from hypothesis import strategies as st

from conformance import specs

T = TypeVar("T")

_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12)
#: Values of the wrong JSON type for each type; strings of digits are left out because a node may read them
#: as numbers (the document is silent on it).
_WRONG: dict[str, st.SearchStrategy[Any]] = {
    "integer": st.one_of(st.booleans(), _TEXT.filter(lambda s: not s.strip().lstrip("-").isdigit()),
                         st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
                         st.lists(st.integers(), max_size=2), st.just({})),
    "number": st.one_of(st.booleans(), _TEXT.filter(lambda s: not _is_number(s)), st.just([]), st.just({})),
    "string": st.one_of(st.integers(), st.booleans(), st.lists(_TEXT, max_size=2), st.just({})),
    "boolean": st.one_of(st.integers(min_value=2), _TEXT.filter(lambda s: s not in ("true", "false")), st.just([])),
    "array": st.one_of(st.integers(), _TEXT, st.booleans(), st.just({})),
    "object": st.one_of(st.integers(), _TEXT, st.booleans(), st.just([])),
}
#: Words of an x-errors "when" that say which kind of invalid value the document refuses.
_KIND_WORDS = {"above": "above", "enum": "other than", "length": "longer"}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class InvalidCase:
    """Params with exactly one invalid member, why it is invalid, and the rule refusing it (None: undocumented)."""

    params: Any
    param: str
    kind: str           # type | above | below | enum | length | pattern | missing
    rule: str | None


def _resolve(schema: dict[str, Any], api: str) -> dict[str, Any]:
    return specs.resolve(specs.openrpc(api), schema)


def values(schema: dict[str, Any], *, api: str) -> st.SearchStrategy[Any]:
    """Values valid against `schema` (a schema of the `api` OpenRPC document)."""
    schema = _resolve(schema, api)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            base = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf", "default", "title")}
            return st.one_of([values({**base, **_resolve(branch, api)}, api=api) for branch in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([values({**schema, "type": one}, api=api) for one in kind])
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
    if kind == "number":
        return st.floats(min_value=schema.get("minimum"), max_value=schema.get("maximum"), allow_nan=False,
                         allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=schema.get("minLength", 0),
                       max_size=min(schema.get("maxLength", 24), 24))
    if kind == "array":
        return st.lists(values(schema.get("items", {}), api=api), max_size=4)
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries({n: values(s, api=api) for n, s in props.items() if n in required},
                                     optional={n: values(s, api=api) for n, s in props.items() if n not in required})
    return st.none()


def invalid_values(schema: dict[str, Any], *, api: str) -> st.SearchStrategy[tuple[Any, str]]:
    """(value, kind) pairs that `schema` refuses: wrong types, out-of-range numbers, other enum values, too long."""
    schema = _resolve(schema, api)
    kind = schema.get("type")
    options: list[st.SearchStrategy[tuple[Any, str]]] = []
    branches = [_resolve(b, api) for key in ("oneOf", "anyOf") for b in schema.get(key, [])]
    if branches and kind is None:
        kinds = {b.get("type") for b in branches}
        kind = kinds.pop() if len(kinds) == 1 else None
    if branches and kind == "string":
        options.append(_TEXT.filter(lambda text: not _accepts(schema, text, api)).map(lambda v: (v, "pattern")))
    if isinstance(kind, str) and kind in _WRONG:
        options.append(_WRONG[kind].map(lambda v: (v, "type")))
    if kind == "integer":
        if "maximum" in schema:
            options.append(st.integers(min_value=schema["maximum"] + 1, max_value=schema["maximum"] + 2**70)
                           .map(lambda v: (v, "above")))
        if "minimum" in schema:
            options.append(st.integers(max_value=schema["minimum"] - 1, min_value=schema["minimum"] - 2**70)
                           .map(lambda v: (v, "below")))
    if kind == "string" and "enum" in schema:
        # Another spelling of a documented value ("HEX" for "hex") is not another value: nodes read some enums
        # without regard to case, and the documents do not say they must not.
        spellings = {str(value).casefold() for value in schema["enum"]}
        options.append(_TEXT.filter(lambda s: s.casefold() not in spellings).map(lambda v: (v, "enum")))
    if kind == "string" and "maxLength" in schema:
        options.append(st.integers(schema["maxLength"] + 1, schema["maxLength"] + 64)
                       .map(lambda n: ("a" * n, "length")))
    if kind == "array" and "items" in schema:
        item = _resolve(schema["items"], api)
        if item.get("type") in _WRONG:
            options.append(_WRONG[item["type"]].map(lambda v: ([v], "type")))
    if not options:
        raise ValueError(f"no invalid values can be made for {schema}")
    return st.one_of(options)


def _accepts(schema: dict[str, Any], value: Any, api: str) -> bool:
    from conformance.checks.shapes import schema_errors

    return not schema_errors(value, schema, api=api)


def _params(method: str, api: str) -> tuple[list[dict[str, Any]], bool]:
    found = specs.rpc_method(api, method)
    return found["params"], found.get("paramStructure") == "by-position"


def _built_once(build: Callable[[str, str, Any], st.SearchStrategy[T]]) -> Callable[..., st.SearchStrategy[T]]:
    """`build(method, api, fixed)` made once for each method and `fixed` (a test draws from it once per example);
    a `fixed` whose values cannot be a cache key is built anew each time."""
    cached = lru_cache(maxsize=256)(build)

    def strategy(method: str, *, api: str, fixed: dict[str, Any] | None = None) -> st.SearchStrategy[T]:
        items = tuple(sorted((fixed or {}).items()))
        try:
            hash(items)
        except TypeError:
            return build(method, api, fixed)
        return cached(method, api, items)
    strategy.__name__ = strategy.__qualname__ = build.__name__
    strategy.__doc__ = build.__doc__
    return strategy


@_built_once
def valid_params(method: str, api: str, fixed: Any) -> st.SearchStrategy[Any]:
    """Params of `method` valid against its OpenRPC params; `fixed` pins members the target must supply (IDs)."""
    fixed = dict(fixed or {})
    params, positional = _params(method, api)
    members = {p["name"]: st.just(fixed[p["name"]]) if p["name"] in fixed else values(p["schema"], api=api)
               for p in params}
    if positional:  # by-position: optional trailing params may be left out
        return st.integers(min_value=sum(p.get("required", False) for p in params), max_value=len(params)).flatmap(
            lambda n: st.tuples(*[members[p["name"]] for p in params[:n]]).map(list))
    required = {p["name"] for p in params if p.get("required")}
    return st.fixed_dictionaries({n: s for n, s in members.items() if n in required},
                                 optional={n: s for n, s in members.items() if n not in required})


@_built_once
def invalid_params(method: str, api: str, fixed: Any) -> st.SearchStrategy[InvalidCase]:
    """Params of `method` with one member invalid or one required member missing, the rest valid."""
    fixed = dict(fixed or {})
    params, positional = _params(method, api)
    if not params:
        raise ValueError(f"{method} has no params to make invalid")
    errors = specs.rpc_method(api, method).get("x-errors", [])

    def documented(name: str, kind: str) -> str | None:
        word = _KIND_WORDS.get(kind)
        return next((e["rule"] for e in errors if word and e["when"].split()[0] == name and word in e["when"]), None)

    base_params = valid_params(method, api=api, fixed=fixed)
    targets = st.sampled_from(params)
    # Each param's strategies are built when first drawn (a param with no invalid value fails only when chosen).
    invalid_of: dict[str, st.SearchStrategy[tuple[Any, str]]] = {}
    valid_of: dict[str, st.SearchStrategy[Any]] = {}

    @st.composite
    def cases(draw: st.DrawFn) -> InvalidCase:
        base = draw(base_params)
        target = draw(targets)
        name = target["name"]
        if target.get("required") and not positional and draw(st.booleans()):
            return InvalidCase({k: v for k, v in base.items() if k != name}, name, "missing", None)
        if name not in invalid_of:
            invalid_of[name] = invalid_values(target["schema"], api=api)
        value, kind = draw(invalid_of[name])
        if positional:
            position = params.index(target)
            for p in params[len(base):position]:
                if p["name"] not in valid_of:
                    valid_of[p["name"]] = values(p["schema"], api=api)
            valid = list(base) + [draw(valid_of[p["name"]]) for p in params[len(base):position]]
            return InvalidCase(valid[:position] + [value] + valid[position + 1:], name, kind, documented(name, kind))
        return InvalidCase({**base, name: value}, name, kind, documented(name, kind))
    return cases()


def boundary_values(schema: dict[str, Any], *, api: str) -> list[tuple[Any, bool]]:
    """The edge values of a bounded schema, each with whether the schema accepts it.

    The values are min-1, min, min+1, max-1, max, max+1."""
    schema = _resolve(schema, api)
    out: list[tuple[Any, bool]] = []
    if schema.get("type") == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None:
            out += [(low - 1, False), (low, True), (low + 1, True)]
        if high is not None:
            out += [(high - 1, True), (high, True), (high + 1, False)]
    if schema.get("type") == "string" and "maxLength" in schema:
        size = schema["maxLength"]
        out += [(size - 1, True), (size, True), (size + 1, False)]
    return sorted(set(out), key=lambda pair: pair[0])


def container_ranges(*, last_index: int, max_fetch: int, min_fetch: int = 0) -> st.SearchStrategy[tuple[int, int]]:
    """(startIndex, numToFetch) pairs inside an index whose last accepted index is `last_index` (RPC-IDX-001, 007).

    A start at the last accepted index itself is drawn only when it is the only one: that edge is RPC-IDX-044's,
    tried by its own test in every profile, and a node that refuses it is charged there, not here again.
    """
    if last_index < 0:
        raise ValueError(f"last_index={last_index} must be at least 0")
    if not 0 <= min_fetch <= max_fetch:
        raise ValueError(f"need 0 <= min_fetch <= max_fetch, got min_fetch={min_fetch}, max_fetch={max_fetch}")
    return st.tuples(st.integers(min_value=0, max_value=max(0, last_index - 1)),
                     st.integers(min_value=min_fetch, max_value=max_fetch))
