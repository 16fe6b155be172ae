"""index.getContainerByID: the container with that ID, the same one as at its index."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import record_error, result_of
from conformance.checks.index import IndexAt, container_to_look_up, differences, same_container, unknown_id
from conformance.suite.rpc.conftest import Known


@pytest.mark.rule("RPC-IDX-018")
@pytest.mark.parametrize("where", ["first", "last"])
def test_container_by_id_is_the_one_at_its_index(index_at: IndexAt, known: Known, where: str) -> None:
    """index.getContainerByID returns the container with that ID, the one index.getContainerByIndex gives."""
    wanted = 0 if where == "first" else known.last
    at_index = container_to_look_up(index_at, wanted, "RPC-IDX-017")
    exchange = index_at.by_id(at_index["id"])
    by_id = result_of(exchange, "RPC-IDX-018", "index.getContainerByID of a container in the index")
    # Which container getContainerByIndex gave is RPC-IDX-017's: the lookup by its ID must give that same one.
    check(isinstance(by_id, dict) and same_container(by_id, at_index), "RPC-IDX-018",
          "index.getContainerByID returns another container than the one at its index",
          expected=f"the container index.getContainerByIndex {wanted} gave (index {at_index.get('index')!r})",
          received=differences(by_id, at_index) if isinstance(by_id, dict) else by_id, exchange=exchange)


@pytest.mark.rule("RPC-IDX-025")
def test_container_by_unknown_id_is_recorded(index_at: IndexAt, observe: Callable[[str, Any], None]) -> None:
    """The answer of index.getContainerByID for an ID no index holds is recorded."""
    exchange = index_at.by_id(unknown_id())
    body = exchange.json() if exchange.is_json() else None
    observe("RPC-IDX-025", {"path": index_at.path, "status": exchange.status,
                            "answer": sorted(body) if isinstance(body, dict) else exchange.text(100)})
    record_error(observe, exchange)
