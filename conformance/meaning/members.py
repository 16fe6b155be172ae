"""Reading a declared member from an item, and comparing values the way a declaration says they compare.

A member path is dotted (`asset.assetId`, `from.address`); `[]` steps into every element of an array
(`addresses[]`), `{}` into every key of an object (`loggerLevels{}`) and `*` into every member's value
(`precompiles.*.timestamp`). A declaration may name several paths: the
values of all of them count (`[from.address, to.address]`: a transfer from or to the address). A member that is
absent or null has no value: a check never judges an item by a member it does not show.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

_STEP = re.compile(r"([^.\[\]{}*]+)|(\[\])|(\{\})|(\*)")


@functools.lru_cache(maxsize=4096)
def _steps(path: str) -> tuple[str, ...]:
    return tuple(name or array or keys or each for name, array, keys, each in _STEP.findall(path))


def _walk(value: Any, steps: Sequence[str]) -> Iterator[Any]:
    if not steps:
        if value is not None:
            yield value
        return
    step, rest = steps[0], steps[1:]
    if step == "[]":
        if isinstance(value, list):
            for element in value:
                yield from _walk(element, rest)
    elif step == "{}":
        if isinstance(value, dict):
            for key in value:
                yield from _walk(key, rest)
    elif step == "*":
        if isinstance(value, dict):
            for member in value.values():
                yield from _walk(member, rest)
    elif isinstance(value, dict) and step in value:
        yield from _walk(value[step], rest)


def paths_of(member: str | Sequence[str] | None) -> list[str]:
    if member is None:
        return []
    return [member] if isinstance(member, str) else list(member)


def values(item: Any, member: str | Sequence[str] | None) -> list[Any]:
    """Every value of `member` (or of each of its paths) in `item`, nulls left out."""
    if isinstance(member, str):
        steps = _steps(member)
        if len(steps) == 1 and steps[0] not in ("[]", "{}", "*"):   # one member: read it, no walk
            found = item.get(member) if isinstance(item, dict) else None
            return [] if found is None else [found]
        return list(_walk(item, steps))
    return [found for path in paths_of(member) for found in _walk(item, _steps(path))]


def first(item: Any, member: str | Sequence[str] | None) -> Any:
    found = values(item, member)
    return found[0] if found else None


def number(value: Any) -> int | float | None:
    """A number from a JSON number, a decimal string or a 0x hex string; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 16) if text[:2].lower() == "0x" else int(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                return None
    return None


def instant(value: Any) -> float | None:
    """A moment as seconds: a number, or an RFC 3339 text; None for anything else."""
    found = number(value)
    if found is not None:
        return float(found)
    if isinstance(value, str) and len(value) >= 19 and value[4:5] == "-":
        import datetime as dt

        try:
            moment = dt.datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
        except ValueError:
            return None
        if moment.tzinfo is None:
            return None
        return moment.timestamp()
    return None


class Normaliser:
    """How values of one declaration compare: exactly, without case, without an optional prefix, as numbers."""

    def __init__(self, *, case: str = "exact", prefixes: Iterable[str] = (), numeric: bool = False) -> None:
        self.insensitive = case == "insensitive"
        self.prefixes = tuple(prefixes)
        self.numeric = numeric

    def __call__(self, value: Any) -> Any:
        if self.numeric:
            found = number(value)
            if found is not None:
                return found
        if isinstance(value, str):
            text = value
            for prefix in self.prefixes:
                if text.startswith(prefix) and len(text) > len(prefix):
                    text = text[len(prefix):]
                    break
            return text.lower() if self.insensitive else text
        return value


def names(value: Any, wanted: str, normalise: Normaliser) -> bool:
    """Whether `wanted` appears in `value` as a string or inside one, at any depth: how an item names an address or
    an ID wherever the document lets it stand."""
    if isinstance(value, str):
        return normalise(wanted) in normalise(value) if isinstance(normalise(value), str) else False
    if isinstance(value, dict):
        return any(names(member, wanted, normalise) for member in value.values())
    if isinstance(value, list):
        return any(names(member, wanted, normalise) for member in value)
    return False


def parts(value: Any, listed: bool) -> list[Any]:
    """The values one parameter value stands for: each comma-separated part of a list parameter (`listed`)."""
    if listed and isinstance(value, str):
        return [part for part in value.split(",") if part]
    return list(value) if isinstance(value, list) else [value]


def kept_by_filter(match: str, item: Any, member: str | Sequence[str] | None, wanted: list[Any],
                   normalise: Normaliser) -> bool | None:
    """Whether a filter keeps `item` for the values `wanted`, as its declaration's `match` states it; None when
    the item does not show the `member` the filter reads."""
    if match == "names":
        return any(names(item, str(w), normalise) for w in wanted)
    found = values(item, member)
    if match == "absent":
        return all(falsy(v) for v in found)
    if match == "present":
        return bool(found)
    if not found:
        return None
    if match == "contains":
        return any(isinstance(normalise(f), str) and str(normalise(w)) in normalise(f) for f in found for w in wanted)
    return any(same_value(normalise(f), normalise(w)) for f in found for w in wanted)


def same_value(member: Any, sent: Any) -> bool:
    """A member against the value a request sent: a query value is text on the wire, so the number 1000 is the
    value '1000' (an identifier given on the command line arrives as text)."""
    if member == sent:
        return True
    for number, text in ((member, sent), (sent, member)):
        if isinstance(number, (int, float)) and not isinstance(number, bool) and isinstance(text, str):
            try:
                return float(text) == number
            except ValueError:
                return False
    return False


def falsy(value: Any) -> bool:
    """A member that says "none": absent, null, false, zero, an empty string, array or object."""
    return value in (None, False, 0, "", [], {})


def canonical(value: Any) -> Any:
    """A value as two answers that mean the same thing both give it: numbers and decimal strings alike, hex
    without case, and objects and arrays member by member. How one object is compared across answers, so that a
    difference of form alone (a number written as a string) is left to the shape rules."""
    kind = type(value)
    if kind is str:
        head = value[:2]
        if head == "0x" or head == "0X":
            found = number(value)
            return found if found is not None else value.lower()
        if value and (value[0].isdigit() or value[0] == "-") and value.lstrip("-").replace(".", "", 1).isdigit():
            found = number(value)
            return found if found is not None else value
        return value
    if kind is dict:
        return {key: canonical(member) for key, member in value.items() if member is not None}
    if kind is list:
        return [canonical(member) for member in value]
    if kind is float and value.is_integer():
        return int(value)
    if kind in (int, bool) or value is None:
        return value
    if isinstance(value, Mapping):   # a mapping of another kind, rarely
        return {key: canonical(member) for key, member in value.items() if member is not None}
    return value


def unmatched(value: str) -> str:
    """A value of the same form that names nothing: a valid identifier no object has (conformance.meaning.
    identifiers), so that a target refusing it refuses a well-formed value."""
    from conformance.meaning.identifiers import unmatched as made_up

    return made_up(value)
