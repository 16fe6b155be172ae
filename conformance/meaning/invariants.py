"""Relations among the members of one object, declared on its schema (`x-invariants`), judged on every object of
that schema in every answer of a run.

An invariant is a JMESPath expression over the object (`holds`), true when the relation holds; it applies when
the members it names in `when` are present (not null). Values are compared as the documents write them:
`num()` reads a decimal or 0x-hex string as a number, `lower()` drops case, and `request('name')` is a parameter
of the request that brought the answer. Arithmetic is exact (decimal, never float): `plus(a, b, …)`,
`minus(a, b)`, `times(a, b, …)`, `over(a, b)`, `scaled(amount, decimals)` (an amount in the smallest unit as whole
units), and `near(a, b, relative, absolute)` (a within the larger of the two tolerances of b); `now()` is the second
the answer arrived in (whole UNIX seconds, the suite's clock). Any of them given null, or a value that is not a
number, gives null: it decides nothing. Members are read as the documents mean them (`members.canonical`: a decimal or
hex text is its number). An expression that cannot be evaluated on an object (a member of another type), or that
gives null, decides nothing about it: its form is the shape rules'.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any
from collections.abc import Iterable, Iterator

from jmespath import exceptions, functions

from conformance.meaning import expressions, members
from conformance.meaning.declarations import Declaration, of_kind


def _exact(value: Any) -> Decimal | None:
    """A number as an exact decimal (a float by its shortest text, so 0.1 is 0.1); None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if value == value and abs(value) != float("inf") else None
    found = members.number(value) if isinstance(value, str) else None
    return _exact(found) if found is not None and not isinstance(found, str) else None


def _all_exact(values: tuple[Any, ...]) -> list[Decimal] | None:
    found = [_exact(value) for value in values]
    return None if any(value is None for value in found) else [v for v in found if v is not None]


class _Functions(functions.Functions):
    """The functions invariants may call beyond JMESPath's own."""

    def __init__(self, request: dict[str, Any], context: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.request_params = request
        self.context = context or {}

    @functions.signature({"types": [], "variadic": True})
    def _func_plus(self, *values: Any) -> Any:
        found = _all_exact(values)
        return sum(found, Decimal(0)) if found is not None else None

    @functions.signature({"types": []}, {"types": []})
    def _func_minus(self, first: Any, second: Any) -> Any:
        found = _all_exact((first, second))
        return found[0] - found[1] if found is not None else None

    @functions.signature({"types": [], "variadic": True})
    def _func_times(self, *values: Any) -> Any:
        found = _all_exact(values)
        if found is None:
            return None
        product = Decimal(1)
        for value in found:
            product *= value
        return product

    @functions.signature({"types": []}, {"types": []})
    def _func_over(self, first: Any, second: Any) -> Any:
        found = _all_exact((first, second))
        return found[0] / found[1] if found is not None and found[1] != 0 else None

    @functions.signature({"types": []}, {"types": []})
    def _func_scaled(self, amount: Any, decimals: Any) -> Any:
        found = _all_exact((amount, decimals))
        if found is None or found[1] != found[1].to_integral_value() or not 0 <= found[1] <= 255:
            return None
        return found[0].scaleb(-int(found[1]))

    @functions.signature({"types": []}, {"types": []}, {"types": []}, {"types": []})
    def _func_near(self, value: Any, expected: Any, relative: Any, absolute: Any) -> Any:
        found = _all_exact((value, expected, relative, absolute))
        if found is None:
            return None
        value_, expected_, relative_, absolute_ = found
        return abs(value_ - expected_) <= max(absolute_, relative_ * abs(expected_))

    @functions.signature()
    def _func_now(self) -> Any:
        arrived = self.context.get("now")
        return _exact(arrived) if arrived is not None else None

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
    expression: expressions.Compiled
    when: tuple[str, ...]
    reads_clock: bool = False     # calls now(): its verdict is of the moment the answer arrived
    reads_request: bool = False   # calls request(): its verdict is of the request too

    def applies(self, instance: dict[str, Any]) -> bool:
        return all(members.values(instance, path) for path in self.when)

    def holds(self, instance: dict[str, Any], request: dict[str, Any],
              context: dict[str, Any] | None = None) -> bool | None:
        """True or False; None when the expression cannot be evaluated on this object (`context`: what the run
        knows of the answer beyond it, such as when it arrived)."""
        try:
            found = self.expression(instance, _Functions(request, context))
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
        holds = declaration.get("holds")
        compiled = expressions.compiled(holds)
        out.setdefault(declaration.subject, []).append(
            Invariant(declaration, compiled, tuple(members.paths_of(declaration.get("when"))),
                      reads_clock="now(" in holds, reads_request="request(" in holds))
    return {name: tuple(found) for name, found in out.items()}


#: Verdicts a memo keeps before it starts again: a run sees tens of thousands of distinct objects.
MEMO_SIZE = 100_000


def judged(api: str, component: str, instance: dict[str, Any], request: dict[str, Any],
           context: dict[str, Any] | None = None,
           memo: dict[tuple[Any, ...], list[tuple[Invariant, bool]]] | None = None, seen_as: int | None = None,
           ) -> Iterator[tuple[Invariant, bool]]:
    """(invariant, whether it holds) of each invariant of `component` that applies to `instance` and decides.

    With a `memo` (one run's), an object seen before, in an answer to the same request, is not judged again: a run
    reads the same objects on many pages and walks, and a verdict depends only on the object and the request, except
    an invariant's that reads the clock, which is judged again in each second answers arrive in. `seen_as`: the
    object's text's hash, when the caller has it."""
    if memo is None:
        yield from _judge(by_component(api).get(component, ()), instance, request, context)
        return
    timeless, timed, reads_request = _split(api, component)
    key = (api, component, hash(repr(instance)) if seen_as is None else seen_as,
           hash(repr(sorted(request.items()))) if reads_request else None)
    yield from _memoized(memo, key, timeless, instance, request, context)
    if timed:
        # the clock's verdicts are of the second the answer arrived in: a run sees the same object many times a second
        second = int(context["now"]) if context and context.get("now") is not None else None
        yield from _memoized(memo, (*key, second), timed, instance, request, {**(context or {}), "now": second})


def _memoized(memo: dict[tuple[Any, ...], list[tuple[Invariant, bool]]], key: tuple[Any, ...],
              found: tuple[Invariant, ...], instance: dict[str, Any], request: dict[str, Any],
              context: dict[str, Any] | None) -> list[tuple[Invariant, bool]]:
    verdicts = memo.get(key)
    if verdicts is None:
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        verdicts = memo[key] = list(_judge(found, instance, request, context))
    return verdicts


@cache
def _split(api: str, component: str) -> tuple[tuple[Invariant, ...], tuple[Invariant, ...], bool]:
    """A component's invariants that do not read the clock, those that do, and whether any reads the request."""
    found = by_component(api).get(component, ())
    return (tuple(i for i in found if not i.reads_clock), tuple(i for i in found if i.reads_clock),
            any(i.reads_request for i in found))


def _judge(found: Iterable[Invariant], instance: dict[str, Any], request: dict[str, Any],
           context: dict[str, Any] | None) -> Iterator[tuple[Invariant, bool]]:
    for invariant in found:
        if not invariant.applies(instance):
            continue
        verdict = invariant.holds(_read(instance, invariant.when), request, context)
        if verdict is not None:
            yield invariant, verdict
