"""The validation keywords of a JSON schema as coverage items, and how one value fares against each of them.

A keyword item is named by where it sits (`addresses`, `results[].value`) and the keyword (`type`, `minimum`,
`enum`, …). Annotations (title, description, default, examples, `x-*`) are not keywords: they decide nothing.

Whether a value satisfies a keyword is the shape checks' verdict: the keyword alone, compiled as the checks compile
a schema (conformance.checks.shapes), so formats, the regex dialect, combinators and `$ref`s mean to coverage what
they mean to a shape check. Only what coverage counts beside that verdict is decided here: which values show a
keyword at all, whether one sits on a bound itself, and which enum member it is.
"""
from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from conformance import specs
from conformance.checks import shapes
from conformance.coverage.items import INVALID, VALID, Update

#: Keywords judged on the value itself; `properties`, `items` and the combinators are walked into instead.
VALUE_KEYWORDS = ("type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                  "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "required")
#: Keywords whose valid side is complete only when a value at the bound itself was accepted.
BOUNDS = frozenset({"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"})
#: The `format`s the documents give a meaning to; others are not items. The validator reads a format as an
#: annotation, as every shape check does: any string satisfies it (the Data API's formats have rules of their own).
FORMATS = frozenset({"hex", "decimal-integer", "decimal", "lowercase", "date-time"})
#: How deep a schema is walked: deeper members are not items (recursive schemas end here).
MAX_DEPTH = 8
#: Array elements judged per array: the first few show every keyword of the items schema a page can show.
SAMPLED_ITEMS = 3
#: Answers read in full for each documented response; past them one in READ_EVERY: a long run's cost stays flat.
READ_IN_FULL, READ_EVERY = 64, 4


@dataclass(frozen=True)
class Keyword:
    """One keyword of one schema location: `where` (member path) and `name`, with what it says (`value`)."""

    where: str
    name: str
    value: Any

    @property
    def id(self) -> str:
        return f"{self.where} {self.name}" if self.where else self.name


class Sampler:
    """Says which answers of each documented response to read: every one of the first READ_IN_FULL, then one in
    READ_EVERY (an item needs one answer that shows it)."""

    def __init__(self) -> None:
        self._seen: dict[Any, int] = {}
        self._lock = threading.Lock()

    def read(self, key: Any) -> bool:
        with self._lock:
            count = self._seen[key] = self._seen.get(key, 0) + 1
        return count <= READ_IN_FULL or count % READ_EVERY == 0


#: Schemas merged once: the documents live as long as the run (specs caches them), so their ids stay theirs.
_MERGED: dict[int, tuple[Any, dict[str, Any]]] = {}


def merged(document: dict[str, Any], schema: Any) -> dict[str, Any]:
    """A schema with its `$ref` followed and its `allOf` parts folded in (later parts win on a clash): what names
    the items; whether a value satisfies one is the validator's to say, with the schema's own `allOf`."""
    known = _MERGED.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    out = _merged(document, schema)
    if isinstance(schema, dict):
        _MERGED[id(schema)] = (schema, out)
    return out


def _merged(document: dict[str, Any], schema: Any) -> dict[str, Any]:
    schema = specs.resolve(document, schema)
    if not isinstance(schema, dict):
        return {}
    if "allOf" not in schema:
        return schema
    out: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
    for part in schema["allOf"]:
        part = merged(document, part)
        for key, value in part.items():
            if key == "properties":
                # A member both parts describe keeps the keywords of both (a type here, a const there).
                members = dict(out.get("properties", {}))
                for member, sub in value.items():
                    members[member] = {"allOf": [members[member], sub]} if member in members else sub
                out["properties"] = members
            elif key == "required":
                out["required"] = sorted(set(out.get("required", [])) | set(value))
            else:
                out[key] = value
    return out


@dataclass(frozen=True)
class Judgement:
    """How one value fared against one keyword: satisfied or not, and whether it sat on the bound itself."""

    id: str
    satisfied: bool
    at_bound: bool = False
    member: Any = None   # the enum member a value matched


def presence_updates(operation: str, name: str, required: bool, present: bool, accepted: bool) -> list[Update]:
    """What a parameter's presence shows: a required one sent and accepted covers `required` from the valid side,
    left out and refused from the invalid side (and the parameter with it)."""
    if present:
        return [Update(operation, "keywords", f"{name} required", VALID)] if required and accepted else []
    if required and not accepted:
        return [Update(operation, "keywords", f"{name} required", INVALID),
                Update(operation, "parameters", name, INVALID)]
    return []


