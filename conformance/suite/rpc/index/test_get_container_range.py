"""index.getContainerRange: order, the numToFetch bounds, the end of the index, and agreement with single reads."""
from __future__ import annotations

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import expect_refusal, is_error, result_of
from conformance.checks.index import (IndexAt, beyond_last_refused, check_consecutive, differences, max_fetch,
                                      position, range_items, same_container)
from conformance.profiles import Profile
from conformance.suite.rpc.conftest import Known

MAX = max_fetch()


@pytest.mark.rule("RPC-IDX-001", "RPC-IDX-008")
def test_range_returns_consecutive_containers_in_order(index_at: IndexAt, known: Known, profile: Profile) -> None:
    """index.getContainerRange returns the containers at startIndex, startIndex+1, ... in that order."""
    count = min(known.last + 1, profile.sample + 2)
    start = known.last + 1 - count
    exchange = index_at.range(start, count)
    items = range_items(exchange, "RPC-IDX-008", "a range inside the index")
    with independently():  # the order of what came back is decided whatever its length
        check(len(items) >= count, "RPC-IDX-008", "a range inside the index returns fewer containers than asked",
              expected=f"{count} containers", received=f"{len(items)} containers", exchange=exchange)
    check_consecutive(items, start, exchange)


@pytest.mark.rule("RPC-IDX-002")
@pytest.mark.parametrize("start", ["first", "last"])
def test_zero_to_fetch_gives_an_empty_result(index_at: IndexAt, known: Known, start: str) -> None:
    """index.getContainerRange with numToFetch 0 gives null or an empty array."""
    exchange = index_at.range(0 if start == "first" else known.last, 0)
    result = result_of(exchange, "RPC-IDX-002", "numToFetch 0")
    check(result in (None, []), "RPC-IDX-002", "numToFetch 0 does not give an empty result",
          expected="null or []", received=result, exchange=exchange)


@pytest.mark.rule("RPC-IDX-003", "RPC-IDX-001")
def test_maximum_to_fetch_is_accepted(index_at: IndexAt, known: Known) -> None:
    """index.getContainerRange accepts numToFetch at its documented maximum and serves what exists."""
    start = max(0, known.last + 1 - MAX)
    exchange = index_at.range(start, MAX)
    items = range_items(exchange, "RPC-IDX-003", f"numToFetch {MAX}")
    with independently():
        check(min(MAX, known.last + 1 - start) <= len(items) <= MAX, "RPC-IDX-003",
              f"numToFetch {MAX} does not return the containers that exist", expected=f"{known.last + 1 - start} "
              f"containers (more only if the index grew)", received=f"{len(items)} containers", exchange=exchange)
    check_consecutive(items, start, exchange)


@pytest.mark.rule("RPC-IDX-004")
@pytest.mark.parametrize("above", [1, 2**32], ids=["max+1", "max+2^32"])
def test_above_maximum_to_fetch_is_rejected(index_at: IndexAt, known: Known, above: int) -> None:
    """index.getContainerRange rejects numToFetch above its documented maximum."""
    expect_refusal(index_at.range(0, MAX + above), "RPC-IDX-004", f"numToFetch {MAX + above}")


@pytest.mark.rule("RPC-IDX-005")
@pytest.mark.parametrize("offset", [1, 2, 2**40], ids=["last+1", "last+2", "last+2^40"])
def test_start_beyond_last_accepted_is_rejected(index_at: IndexAt, known: Known, offset: int) -> None:
    """index.getContainerRange rejects a startIndex beyond the last accepted index when numToFetch is 1."""
    refused, exchange = beyond_last_refused(index_at, known.last, offset)
    check(refused, "RPC-IDX-005", "a startIndex beyond the last accepted index is not refused",
          expected="a JSON-RPC error object", received=None if refused else exchange.json().get("result"),
          exchange=exchange)


#: Where a range of one starts against the last accepted index, and the rule that decides it there: one inside and
#: exactly at the end are answered with that container; one beyond is refused (RPC-IDX-005, above).
START_EDGES = [pytest.param(-1, marks=pytest.mark.rule("RPC-IDX-001"), id="last-1"),
               pytest.param(0, marks=pytest.mark.rule("RPC-IDX-044"), id="last")]


