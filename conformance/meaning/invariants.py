"""Relations among the members of one object, declared on its schema (`x-invariants`), judged on every object of
that schema in every answer of a run.

An invariant is a JMESPath expression over the object (`holds`), true when the relation holds; it applies when
the members it names in `when` are present (not null). Values are compared as the documents write them:
`num()` reads a decimal or 0x-hex string as a number, `lower()` drops case, and `request('name')` is a parameter
of the request that brought the answer. Members are read as the documents mean them (`members.canonical`: a decimal or
hex text is its number). An expression that cannot be evaluated on an object (a member of another type), or that
gives null, decides nothing about it: its form is the shape rules'.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any
from collections.abc import Iterator

import jmespath
from jmespath import exceptions, functions

from conformance.meaning import members
from conformance.meaning.declarations import Declaration, of_kind


class _Functions(functions.Functions):
    """The functions invariants may call beyond JMESPath's own."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__()
        self.request_params = request

    @functions.signature({"types": ["string", "number", "null"]})
    def _func_num(self, value: Any) -> Any:
        return members.number(value)

    @functions.signature({"types": ["string", "null"]})
    def _func_lower(self, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else None

    @functions.signature({"types": ["string"]})
    def _func_request(self, name: str) -> Any:
        return self.request_params.get(name)

    @functions.signature({"types": [], "variadic": True})
    def _func_integers(self, *found: Any) -> Any:
        """true when every value is an integer (a decimal integer text read as one); else null, which decides
        nothing: a value of another form is the format rules' deviation, not the relation's."""
        return True if all(isinstance(v, int) and not isinstance(v, bool) for v in found) else None

    @functions.signature({"types": [], "variadic": True})
    def _func_arrays(self, *found: Any) -> Any:
        """true when every value is an array; else null (decides nothing), as `integers`."""
        return True if all(isinstance(v, list) for v in found) else None


@dataclass(frozen=True)
class Invariant:
    declaration: Declaration
    expression: Any
    when: tuple[str, ...]

    def applies(self, instance: dict[str, Any]) -> bool:
        return all(members.values(instance, path) for path in self.when)

    def holds(self, instance: dict[str, Any], request: dict[str, Any]) -> bool | None:
        """True or False; None when the expression cannot be evaluated on this object."""
        try:
            found = self.expression.search(instance, options=jmespath.Options(custom_functions=_Functions(request)))
        except (exceptions.JMESPathError, TypeError, ValueError, ArithmeticError):
            return None
        if found is None:
            return None
        return bool(found)


def _read(instance: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """The object with the members an invariant names (its `when`) read as the documents mean them, the rest as
    given: an object of thousands of members is not read whole for one relation of two."""
    read = dict(instance)
    for path in paths:
        steps = path.split(".")
        if any(step.endswith(("[]", "{}", "*")) for step in steps):
            continue
        parent: Any = read
        for step in steps[:-1]:
            inner = parent.get(step) if isinstance(parent, dict) else None
            if not isinstance(inner, dict):
                break
            inner = parent[step] = dict(inner)
            parent = inner
        else:
            if isinstance(parent, dict) and steps[-1] in parent:
                parent[steps[-1]] = members.canonical(parent[steps[-1]])
    return read


@cache
def by_component(api: str) -> dict[str, tuple[Invariant, ...]]:
    """Schema name -> its invariants, compiled once."""
    out: dict[str, list[Invariant]] = {}
    for declaration in of_kind("invariant", api):
        compiled = jmespath.compile(declaration.get("holds"))
        out.setdefault(declaration.subject, []).append(
            Invariant(declaration, compiled, tuple(members.paths_of(declaration.get("when")))))
    return {name: tuple(found) for name, found in out.items()}


def judged(api: str, component: str, instance: dict[str, Any], request: dict[str, Any],
           ) -> Iterator[tuple[Invariant, bool]]:
    """(invariant, whether it holds) of each invariant of `component` that applies to `instance` and decides."""
    for invariant in by_component(api).get(component, ()):
        if not invariant.applies(instance):
            continue
        verdict = invariant.holds(_read(instance, invariant.when), request)
        if verdict is not None:
            yield invariant, verdict
