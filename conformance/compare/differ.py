"""A structural diff of two JSON values: differences of shape (a type changed, a member appeared or vanished)
kept apart from differences of value, each at the JSON pointer of the baseline's answer."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from conformance.compare.normalize import Entry, Outcome, PathRules, Pointer, join

SHAPE = "shape"
VALUE = "value"
ERROR_CODE = "error-code"
#: Relative tolerance of a number comparison: two services may round a computed average in its last digit.
REL_TOLERANCE = 1e-9
#: Items each side must hold before a member carried by all of one side's and none of the other's counts.
MIN_ITEMS = 3


@dataclass(frozen=True)
class Difference:
    """One place where the two answers differ."""

    path: str       # JSON pointer into the baseline's answer ("" for the answer as a whole)
    kind: str       # shape | value | error-code
    baseline: str
    candidate: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind, "baseline": self.baseline, "candidate": self.candidate}


def json_type(value: Any) -> str:
    """The JSON type of a parsed value; integers and fractions are one type, as JSON has one number type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def show(value: Any, limit: int = 80) -> str:
    """A value as one short line of JSON."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def typed(value: Any) -> str:
    return f"{json_type(value)} {show(value, 60)}"


def compare_outcomes(baseline: Outcome, candidate: Outcome, rules: PathRules,
                     root: Pointer = ()) -> list[Difference]:
    """Differences between two outcomes: error codes first, then (both answered) the values."""
    if baseline.code != candidate.code:
        return [Difference("", ERROR_CODE, baseline.code, candidate.code)]
    if not (baseline.ok and candidate.ok):
        return []
    return diff(baseline.value, candidate.value, rules, root=root)


def diff(baseline: Any, candidate: Any, rules: PathRules, *, root: Pointer = ()) -> list[Difference]:
    """Every difference between two JSON values, volatile members compared by shape only."""
    out: list[Difference] = []
    _diff(baseline, candidate, root, rules, False, out)
    return out


def _diff(a: Any, b: Any, at: Pointer, rules: PathRules, shape_only: bool, out: list[Difference]) -> None:
    shape_only = shape_only or rules.volatile(at)
    ta, tb = json_type(a), json_type(b)
    if ta != tb:
        out.append(Difference(join(at), SHAPE, typed(a), typed(b)))
    elif ta == "object" and rules.is_map(at):
        _diff_map(a, b, at, rules, shape_only, out)
    elif ta == "object":
        for name, value in a.items():
            if name in b:
                _diff(value, b[name], at + (name,), rules, shape_only, out)
            else:
                out.append(Difference(join(at + (name,)), SHAPE, f"present ({json_type(value)})", "absent"))
        for name, value in b.items():
            if name not in a:
                out.append(Difference(join(at + (name,)), SHAPE, "absent", f"present ({json_type(value)})"))
    elif ta == "array" and shape_only:
        # Volatile lists hold different items on each side: only what all their items share is comparable.
        _compare_merged(merge(a), merge(b), at + ("*",), rules, out)
    elif ta == "array":
        _diff_array(a, b, at, rules, out)
    elif not shape_only and not same_scalar(a, b):
        out.append(Difference(join(at), VALUE, show(a), show(b)))


def same_scalar(a: Any, b: Any) -> bool:
    if json_type(a) == "number" and json_type(b) == "number":
        return a == b or math.isclose(a, b, rel_tol=REL_TOLERANCE)
    return bool(a == b)


def _diff_map(a: dict[str, Any], b: dict[str, Any], at: Pointer, rules: PathRules, shape_only: bool,
              out: list[Difference]) -> None:
    """An object whose member names are data: an entry that appears or vanishes is a value, not a shape."""
    if shape_only:
        _compare_merged(merge(a.values()), merge(b.values()), at + ("*",), rules, out)
        return
    for name, value in a.items():
        if name in b:
            _diff(value, b[name], at + (name,), rules, False, out)
        else:
            out.append(Difference(join(at + (name,)), VALUE, f"entry {show(value, 60)}", "absent"))
    for name, value in b.items():
        if name not in a:
            out.append(Difference(join(at + (name,)), VALUE, "absent", f"entry {show(value, 60)}"))


def _diff_array(a: list[Any], b: list[Any], at: Pointer, rules: PathRules, out: list[Difference]) -> None:
    keyed = rules.key(at)
    if keyed is not None and _keyed(a, b, keyed, at, rules, out):
        return
    for i, (x, y) in enumerate(zip(a, b)):
        _diff(x, y, at + (str(i),), rules, False, out)
    if len(a) != len(b):
        out.append(Difference(join(at), VALUE, f"{len(a)} items", f"{len(b)} items"))


def _keyed(a: list[Any], b: list[Any], keyed: Entry, at: Pointer, rules: PathRules, out: list[Difference]) -> bool:
    """Matches list items by identity, so that one item more or less reads as such rather than as a shift of
    every later position; False (compare by position) when an item lacks its key or two items share one."""
    names = keyed.key

    def keys(items: list[Any]) -> list[str] | None:
        found = [show(item[names[0]] if len(names) == 1 else [item[n] for n in names], 200)
                 for item in items if isinstance(item, dict) and all(n in item for n in names)]
        return found if len(found) == len(items) and len(set(found)) == len(found) else None

    keys_a, keys_b = keys(a), keys(b)
    if keys_a is None or keys_b is None:
        return False
    label = ",".join(names)
    by_key, in_a = dict(zip(keys_b, b)), set(keys_a)
    for i, (k, item) in enumerate(zip(keys_a, a)):
        if k in by_key:
            _diff(item, by_key[k], at + (str(i),), rules, False, out)
        else:
            out.append(Difference(join(at + (str(i),)), VALUE, f"item {label}={k}", "absent"))
    for k in keys_b:
        if k not in in_a:
            out.append(Difference(join(at), VALUE, "absent", f"item {label}={k}"))
    common_a = [k for k in keys_a if k in by_key]
    common_b = [k for k in keys_b if k in in_a]
    if keyed.ordered and common_a != common_b:
        i = next(n for n, (x, y) in enumerate(zip(common_a, common_b)) if x != y)
        out.append(Difference(join(at), VALUE, f"in order, shared item {i} is {label}={common_a[i]}",
                              f"in order, shared item {i} is {label}={common_b[i]}"))
    return True


# Merged shapes: what every item of a list has in common ----------------------------------------------------

@dataclass
class Merged:
    """The shape of several values at once: their types, and per member how many objects carry it."""

    types: set[str] = field(default_factory=set)
    objects: int = 0
    members: dict[str, Merged] = field(default_factory=dict)
    carried: dict[str, int] = field(default_factory=dict)
    items: Merged | None = None

    def kinds(self) -> str:
        return "/".join(sorted(self.types))

    def add(self, value: Any) -> None:
        self.types.add(json_type(value))
        if isinstance(value, dict):
            self.objects += 1
            for name, member in value.items():
                self.members.setdefault(name, Merged()).add(member)
                self.carried[name] = self.carried.get(name, 0) + 1
        elif isinstance(value, list):
            self.items = self.items or Merged()
            for item in value:
                self.items.add(item)


def merge(values: Any) -> Merged:
    merged = Merged()
    for value in values:
        merged.add(value)
    return merged


def combine(parts: Any) -> Merged:
    """One merged shape of several: the entries of a map taken together."""
    out = Merged()
    for part in parts:
        out.types |= part.types
        out.objects += part.objects
        for name, member in part.members.items():
            out.members[name] = combine([out.members[name], member]) if name in out.members else member
            out.carried[name] = out.carried.get(name, 0) + part.carried[name]
        if part.items is not None:
            out.items = combine([out.items, part.items]) if out.items is not None else part.items
    return out


def _compare_merged(a: Merged, b: Merged, at: Pointer, rules: PathRules, out: list[Difference]) -> None:
    """Reports only what differs on every item: a type neither side shares, or a member all carry and none has.

    A member one side only ever gives as null says nothing of its type: other items may simply lack a value.
    """
    types_a, types_b = a.types - {"null"}, b.types - {"null"}
    if not types_a or not types_b:
        return
    if not types_a & types_b:
        out.append(Difference(join(at), SHAPE, "/".join(sorted(types_a)), "/".join(sorted(types_b))))
        return
    if a.objects and b.objects and rules.is_map(at):
        _compare_merged(combine(a.members.values()), combine(b.members.values()), at + ("*",), rules, out)
    elif a.objects and b.objects:
        # Which members an item carries may depend on the item (the documents do not say which are always
        # present): a member's presence is compared only when enough items on each side agree about it.
        enough = min(a.objects, b.objects) >= MIN_ITEMS
        for name in sorted(set(a.members) | set(b.members)):
            in_a, in_b = a.carried.get(name, 0), b.carried.get(name, 0)
            if in_a and in_b:
                _compare_merged(a.members[name], b.members[name], at + (name,), rules, out)
            elif enough and in_a == a.objects:
                out.append(Difference(join(at + (name,)), SHAPE, f"present ({a.members[name].kinds()})", "absent"))
            elif enough and in_b == b.objects:
                out.append(Difference(join(at + (name,)), SHAPE, "absent", f"present ({b.members[name].kinds()})"))
    if a.items is not None and b.items is not None:
        _compare_merged(a.items, b.items, at + ("*",), rules, out)