@pytest.mark.parametrize("offset", START_EDGES)
def test_range_of_one_at_the_end_of_the_index(index_at: IndexAt, known: Known, offset: int) -> None:
    """index.getContainerRange with numToFetch 1 from the last accepted index, or one before it, returns exactly
    the container at startIndex: the last accepted one itself at the edge."""
    start = known.last + offset
    if start < 0:
        pytest.skip(f"{index_at.path} holds one container: there is no index before the last")
    rule = "RPC-IDX-044" if offset == 0 else "RPC-IDX-001"
    exchange = index_at.range(start, 1)
    items = range_items(exchange, rule, f"a range of one from index {start}")
    # The container at an index never changes: the one getLastAccepted gave names the last accepted container.
    wanted = known.container.get("id") if offset == 0 else None
    check(len(items) == 1 and position(items[0]) == start and (wanted is None or items[0].get("id") == wanted),
          rule, f"a range of one from index {start} does not return the container at that index",
          expected=f'one container, index "{start}"' + (f", id {wanted} (the last accepted)" if wanted else ""),
          received=[{"index": c.get("index"), "id": c.get("id")} if isinstance(c, dict) else c for c in items],
          exchange=exchange)


@pytest.mark.rule("RPC-IDX-006")
@pytest.mark.parametrize("offset", [1, 2**40], ids=["last+1", "last+2^40"])
def test_zero_to_fetch_beyond_last_accepted_is_not_an_error(index_at: IndexAt, known: Known, offset: int) -> None:
    """index.getContainerRange with numToFetch 0 answers a startIndex beyond the last accepted index."""
    exchange = index_at.range(known.last + offset, 0)
    check(not is_error(exchange), "RPC-IDX-006", "numToFetch 0 beyond the last accepted index gives an error",
          expected="a result (empty)", received=exchange.json() if exchange.is_json() else exchange.text(200),
          exchange=exchange)


@pytest.mark.rule("RPC-IDX-007")
@pytest.mark.parametrize("extra", [1, 7])
def test_range_past_the_end_returns_the_available_ones(index_at: IndexAt, known: Known, extra: int) -> None:
    """index.getContainerRange reaching past the last accepted container returns the ones available."""
    start = max(0, known.last - 1)
    exchange = index_at.range(start, known.last + 1 - start + extra)
    items = range_items(exchange, "RPC-IDX-007", "a range reaching past the end")
    # The index only grows: at least the containers known at the start must come back, at most the ones asked.
    with independently():
        check(known.last + 1 - start <= len(items) <= known.last + 1 - start + extra, "RPC-IDX-007",
              "a range reaching past the last accepted container does not return the available ones",
              expected=f"at least {known.last + 1 - start} containers from index {start}",
              received=f"{len(items)} containers", exchange=exchange)
    check_consecutive(items, start, exchange)


@pytest.mark.rule("RPC-IDX-019")
def test_range_agrees_with_get_container_by_index(index_at: IndexAt, known: Known, profile: Profile) -> None:
    """Each container of index.getContainerRange equals the one index.getContainerByIndex gives at its index."""
    count = min(known.last + 1, profile.sample)
    start = known.last + 1 - count
    items = range_items(index_at.range(start, count), "RPC-IDX-019", "a range inside the index")
    # Each container is compared with the one at the index it carries: which indexes, in which order, a range
    # holds is RPC-IDX-001's.
    for container in items[:count]:
        at = position(container)
        if at is None or not start <= at < start + count:
            continue
        exchange = index_at.by_index(at)
        single = result_of(exchange, "RPC-IDX-017", f"index.getContainerByIndex {at}")
        if position(single) != at:
            pytest.skip(f"index.getContainerByIndex {at} gives another container (RPC-IDX-017 decides that)")
        check(isinstance(container, dict) and isinstance(single, dict) and same_container(container, single),
              "RPC-IDX-019", f"the range and index.getContainerByIndex disagree at index {at}",
              expected="the same container", received=differences(container, single)
              if isinstance(container, dict) and isinstance(single, dict) else [container, single],
              exchange=exchange)
