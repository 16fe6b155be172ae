"""index.getLastAccepted: the container with the highest index accepted so far."""
from __future__ import annotations

import pytest

from conformance.checks import check, fail
from conformance.checks.envelope import is_error, result_of
from conformance.checks.index import REREADS, WRAPPER, IndexAt, differences, position, same_container


def last_or_skip(index_at: IndexAt, rule_id: str) -> tuple[int, dict]:
    """The last accepted container now; skips for an empty index, fails when it hides existing containers."""
    exchange = index_at.last_accepted()
    if is_error(exchange):
        probe = index_at.range(0, 1)
        held = probe.json().get("result") if not is_error(probe) and isinstance(probe.json(), dict) else None
        if not held:
            pytest.skip(f"{index_at.path} has no containers")
        fail(rule_id, "index.getLastAccepted gives an error although the index holds containers",
             expected="the last accepted container", received=exchange.json(), exchange=exchange)
    container = result_of(exchange, rule_id, "index.getLastAccepted")
    last = position(container)
    check(last is not None, rule_id, "index.getLastAccepted returns no container index",
          expected="a Container", received=container, exchange=exchange)
    return last, container  # type: ignore[return-value]  # check() failed the rule unless last is an int


@pytest.mark.rule("RPC-IDX-027")
def test_last_accepted_is_the_highest_index(index_at: IndexAt) -> None:
    """index.getLastAccepted returns the container with the highest index: nothing exists past it."""
    last, _ = last_or_skip(index_at, "RPC-IDX-027")
    for _ in range(REREADS):
        exchange = index_at.range(last + 1, 1)
        past = exchange.json().get("result") if not is_error(exchange) and isinstance(exchange.json(), dict) else None
        if isinstance(past, dict):  # an array wrapped in an object is RPC-IDX-008's deviation: read what it holds
            past = past.get(WRAPPER)
        if not past:
            return
        again, _ = last_or_skip(index_at, "RPC-IDX-027")
        if again <= last:
            fail("RPC-IDX-027", "a container exists past the one index.getLastAccepted returns",
                 expected=f"no container after index {last}", received=past, exchange=exchange)
        last = again  # the index grew meanwhile: look past the new end


@pytest.mark.rule("RPC-IDX-028")
def test_last_accepted_is_the_container_at_its_index(index_at: IndexAt) -> None:
    """index.getLastAccepted returns the same container index.getContainerByIndex gives at its index."""
    last, container = last_or_skip(index_at, "RPC-IDX-028")
    exchange = index_at.by_index(last)
    # Which container getContainerByIndex gives, and whether it gives one, is RPC-IDX-017's.
    single = result_of(exchange, "RPC-IDX-017", f"index.getContainerByIndex {last}")
    if position(single) != last:
        pytest.skip(f"index.getContainerByIndex {last} gives another container (RPC-IDX-017 decides that)")
    check(isinstance(single, dict) and same_container(container, single), "RPC-IDX-028",
          "index.getLastAccepted and index.getContainerByIndex disagree", expected="the same container",
          received=differences(container, single) if isinstance(single, dict) else single, exchange=exchange)
