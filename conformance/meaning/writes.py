"""Writes as state diffs: the state a write may touch, read through the documented read methods before and after
it, must differ by exactly what the write's declaration (`x-writes`) says: nothing missing, nothing extra.

A declaration names what it sends (`send`, with variables `$name` the test fills in), the reads that show the state
(`read`: a method, its params, the member of its result that holds the state, and `each` to read it once per value
of a variable), the changes the write makes (`changes`: state path -> value; `*` matches any one step of a path, and
`+value` as a path's last step is an element added to a list), and the paths it may or may not change (`open`: what
the documents leave open). State is flattened to paths: an object member is `a.b`, an element of a list of strings
`a/element` (true while present).
"""
from __future__ import annotations

import fnmatch
import re
from typing import Any
from collections.abc import Mapping

State = dict[str, Any]


def flatten(value: Any, prefix: str = "") -> State:
    """A read's state as paths to values."""
    out: State = {}
    if isinstance(value, Mapping):
        for key, member in value.items():
            out.update(flatten(member, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list) and all(isinstance(element, str) for element in value):
        for element in value:
            out[f"{prefix}/{element}"] = True
    else:
        out[prefix] = value
    return out


_VARIABLE = re.compile(r"\$([A-Za-z_]\w*)")


def fill(template: Any, variables: Mapping[str, Any]) -> Any:
    """`template` with each `$name` replaced by its variable (a whole `$name` by the value itself)."""
    if isinstance(template, str):
        whole = _VARIABLE.fullmatch(template)
        if whole and whole.group(1) in variables:
            return variables[whole.group(1)]
        return _VARIABLE.sub(lambda found: str(variables.get(found.group(1), found.group(0))), template)
    if isinstance(template, Mapping):
        return {fill(key, variables): fill(value, variables) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, variables) for value in template]
    return template


def _matches(pattern: str, path: str) -> bool:
    return fnmatch.fnmatchcase(path, pattern.replace("[", "[[]"))


def expected_changes(changes: Mapping[str, Any], before: State, variables: Mapping[str, Any]) -> State:
    """Each path the write must change, with the value it must have after."""
    out: State = {}
    for pattern, value in fill(dict(changes), variables).items():
        if "*" in pattern:
            for path in before:
                if _matches(pattern, path):
                    out[path] = value
        else:
            out[pattern] = value
    return out


def diff(before: State, after: State) -> dict[str, tuple[Any, Any]]:
    return {path: (before.get(path), after.get(path)) for path in set(before) | set(after)
            if before.get(path) != after.get(path)}


def missing(expected: State, after: State) -> dict[str, tuple[Any, Any]]:
    """Paths the write should have set and did not: (wanted, found)."""
    return {path: (value, after.get(path)) for path, value in expected.items() if after.get(path) != value}


def extra(changed: Mapping[str, tuple[Any, Any]], expected: State, open_paths: list[str],
          variables: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Paths the write changed that it should have left alone: neither expected nor left open."""
    patterns = [fill(path, variables) for path in open_paths]
    return {path: pair for path, pair in changed.items()
            if path not in expected and not any(_matches(pattern, path) for pattern in patterns)}
