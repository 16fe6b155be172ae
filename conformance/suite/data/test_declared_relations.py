"""The relations declared on the Data API's resources: the invariants among one object's members, one object seen
through two answers, and blocks in the order of time. Every answer of a run is judged against them as it arrives
(conformance.meaning.watch); these tests make sure each declaration sees its objects, twice where it compares."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.checks import data as checks
from conformance.meaning import declarations, instances
from conformance.meaning.declarations import Declaration
from conformance.suite.data.conftest import DataApi

API = "data"
RELATIONS = [d for kind in ("invariant", "identity", "chronology") for d in declarations.of_kind(kind, API)]


def routes_showing(component: str) -> list[str]:
    """The routes whose 200 answers hold objects of `component`, list routes first."""
    found = [op for op, operation in checks.operations().items()
             if any(name == component for _, name in instances.plan(API, instances.response_root(
                 operation.response_schema)))]
    return sorted(found, key=lambda op: checks.operation(op).list_member is None)


def seen(data: DataApi, operation_id: str, exchange: Any, component: str) -> int:
    body = checks.answered(exchange)
    schema = checks.operation(operation_id).response_schema
    return sum(1 for _ in instances.instances(API, schema, body, (component,))) if body is not None else 0


@pytest.mark.parametrize("declaration", [pytest.param(d, marks=pytest.mark.rule(d.rule), id=d.id) for d in RELATIONS])
def test_every_answer_keeps_the_declared_relation(data: DataApi, declaration: Declaration) -> None:
    """Each route that shows the objects is read (twice, at two page sizes, where objects are compared across
    answers): the run's watch judges every object of every answer against the declaration."""
    found = 0
    for operation_id in routes_showing(declaration.subject):
        exchange = data.first(operation_id)
        if exchange.status != 200:
            continue
        found += seen(data, operation_id, exchange, declaration.subject)
        if declaration.kind != "invariant" and checks.operation(operation_id).list_member:
            data.once(operation_id, {"pageSize": 1})
    if not found:
        pytest.skip(f"no answer holds a {declaration.subject}")
