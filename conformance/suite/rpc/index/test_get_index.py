"""index.getIndex: a decimal index, the one the container carries."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import record_error, result_of
from conformance.checks.index import IndexAt, container_to_look_up, position, unknown_id
from conformance.checks.shapes import assert_shape, component
from conformance.suite.rpc.conftest import Known


@pytest.mark.rule("RPC-IDX-020", "RPC-IDX-021")
@pytest.mark.parametrize("where", ["first", "last"])
def test_get_index_is_the_index_of_the_container(index_at: IndexAt, known: Known, where: str) -> None:
    """index.getIndex of a container ID returns, as a decimal string, the index that container carries."""
    wanted = 0 if where == "first" else known.last
    container = container_to_look_up(index_at, wanted, "RPC-IDX-017")
    exchange = index_at.get_index(container["id"])
    result = result_of(exchange, "RPC-IDX-020", "index.getIndex of a container in the index")
    with independently():  # the form of the index is RPC-IDX-020's; which index it names is read either way
        assert_shape("RPC-IDX-020", result, component("index", "IndexResult"), api="index",
                     what="index.getIndex result", exchange=exchange)
    # Which container getContainerByIndex gave is RPC-IDX-017's: getIndex must name the index that one carries.
    carried = position(container)
    if carried is None:
        pytest.skip("the container carries no decimal index to compare with (RPC-IDX-014 decides its form)")
    check(position(result) == carried, "RPC-IDX-021",
          "index.getIndex does not match the index the container carries", expected=f'"{carried}"',
          received=f"getIndex {result.get('index') if isinstance(result, dict) else result!r}, "
          f"container {container.get('index')!r}", exchange=exchange)


@pytest.mark.rule("RPC-IDX-026")
def test_get_index_of_unknown_id_is_recorded(index_at: IndexAt, observe: Callable[[str, Any], None]) -> None:
    """The answer of index.getIndex for an ID no index holds is recorded."""
    exchange = index_at.get_index(unknown_id())
    body = exchange.json() if exchange.is_json() else None
    observe("RPC-IDX-026", {"path": index_at.path, "status": exchange.status,
                            "answer": sorted(body) if isinstance(body, dict) else exchange.text(100)})
    record_error(observe, exchange)