def value_updates(operation: str, name: str, judgements: list[Judgement], accepted: bool) -> list[Update]:
    """What one value sent as parameter `name` shows: accepted, each keyword it satisfied (and the parameter when
    it satisfied them all); refused, each keyword it violated (and the parameter when it violated any)."""
    valid = all(judgement.satisfied for judgement in judgements)
    if accepted:
        updates = [Update(operation, "keywords", j.id, VALID, j.at_bound, j.member) for j in judgements if j.satisfied]
        return updates + [Update(operation, "parameters", name, VALID)] if valid else updates
    updates = [Update(operation, "keywords", j.id, INVALID) for j in judgements if not j.satisfied]
    return updates if valid else updates + [Update(operation, "parameters", name, INVALID)]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: The values a keyword says something about, where it is not every value. JSON Schema calls `minimum` satisfied
#: by a string; coverage does not count that string as showing `minimum`, nor `pattern` shown by a number.
_APPLIES: dict[str, Callable[[Any], bool]] = {
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), _number),
    **dict.fromkeys(("minLength", "maxLength", "pattern", "format"), lambda value: isinstance(value, str)),
    **dict.fromkeys(("minItems", "maxItems"), lambda value: isinstance(value, list)),
    "required": lambda value: isinstance(value, dict)}


@cache
def _compiled(api: str, keyword: str) -> Any:
    """The validator of one keyword alone (`keyword`: its schema as JSON). Keywords repeat across a document
    (`type: string` hundreds of times), so each is compiled once a run."""
    return shapes.compiled(json.loads(keyword), api=api)


@dataclass(frozen=True)
class _Check:
    id: str
    name: str
    expected: Any
    applies: Callable[[Any], bool] | None
    validator: Any


@dataclass(frozen=True)
class _Location:
    """One place of a schema: the keywords judged there, and the places of its members and array items that hold
    any keyword."""

    checks: tuple[_Check, ...]
    members: tuple[tuple[str, _Location], ...]
    items: _Location | None

    def judge(self, value: Any, out: list[Judgement]) -> None:
        for check in self.checks:
            if check.applies is not None and not check.applies(value):
                continue
            satisfied = check.validator.is_valid(value)
            at_bound = satisfied and check.name in BOUNDS and \
                (value if check.name in ("minimum", "maximum") else len(value)) == check.expected
            member = value if check.name == "enum" and satisfied and _hashable(value) else None
            out.append(Judgement(check.id, satisfied, at_bound, member))
        if self.members and isinstance(value, dict):
            for name, location in self.members:
                if name in value:
                    location.judge(value[name], out)
        if self.items is not None and isinstance(value, list):
            for element in value[:SAMPLED_ITEMS]:
                self.items.judge(element, out)


class Keywords:
    """The keyword items of one schema (a parameter's, a response's), its members and array items included to
    MAX_DEPTH, each keyword compiled once to judge values with."""

    def __init__(self, api: str, schema: Any, where: str = "") -> None:
        self._api = api
        self._document = specs.openrpc(api) if api in specs.RPC_APIS else specs.openapi(api)
        self._keywords: list[Keyword] = []
        self._root = self._location(schema, where, 0)

    def __iter__(self) -> Iterator[Keyword]:
        return iter(self._keywords)

    def __len__(self) -> int:
        return len(self._keywords)

    def judge(self, value: Any) -> list[Judgement]:
        """Each keyword the value shows (its members' and first array items' too), satisfied or not."""
        out: list[Judgement] = []
        if self._root is not None:
            self._root.judge(value, out)
        return out

    def _location(self, schema: Any, where: str, depth: int) -> _Location | None:
        schema = merged(self._document, schema)
        if depth > MAX_DEPTH:
            return None
        checks = []
        for name in (*VALUE_KEYWORDS, "oneOf", "anyOf"):
            if name not in schema or (name == "format" and schema[name] not in FORMATS):
                continue
            expected = schema[name]
            # A combinator's item is the choice itself: its value is how many branches it offers.
            keyword = Keyword(where, name, len(expected) if name in ("oneOf", "anyOf") else expected)
            self._keywords.append(keyword)
            validator = _compiled(self._api, json.dumps({name: expected}, sort_keys=True))
            checks.append(_Check(keyword.id, name, expected, _APPLIES.get(name), validator))
        members = []
        for member, sub in (schema.get("properties") or {}).items():
            location = self._location(sub, f"{where}.{member}" if where else member, depth + 1)
            if location is not None:
                members.append((member, location))
        items = self._location(schema["items"], f"{where}[]", depth + 1) \
            if isinstance(schema.get("items"), dict) else None
        if not (checks or members or items):
            return None
        return _Location(tuple(checks), tuple(members), items)


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None
