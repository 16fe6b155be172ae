"""index.isAccepted: a boolean, true for a container in the index."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import result_of
from conformance.checks.index import IndexAt, unknown_id
from conformance.checks.shapes import assert_shape, component
from conformance.suite.rpc.conftest import Known


@pytest.mark.rule("RPC-IDX-022", "RPC-IDX-023")
@pytest.mark.parametrize("where", ["first", "last"])
def test_is_accepted_is_true_for_a_container_in_the_index(index_at: IndexAt, known: Known, where: str) -> None:
    """index.isAccepted returns isAccepted true, a boolean, for the ID of a container in the index."""
    container_id = known.container.get("id") if where == "last" else \
        result_of(index_at.by_index(0), "RPC-IDX-023", "index.getContainerByIndex 0").get("id")
    exchange = index_at.is_accepted(container_id)
    result = result_of(exchange, "RPC-IDX-023", "index.isAccepted of a container in the index")
    assert_shape("RPC-IDX-022", result, component("index", "IsAcceptedResult"), api="index",
                 what="index.isAccepted result", exchange=exchange)
    check(result["isAccepted"] is True, "RPC-IDX-023", "index.isAccepted is not true for a container in the index",
          expected="isAccepted true", received=result, exchange=exchange)


@pytest.mark.rule("RPC-IDX-024", "RPC-IDX-022")
def test_is_accepted_of_unknown_id_is_recorded(index_at: IndexAt, observe: Callable[[str, Any], None]) -> None:
    """The answer of index.isAccepted for an ID no index holds is recorded; a result is a boolean."""
    exchange = index_at.is_accepted(unknown_id())
    body = exchange.json() if exchange.is_json() else None
    result = body.get("result") if isinstance(body, dict) else None
    observe("RPC-IDX-024", {"path": index_at.path, "status": exchange.status,
                            "answer": result if isinstance(body, dict) and "result" in body else "error"})
    if isinstance(body, dict) and "result" in body:
        assert_shape("RPC-IDX-022", result, component("index", "IsAcceptedResult"), api="index",
                     what="index.isAccepted result", exchange=exchange)
