"""The Container shape, as every Index API method that returns containers gives it."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks.envelope import result_of
from conformance.checks.index import IndexAt, check_container, range_items
from conformance.clients.http import Exchange
from conformance.suite.rpc.conftest import Known

SHAPE_RULES = ("RPC-IDX-009", "RPC-IDX-010", "RPC-IDX-012", "RPC-IDX-013", "RPC-IDX-014")


def containers_from(method: str, index_at: IndexAt, known: Known, sample: int) -> tuple[list[Any], Exchange]:
    """Containers as `method` returns them, with the exchange that carried them."""
    if method == "index.getContainerRange":
        start = max(0, known.last + 1 - sample)
        exchange = index_at.range(start, known.last + 1 - start)
        return range_items(exchange, "RPC-IDX-009", "a range inside the index"), exchange
    exchange = {"index.getLastAccepted": index_at.last_accepted,
                "index.getContainerByIndex": lambda: index_at.by_index(known.last),
                "index.getContainerByID": lambda: index_at.by_id(known.container.get("id", "")),
                }[method]()
    return [result_of(exchange, "RPC-IDX-009", method)], exchange


@pytest.mark.rule(*SHAPE_RULES, "RPC-IDX-011")
@pytest.mark.parametrize("method", ["index.getLastAccepted", "index.getContainerByIndex", "index.getContainerByID",
                                    "index.getContainerRange"])
def test_containers_have_the_documented_shape(index_at: IndexAt, known: Known, method: str, profile,
                                              observe: Callable[[str, Any], None]) -> None:  # type: ignore[no-untyped-def]
    """Each container carries id, hex bytes, an RFC 3339 timestamp, encoding "hex" and a decimal index."""
    containers, exchange = containers_from(method, index_at, known, profile.sample)
    for container in containers:
        check_container(container, exchange=exchange, what=f"a container of {method}")
        if isinstance(container, dict) and isinstance(container.get("bytes"), str):
            observe("RPC-IDX-011", {"method": method, "0x": container["bytes"].startswith("0x")})
