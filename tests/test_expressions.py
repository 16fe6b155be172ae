"""A compiled expression answers what JMESPath's interpreter answers: on every declared invariant, and on
expressions and values drawn at random from the node kinds the compiler handles itself."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import jmespath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jmespath import exceptions

from conformance.meaning import expressions, invariants
from conformance.meaning.declarations import of_kind

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([0.0, 1.0, 1.5, Decimal("1")]),
                    st.sampled_from(["", "a", "b", "0x1", "10"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)), max_leaves=6)
FIELDS = st.sampled_from(["a", "b", "c", "a.b", "b.c"])
TERMS = st.one_of(FIELDS, st.sampled_from(["`0`", "`1`", "`true`", "`false`", "`null`", "'a'", "`[]`", "`{}`"]),
                  FIELDS.map(lambda f: f"length({f})"), FIELDS.map(lambda f: f"num({f})"),
                  st.tuples(FIELDS, FIELDS).map(lambda p: f"plus({p[0]}, {p[1]})"))
EXPRESSIONS = st.recursive(TERMS, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "&&", "||"]), inner).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"),
    inner.map(lambda e: f"!({e})"), inner.map(lambda e: f"[{e}][0]")), max_leaves=5)


def both(expression: str, value: Any) -> tuple[Any, Any]:
    """(compiled, interpreted): each a result, or "error" (an invariant that raises decides nothing)."""
    out = []
    for evaluate in (lambda: expressions.compiled(expression)(value, invariants._Functions({}, {"now": 100})),
                     lambda: jmespath.search(expression, value, options=jmespath.Options(
                         custom_functions=invariants._Functions({}, {"now": 100})))):
        try:
            out.append(evaluate())
        except (exceptions.JMESPathError, TypeError, ValueError, ArithmeticError) as exc:
            out.append(f"error: {type(exc).__name__}")
    return out[0], out[1]


def declared() -> list[str]:
    return sorted({d.get("holds") for d in of_kind("invariant")})


@pytest.mark.parametrize("expression", declared())
@given(value=VALUES)
@settings(max_examples=30, deadline=None)
def test_a_declared_invariant_compiled_answers_as_jmespath(expression: str, value: Any) -> None:
    compiled, interpreted = both(expression, value)
    assert compiled == interpreted and type(compiled) is type(interpreted)


@given(expression=EXPRESSIONS, value=VALUES)
@settings(max_examples=300, deadline=None)
def test_any_expression_of_the_compiled_kinds_answers_as_jmespath(expression: str, value: Any) -> None:
    compiled, interpreted = both(expression, value)
    assert compiled == interpreted and type(compiled) is type(interpreted)
