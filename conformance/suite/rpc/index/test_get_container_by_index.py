"""index.getContainerByIndex: the container at the index asked for."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import record_error, result_of
from conformance.checks.index import IndexAt, position
from conformance.suite.rpc.conftest import Known


@pytest.mark.rule("RPC-IDX-017")
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_container_by_index_carries_that_index(index_at: IndexAt, known: Known, where: str) -> None:
    """index.getContainerByIndex returns the container whose index is the one requested."""
    wanted = {"first": 0, "middle": known.last // 2, "last": known.last}[where]
    exchange = index_at.by_index(wanted)
    container = result_of(exchange, "RPC-IDX-017", f"index.getContainerByIndex {wanted}")
    check(position(container) == wanted, "RPC-IDX-017", "index.getContainerByIndex returns another container",
          expected=f'a container with index "{wanted}"', received=container, exchange=exchange)


@pytest.mark.rule("RPC-IDX-029")
def test_container_by_index_beyond_the_end_is_recorded(index_at: IndexAt, known: Known,
                                                        observe: Callable[[str, Any], None]) -> None:
    """The answer of index.getContainerByIndex far beyond the last accepted index is recorded."""
    exchange = index_at.by_index(known.last + 2**40)
    body = exchange.json() if exchange.is_json() else exchange.text(200)
    observe("RPC-IDX-029", {"path": index_at.path, "status": exchange.status,
                            "answer": "error" if isinstance(body, dict) and "error" in body else "other"})
    record_error(observe, exchange)
