"""index.isAccepted: a boolean, true for a container in the index and never for one it does not hold."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import result_of
from conformance.checks.index import (IndexAt, accepted, container_to_look_up, first_id, holds, index_paths,
                                      unknown_id)
from conformance.checks.shapes import assert_shape, component
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.suite.rpc.conftest import Known


@pytest.mark.rule("RPC-IDX-022", "RPC-IDX-023")
@pytest.mark.parametrize("where", ["first", "last"])
def test_is_accepted_is_true_for_a_container_in_the_index(index_at: IndexAt, known: Known, where: str) -> None:
    """index.isAccepted returns isAccepted true, a boolean, for the ID of a container in the index."""
    container_id = known.container.get("id") if where == "last" else \
        container_to_look_up(index_at, 0, "RPC-IDX-017")["id"]
    if not isinstance(container_id, str):
        pytest.skip("the last accepted container carries no string ID to ask about (RPC-IDX-009)")
    exchange = index_at.is_accepted(container_id)
    result = result_of(exchange, "RPC-IDX-023", "index.isAccepted of a container in the index")
    assert_shape("RPC-IDX-022", result, component("index", "IsAcceptedResult"), api="index",
                 what="index.isAccepted result", exchange=exchange)
    check(result["isAccepted"] is True, "RPC-IDX-023", "index.isAccepted is not true for a container in the index",
          expected="isAccepted true", received=result, exchange=exchange)


@pytest.mark.rule("RPC-IDX-024", "RPC-IDX-022", "RPC-IDX-042")
def test_is_accepted_of_unknown_id_is_recorded(index_at: IndexAt, observe: Callable[[str, Any], None]) -> None:
    """The answer of index.isAccepted for an ID no index holds is recorded: an error or a boolean, never true."""
    exchange = index_at.is_accepted(unknown_id())
    body = exchange.json() if exchange.is_json() else None
    result = body.get("result") if isinstance(body, dict) else None
    observe("RPC-IDX-024", {"path": index_at.path, "status": exchange.status,
                            "answer": result if isinstance(body, dict) and "result" in body else "error"})
    if isinstance(body, dict) and "result" in body:
        assert_shape("RPC-IDX-022", result, component("index", "IsAcceptedResult"), api="index",
                     what="index.isAccepted result", exchange=exchange)
    check(accepted(exchange) is not True, "RPC-IDX-042", "index.isAccepted is true for an ID no index holds",
          expected="isAccepted false (or an error): the ID names no container", received=result, exchange=exchange)


def neighbour(path: str, served: set[str]) -> str | None:
    """The next served index path after `path`, in the order the spec lists them (each path asks another)."""
    paths = index_paths()
    ring = paths[paths.index(path) + 1:] + paths[:paths.index(path)]
    return next((other for other in ring if other in served), None)


@pytest.mark.rule("RPC-IDX-042")
def test_is_accepted_is_not_true_for_a_container_of_another_index(
        index_at: IndexAt, index_served: set[str], rpc_at: Callable[[str], JsonRpcClient]) -> None:
    """index.isAccepted is not true for a container another index path holds and this one does not."""
    other = neighbour(index_at.path, index_served)
    container_id = first_id(IndexAt(other, rpc_at(other))) if other else None
    if container_id is None:
        pytest.skip("no other index path gives a container to ask about")
    exchange = index_at.is_accepted(container_id)
    if accepted(exchange) is True and holds(index_at, container_id):
        # This path shows it holds the other path's container: the two paths mix up their indexes, which is
        # RPC-IDX-043's deviation; what isAccepted says is then true.
        pytest.skip(f"{index_at.path} holds the first container of {other} (RPC-IDX-043 decides that)")
    check(accepted(exchange) is not True, "RPC-IDX-042",
          f"index.isAccepted at {index_at.path} is true for a container of {other} it does not hold",
          expected=f"isAccepted false (or an error): {container_id} is the first container of {other}, and "
          f"{index_at.path} gives no index for it", received=accepted(exchange), exchange=exchange)
