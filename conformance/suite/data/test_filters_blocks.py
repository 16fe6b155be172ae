"""Time and type filters of primary network transactions and node blocks, on every page a walk reads; the address,
L1 validation, proposer and vertex height each route is asked about."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance import evidence, pagination
from conformance.checks import check, data as checks, data_pages as pages
from conformance.checks.data_pages import DataWalk
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import FILTER_PAGE, DataApi, variant

# Pages inside every bound: the bounds are not on trial here.
TX_MAX = checks.plain_page_size("listTransactions")
BLOCK_MAX = checks.plain_page_size("listBlocksByNode")
#: Items a time window is cut around: few enough that the window's answer ends within one page of the plain size.
WINDOW_ITEMS = 6


def listed(data: DataApi, operation_id: str, rule: str, params: dict[str, Any]) -> tuple[Exchange, list[dict]]:
    exchange = data.once(operation_id, params)
    body = checks.served(exchange, rule, f"{operation_id} with {params}")
    return exchange, [i for i in checks.items_of(operation_id, body) if isinstance(i, dict)]


def filtered(data: DataApi, operation_id: str, rule: str, params: dict[str, Any], **path: str) -> DataWalk:
    """The walk of the route with the filter; its first page must be served."""
    walk = data.filtered(operation_id, params, **path)
    pages.require_walk(walk, rule, f"{operation_id} with {params}")
    return walk


def of_the_address(data: DataApi, walk: DataWalk) -> None:
    """A filter of listTransactions with addresses is judged on the address's transactions: where the walk holds
    others, the address filter is not applied (DATA-FLT-041's deviation) and the filter cannot be judged."""
    address = checks.bare_address(data.need("p_chain_address"))
    if any(isinstance(tx, dict) and not checks.mentions(tx, address) for tx in walk.items):
        evidence.blocked_by("DATA-FLT-041")
        pytest.skip(f"blocked by DATA-FLT-041: transactions that do not name {address} are returned")


def base_query(data: DataApi, operation_id: str) -> dict[str, Any]:
    """The query that selects a list the time filters apply to (listTransactions needs an address)."""
    if operation_id == "listTransactions":
        return {"addresses": data.need("p_chain_address"), "pageSize": TX_MAX}
    return {"pageSize": BLOCK_MAX}


def unpaged(query: dict[str, Any]) -> dict[str, Any]:
    """A listing's query without its page size: a filtered walk reads FILTER_PAGE items a page."""
    return {k: v for k, v in query.items() if k != "pageSize"}


def stamps_of(items: list[dict]) -> list[int]:
    return sorted(i["blockTimestamp"] for i in items if isinstance(i.get("blockTimestamp"), int)
                  and not isinstance(i.get("blockTimestamp"), bool))


def middle_timestamp(data: DataApi, operation_id: str, rule: str) -> int:
    """A timestamp inside the list: the median blockTimestamp of one page at the default size."""
    _, items = listed(data, operation_id, rule, {**base_query(data, operation_id), "pageSize": None})
    stamps = stamps_of(items)
    if not stamps:
        pytest.skip(f"{operation_id} lists no item with a blockTimestamp")
    return stamps[len(stamps) // 2]


def filter_timestamp(data: DataApi, operation_id: str, rule: str, parameter: str) -> int:
    """An item's blockTimestamp where a filter that is not applied shows within two filtered pages.

    Where the list's order puts the kept side first (newest first for startTimestamp, oldest first for
    endTimestamp), the kept side spans a little more than one page: a filter dropped after the first page shows on
    the second. In the other order a walk never reaches the filter's edge, and the stamp leaves a few items of the
    first page on the side the filter drops."""
    _, items = listed(data, operation_id, rule, base_query(data, operation_id))
    if not stamps_of(items):
        pytest.skip(f"{operation_id} lists no item with a blockTimestamp")
    return edge_timestamp(items, parameter)


def edge_timestamp(items: list[dict], parameter: str) -> int:
    """The blockTimestamp `filter_timestamp` describes, read from a page at the plain size in the list's order."""
    ordered = [i["blockTimestamp"] for i in items if isinstance(i.get("blockTimestamp"), int)]
    newest_first = checks.out_of_order(ordered, descending=True) is None
    oldest_first = checks.out_of_order(ordered, descending=False) is None
    kept_first = newest_first if parameter == "startTimestamp" else oldest_first
    if kept_first and len(ordered) > FILTER_PAGE + 2:
        return ordered[FILTER_PAGE + 2]
    return ordered[min(len(ordered), FILTER_PAGE) // 2]


TIME_FILTERS = [
    ("DATA-FLT-013", "listTransactions", "startTimestamp"),
    ("DATA-FLT-014", "listTransactions", "endTimestamp"),
    ("DATA-FLT-015", "listBlocksByNode", "startTimestamp"),
    ("DATA-FLT-016", "listBlocksByNode", "endTimestamp"),
]


@pytest.mark.parametrize(("rule", "operation_id", "parameter"), [
    pytest.param(*case, marks=pytest.mark.rule(case[0]), id=f"{case[1]}-{case[2]}") for case in TIME_FILTERS])
def test_time_filter_keeps_items_in_range(data: DataApi, rule: str, operation_id: str, parameter: str) -> None:
    """A time filter returns no item beyond it, on any page."""
    stamp = filter_timestamp(data, operation_id, rule, parameter)
    query = {**unpaged(base_query(data, operation_id)), parameter: stamp}
    walk = filtered(data, operation_id, rule, query)
    if operation_id == "listTransactions":
        of_the_address(data, walk)
    after = parameter == "startTimestamp"

    def within(item: dict) -> bool:
        ts = item.get("blockTimestamp")
        return not isinstance(ts, int) or (ts >= stamp if after else ts <= stamp)
    pages.assert_every_page(walk, rule, within,
                            summary=f"{parameter} returns items {'before' if after else 'after'} it",
                            expected=f"blockTimestamp {'>=' if after else '<='} {stamp}",
                            shown=lambda item: item.get("blockTimestamp"))


WINDOWS = [("DATA-FLT-042", "listTransactions"), ("DATA-FLT-043", "listBlocksByNode")]


@pytest.mark.parametrize(("rule", "operation_id"), [
    pytest.param(*case, marks=pytest.mark.rule(case[0]), id=case[1]) for case in WINDOWS])
def test_time_window_keeps_the_items_inside_it(data: DataApi, rule: str, operation_id: str) -> None:
    """A window cut at two items' blockTimestamps returns every item strictly between them (whether the items at
    the bounds are returned is not shown: DATA-FLT-017 records it)."""
    _, items = listed(data, operation_id, rule, base_query(data, operation_id))
    stamps = sorted(set(stamps_of(items)))
    if len(stamps) < 3:
        pytest.skip(f"{operation_id} lists fewer than three distinct blockTimestamps")
    low = max(0, len(stamps) // 2 - WINDOW_ITEMS // 2)
    start, end = stamps[low], stamps[min(len(stamps) - 1, low + WINDOW_ITEMS)]
    inside = [i for i in items if isinstance(i.get("blockTimestamp"), int) and start < i["blockTimestamp"] < end]
    walk = filtered(data, operation_id, rule, {**base_query(data, operation_id), "startTimestamp": start,
                                               "endTimestamp": end})
    if operation_id == "listTransactions":
        of_the_address(data, walk)
    returned = {checks.identity(operation_id, i) for i in walk.items}
    missing = [i for i in inside if checks.identity(operation_id, i) not in returned]
    if missing and not walk.ended:
        pytest.skip(f"the {operation_id} window did not end within {len(walk.walk.exchanges)} pages")
    check(not missing, rule, f"startTimestamp={start} and endTimestamp={end} leave out items between them",
          expected=f"the {len(inside)} items the unfiltered list holds strictly between {start} and {end}",
          received=f"{len(missing)} missing, e.g. blockTimestamps {[i['blockTimestamp'] for i in missing[:5]]}; "
                   f"returned {sorted(stamps_of(walk.items))[:10]}", exchange=walk.walk.exchanges[0])


@pytest.mark.rule("DATA-FLT-017")
@pytest.mark.parametrize("operation_id", ["listTransactions", "listBlocksByNode"])
def test_boundary_items_are_recorded(data: DataApi, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """Whether items exactly at startTimestamp and endTimestamp are returned is recorded."""
    stamp = middle_timestamp(data, operation_id, "DATA-FLT-015")
    seen = {}
    for parameter in ("startTimestamp", "endTimestamp"):
        exchange = data.once(operation_id, {**base_query(data, operation_id), parameter: stamp})
        items = checks.items_of(operation_id, exchange.json()) if exchange.status == 200 else []
        seen[parameter] = any(isinstance(i, dict) and i.get("blockTimestamp") == stamp for i in items)
    observe("DATA-FLT-017", {"route": operation_id, "boundary_included": seen})


@pytest.mark.rule("DATA-FLT-018")
def test_tx_types_filter_with_addresses(data: DataApi) -> None:
    """listTransactions with addresses and txTypes returns only transactions of the listed types, on every page."""
    query = base_query(data, "listTransactions")
    _, items = listed(data, "listTransactions", "DATA-FLT-018", {**query, "pageSize": None})
    types = sorted({i["txType"] for i in items if isinstance(i.get("txType"), str)})
    if not types:
        pytest.skip("the address's transactions carry no txType")
    wanted = types[:1]
    walk = filtered(data, "listTransactions", "DATA-FLT-018", {**unpaged(query), "txTypes": ",".join(wanted)})
    of_the_address(data, walk)
    pages.assert_every_page(walk, "DATA-FLT-018", lambda i: i.get("txType", wanted[0]) in wanted,
                            summary="txTypes returns transactions of other types", expected=f"only {wanted}",
                            shown=lambda i: i.get("txType"))


@pytest.mark.rule("DATA-FLT-041")
def test_transactions_name_the_address(data: DataApi) -> None:
    """listTransactions with addresses returns only transactions that name the address, on every page."""
    address = checks.bare_address(data.need("p_chain_address"))
    walk = filtered(data, "listTransactions", "DATA-FLT-041", {"addresses": address})
    pages.assert_every_page(walk, "DATA-FLT-041", lambda tx: checks.mentions(tx, address),
                            summary="transactions that do not name the address are returned",
                            expected=f"transactions naming {address} (in their UTXOs' addresses or elsewhere)",
                            shown=lambda tx: tx.get("txHash"))


def l1_query(data: DataApi) -> dict[str, Any]:
    return {"l1ValidationId": data.need("l1_validation_id"), "pageSize": TX_MAX}


@pytest.mark.rule("DATA-FLT-019")
def test_l1_validation_tx_types_filter(data: DataApi) -> None:
    """listTransactions on the P-Chain with l1ValidationId and txTypes returns only the listed types, on every page."""
    _, items = listed(data, "listTransactions", "DATA-FLT-019", l1_query(data))
    types = sorted({i["txType"] for i in items if isinstance(i.get("txType"), str)})
    if not types:
        pytest.skip("the L1 validation's transactions carry no txType")
    walk = filtered(data, "listTransactions", "DATA-FLT-019", {**unpaged(l1_query(data)),
                                                               "txTypes": types[0]})
    pages.assert_every_page(walk, "DATA-FLT-019", lambda i: i.get("txType", types[0]) == types[0],
                            summary="txTypes with l1ValidationId returns other types", expected=f"only {types[0]}",
                            shown=lambda i: i.get("txType"))


@pytest.mark.rule("DATA-FLT-020")
@pytest.mark.parametrize("parameter", [variant("startTimestamp", quick=True, id="startTimestamp"),
                                       variant("endTimestamp", quick=False, id="endTimestamp")])
def test_l1_validation_time_filter(data: DataApi, parameter: str) -> None:
    """listTransactions on the P-Chain with l1ValidationId and a time filter returns only transactions in range."""
    _, items = listed(data, "listTransactions", "DATA-FLT-020", l1_query(data))
    if len(stamps_of(items)) < 2:
        pytest.skip("the L1 validation has fewer than two timed transactions")
    stamp = edge_timestamp(items, parameter)
    walk = filtered(data, "listTransactions", "DATA-FLT-020", {**unpaged(l1_query(data)), parameter: stamp})
    after = parameter == "startTimestamp"

    def within(item: dict) -> bool:
        ts = item.get("blockTimestamp")
        return not isinstance(ts, int) or (ts >= stamp if after else ts <= stamp)
    pages.assert_every_page(walk, "DATA-FLT-020", within,
                            summary=f"{parameter} with l1ValidationId returns transactions out of range",
                            expected=f"blockTimestamp {'>=' if after else '<='} {stamp}",
                            shown=lambda i: i.get("blockTimestamp"))


@pytest.mark.rule("DATA-FLT-040")
def test_l1_validation_transactions_name_it(data: DataApi) -> None:
    """listTransactions with l1ValidationId returns only transactions that name that validation, on every page."""
    validation = data.need("l1_validation_id")
    walk = filtered(data, "listTransactions", "DATA-FLT-040", {"l1ValidationId": validation})
    pages.assert_every_page(walk, "DATA-FLT-040", lambda tx: checks.mentions(tx, validation),
                            summary="transactions of other validations are returned",
                            expected=f"transactions naming the validation {validation}",
                            shown=lambda tx: (tx.get("txType"), [d.get("validationId") for d in
                                                                 tx.get("l1ValidatorDetails") or []
                                                                 if isinstance(d, dict)]))


@pytest.mark.rule("DATA-FLT-021")
def test_l1_validation_transactions_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Which transaction types listTransactions returns for an l1ValidationId is recorded."""
    exchange = data.once("listTransactions", l1_query(data))
    items = checks.items_of("listTransactions", exchange.json()) if exchange.status == 200 else []
    observe("DATA-FLT-021", {"status": exchange.status, "types": sorted({str(i.get("txType")) for i in items
                                                                         if isinstance(i, dict)})})


def proposer(block: dict) -> Any:
    details = block.get("proposerDetails")
    return details.get("proposerNodeId") if isinstance(details, dict) else None


@pytest.mark.rule("DATA-FLT-038")
def test_blocks_are_proposed_by_the_node(data: DataApi) -> None:
    """listBlocksByNode returns only blocks whose proposerNodeId, when present, is the node in the path."""
    node = data.path_value("listBlocksByNode", "nodeId")
    walk = filtered(data, "listBlocksByNode", "DATA-FLT-038", {})
    pages.assert_every_page(walk, "DATA-FLT-038", lambda b: proposer(b) in (None, node),
                            summary="blocks of other proposers are returned", expected=f"proposerNodeId {node}",
                            shown=proposer)


@pytest.mark.rule("DATA-FLT-039")
@pytest.mark.parametrize("height", [None, 1], ids=["default-height", "height-1"])
def test_vertices_are_of_the_requested_height(data: DataApi, height: int | None) -> None:
    """listVerticesByHeight returns only vertices whose vertexHeight is the requested one, on every page: at the
    default requests' height and at height 1 (the one the bound test asks for: a height other than 0, which a
    route that ignores the parameter may happen to answer)."""
    if height is None:
        height = int(data.required_query("listVerticesByHeight")["vertexHeight"])
        walk = filtered(data, "listVerticesByHeight", "DATA-FLT-039", {})
    else:
        exchange = data.once("listVerticesByHeight", {"vertexHeight": height})   # the bound test's request
        walk = DataWalk("listVerticesByHeight", None, pagination.Walk(
            pages=[checks.served(exchange, "DATA-FLT-039", f"listVerticesByHeight at height {height}")],
            exchanges=[exchange], stopped=pagination.BUDGET))
    wanted = height
    checked = pages.assert_every_page(
        walk, "DATA-FLT-039", lambda v: checks.number(v.get("vertexHeight")) in (None, wanted),
        summary=f"vertexHeight={wanted} returns vertices of other heights", expected=f"vertexHeight {wanted}",
        shown=lambda v: v.get("vertexHeight"))
    if not checked:
        pytest.skip(f"the X-Chain has no vertex at height {wanted}")
