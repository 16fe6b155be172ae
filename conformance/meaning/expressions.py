"""JMESPath expressions turned into Python closures once, so that judging one object costs calls, not a tree walk.

A run judges tens of thousands of objects against the same few dozen expressions (`x-invariants`); `jmespath`'s
interpreter builds an interpreter and dispatches on every node of the tree at each of them. `compiled` turns the
node kinds the declarations use (members, paths, comparisons, and/or/not, literals, function calls) into nested
closures with JMESPath's own meaning of each (a member of a non-object is null; `&&` and `||` test JMESPath's
falsiness, where 0 is true; ordering compares numbers or texts only, else null; 0 and 1 never equal a boolean) and
leaves any other kind of node to the interpreter itself. tests/test_expressions.py holds the two equal on every
declared expression.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from numbers import Number
from typing import Any

import jmespath
from jmespath import functions

#: A compiled expression: (the value it is applied to, the functions it may call) -> its result.
Compiled = Callable[[Any, functions.Functions], Any]

_ORDERING: dict[str, Callable[[Any, Any], Any]] = {
    "lt": operator.lt, "gt": operator.gt, "lte": operator.le, "gte": operator.ge}


def compiled(expression: str) -> Compiled:
    return _node(jmespath.compile(expression).parsed)


def _number(value: Any) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def _false(value: Any) -> bool:
    """JMESPath's falsiness: empty text, list or object, null and false (not 0)."""
    return value is None or value is False or (isinstance(value, (str, list, dict)) and not value)


def _equal(left: Any, right: Any) -> bool:
    if (_number(left) and left in (0, 1) and isinstance(right, bool)) or (
            _number(right) and right in (0, 1) and isinstance(left, bool)):
        return False
    return bool(left == right)


def _node(node: dict[str, Any]) -> Compiled:
    kind, children = node["type"], node.get("children", [])
    if kind == "field":
        name = node["value"]
        return lambda value, fns: value.get(name) if isinstance(value, dict) else None
    if kind == "literal":
        literal = node["value"]
        return lambda value, fns: literal
    if kind == "subexpression":
        steps = [_node(child) for child in children]

        def path(value: Any, fns: functions.Functions) -> Any:
            for step in steps:
                value = step(value, fns)
            return value
        return path
    if kind == "and_expression":
        left, right = _node(children[0]), _node(children[1])

        def both(value: Any, fns: functions.Functions) -> Any:
            first = left(value, fns)
            return first if _false(first) else right(value, fns)
        return both
    if kind == "or_expression":
        left, right = _node(children[0]), _node(children[1])

        def either(value: Any, fns: functions.Functions) -> Any:
            first = left(value, fns)
            return right(value, fns) if _false(first) else first
        return either
    if kind == "not_expression":
        inner = _node(children[0])

        def negated(value: Any, fns: functions.Functions) -> Any:
            found = inner(value, fns)
            return False if _number(found) and found == 0 else not found
        return negated
    if kind == "comparator":
        return _comparator(node["value"], _node(children[0]), _node(children[1]))
    if kind == "function_expression":
        name, arguments = node["value"], [_node(child) for child in children]
        return lambda value, fns: fns.call_function(name, [argument(value, fns) for argument in arguments])
    return _interpreted(node)


def _comparator(which: str, left: Compiled, right: Compiled) -> Compiled:
    if which == "eq":
        return lambda value, fns: _equal(left(value, fns), right(value, fns))
    if which == "ne":
        return lambda value, fns: not _equal(left(value, fns), right(value, fns))
    compare = _ORDERING[which]

    def ordered(value: Any, fns: functions.Functions) -> Any:
        first, second = left(value, fns), right(value, fns)
        if not ((_number(first) or isinstance(first, str)) and (_number(second) or isinstance(second, str))):
            return None
        return compare(first, second)
    return ordered


def _interpreted(node: dict[str, Any]) -> Compiled:
    """A node of another kind (projections, filters, slices…), left to JMESPath's interpreter."""
    from jmespath.visitor import Options, TreeInterpreter
    return lambda value, fns: TreeInterpreter(Options(custom_functions=fns)).visit(node, value)
