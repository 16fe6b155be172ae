"""The validation keywords of a JSON schema as coverage items, and how one value fares against each of them.

A keyword item is named by where it sits (`addresses`, `results[].value`) and the keyword (`type`, `minimum`,
`enum`, …). Annotations (title, description, default, examples, `x-*`) are not keywords: they decide nothing.
"""
from __future__ import annotations

import datetime as dt
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from conformance import specs
from conformance.coverage.items import INVALID, VALID, Update

#: Keywords judged on the value itself; `properties`, `items` and the combinators are walked into instead.
VALUE_KEYWORDS = ("type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                  "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "required")
#: Keywords whose valid side is complete only when a value at the bound itself was accepted.
BOUNDS = frozenset({"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"})
#: The `format` values the documents use, each as what a string of it looks like; other formats are annotations.
FORMATS = {"hex": re.compile(r"0x[0-9a-fA-F]*"), "decimal-integer": re.compile(r"-?[0-9]+"),
           "decimal": re.compile(r"-?[0-9]+(\.[0-9]+)?"), "lowercase": re.compile(r"[^A-Z]*")}
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
    """A schema with its `$ref` followed and its `allOf` parts folded in (later parts win on a clash)."""
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


def keywords_of(document: dict[str, Any], schema: Any, where: str = "", depth: int = 0) -> Iterator[Keyword]:
    """Every keyword item of a schema, its members and array items included, to MAX_DEPTH."""
    schema = merged(document, schema)
    if depth > MAX_DEPTH:
        return
    for name in VALUE_KEYWORDS:
        if name in schema:
            if name == "format" and schema[name] not in FORMATS and schema[name] != "date-time":
                continue
            yield Keyword(where, name, schema[name])
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            yield Keyword(where, combinator, len(schema[combinator]))
    for member, sub in (schema.get("properties") or {}).items():
        yield from keywords_of(document, sub, f"{where}.{member}" if where else member, depth + 1)
    if isinstance(schema.get("items"), dict):
        yield from keywords_of(document, schema["items"], f"{where}[]", depth + 1)


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


def judge(document: dict[str, Any], schema: Any, value: Any, where: str = "",
          depth: int = 0) -> Iterator[Judgement]:
    """Each keyword of `schema` (and of its members and first array items) judged against `value`."""
    schema = merged(document, schema)
    if depth > MAX_DEPTH:
        return
    prefix = f"{where} " if where else ""
    for name in VALUE_KEYWORDS:
        if name not in schema:
            continue
        verdict = _verdict(name, schema[name], value)
        if verdict is not None:
            satisfied, at_bound = verdict
            member = value if name == "enum" and satisfied and _hashable(value) else None
            yield Judgement(prefix + name, satisfied, at_bound, member)
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            fits = [branch for branch in schema[combinator] if satisfies(document, branch, value, depth + 1)]
            yield Judgement(prefix + combinator, len(fits) == 1 if combinator == "oneOf" else bool(fits))
    if isinstance(value, dict):
        for member, sub in (schema.get("properties") or {}).items():
            if member in value:
                yield from judge(document, sub, value[member], f"{where}.{member}" if where else member, depth + 1)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for element in value[:SAMPLED_ITEMS]:
            yield from judge(document, schema["items"], element, f"{where}[]", depth + 1)


def satisfies(document: dict[str, Any], schema: Any, value: Any, depth: int = 0) -> bool:
    """Whether `value` satisfies every keyword of `schema` this module knows, members included."""
    return all(judgement.satisfied for judgement in judge(document, schema, value, depth=depth))


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None


_TYPES = {"string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
          "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
          or (isinstance(v, float) and v.is_integer()),
          "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
          "null": lambda v: v is None}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _verdict(name: str, expected: Any, value: Any) -> tuple[bool, bool] | None:
    """(satisfied, at the bound) of one keyword for one value, or None when the keyword does not apply to it."""
    if name == "type":
        types = expected if isinstance(expected, list) else [expected]
        return any(_TYPES.get(t, lambda v: True)(value) for t in types), False
    if name == "enum":
        return value in expected, False
    if name == "const":
        return value == expected, False
    if name in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        if not _number(value) or not _number(expected):
            return None
        if name == "minimum":
            return value >= expected, value == expected
        if name == "maximum":
            return value <= expected, value == expected
        if name == "exclusiveMinimum":
            return value > expected, False
        if name == "exclusiveMaximum":
            return value < expected, False
        return (expected != 0 and (value / expected).is_integer()), False
    if name in ("minLength", "maxLength", "pattern", "format"):
        if not isinstance(value, str):
            return None
        if name == "minLength":
            return len(value) >= expected, len(value) == expected
        if name == "maxLength":
            return len(value) <= expected, len(value) == expected
        if name == "pattern":
            return re.search(expected, value) is not None, False
        return _format(expected, value), False
    if name in ("minItems", "maxItems"):
        if not isinstance(value, list):
            return None
        return ((len(value) >= expected if name == "minItems" else len(value) <= expected), len(value) == expected)
    if name == "required":
        if not isinstance(value, dict):
            return None
        return all(member in value for member in expected), False
    return None


def _format(name: str, value: str) -> bool:
    if name == "date-time":
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return False
        return True
    pattern = FORMATS.get(name)
    return pattern is None or pattern.fullmatch(value) is not None
