"""The relations declared on the node APIs' results: invariants among one object's members, one object seen through
two calls, and containers and blocks in the order of time. Every answer of a run is judged against them as it
arrives (conformance.meaning.watch); these tests make the calls each declaration names (`seen_by`), so that each
one sees its objects, twice where it compares them."""
from __future__ import annotations

from typing import Any

import pytest

from conformance import specs
from conformance.checks.eth import for_want_of_data
from conformance.meaning import declarations
from conformance.meaning.declarations import Declaration
from conformance.profiles import Profile
from conformance.suite.rpc.conftest import declared_endpoints

RELATIONS = [d for api in specs.RPC_APIS for kind in ("invariant", "identity", "chronology")
             for d in declarations.of_kind(kind, api) if d.get("seen_by")]


@pytest.fixture
def clients(request: pytest.FixtureRequest, profile: Profile) -> list[Any]:
    """The endpoints the test's declaration is seen on, made while the test is set up."""
    declaration: Declaration = request.node.callspec.params["declaration"]
    return declared_endpoints(request, declaration.api, profile)


@pytest.mark.parametrize("declaration", [pytest.param(d, marks=pytest.mark.rule(d.rule), id=d.id) for d in RELATIONS])
def test_every_answer_keeps_the_declared_relation(clients: list[Any], declaration: Declaration) -> None:
    """The declared calls are made; the run's watch judges every object of every answer."""
    answered = 0
    for client in clients:
        for call in declaration.get("seen_by"):
            exchange = client.call(call["method"], call["params"])
            body: Any = exchange.json() if exchange.is_json() else None
            answered += isinstance(body, dict) and body.get("result") is not None
    if not answered:
        reason = f"no call answered a {declaration.subject}"
        pytest.skip(for_want_of_data(reason) if declaration.api == "evm" else reason)
