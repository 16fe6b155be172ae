"""The Container shape, as every Index API method that returns containers gives it."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks.envelope import result_of
from conformance.checks.index import IndexAt, check_container, range_items
from conformance.clients.http import Exchange
from conformance.profiles import Profile
from conformance.suite.rpc.conftest import Known

SHAPE_RULES = ("RPC-IDX-009", "RPC-IDX-010", "RPC-IDX-012", "RPC-IDX-013", "RPC-IDX-014")
#: Method -> the rule that it answers with containers, charged when it refuses a call for one it holds.
ANSWERED_BY = {"index.getLastAccepted": "RPC-IDX-027", "index.getContainerByIndex": "RPC-IDX-017",
               "index.getContainerByID": "RPC-IDX-018", "index.getContainerRange": "RPC-IDX-008"}


def containers_from(method: str, index_at: IndexAt, known: Known, sample: int) -> tuple[list[Any], Exchange]:
    """Containers as `method` returns them, with the exchange that carried them."""
    if method == "index.getContainerByID" and not isinstance(known.container.get("id"), str):
        pytest.skip("the last accepted container carries no string ID to look up (RPC-IDX-009)")
    if method == "index.getContainerRange":
        start = max(0, known.last + 1 - sample)
        exchange = index_at.range(start, known.last + 1 - start)
        return range_items(exchange, ANSWERED_BY[method], "a range inside the index"), exchange
    exchange = {"index.getLastAccepted": index_at.last_accepted,
                "index.getContainerByIndex": lambda: index_at.by_index(known.last),
                "index.getContainerByID": lambda: index_at.by_id(known.container.get("id", "")),
                }[method]()
    # A refusal is the deviation of the rule that the method returns that container, not of the shape rules.
    return [result_of(exchange, ANSWERED_BY[method], method)], exchange


@pytest.mark.rule(*SHAPE_RULES, "RPC-IDX-011")
@pytest.mark.parametrize("method", ["index.getLastAccepted", "index.getContainerByIndex", "index.getContainerByID",
                                    "index.getContainerRange"])
def test_containers_have_the_documented_shape(index_at: IndexAt, known: Known, method: str, profile: Profile,
                                              observe: Callable[[str, Any], None]) -> None:
    """Each container carries id, hex bytes, an RFC 3339 timestamp, encoding "hex" and a decimal index."""
    containers, exchange = containers_from(method, index_at, known, profile.sample)
    for container in containers:
        check_container(container, exchange=exchange, what=f"a container of {method}")
        if isinstance(container, dict) and isinstance(container.get("bytes"), str):
            observe("RPC-IDX-011", {"method": method, "0x": container["bytes"].startswith("0x")})
