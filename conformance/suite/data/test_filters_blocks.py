"""Time and type filters of primary network transactions and node blocks; proposer and vertex height."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks import check, data as checks
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import DataApi, variant

# Pages inside every bound: the bounds are not on trial here.
TX_MAX = checks.plain_page_size("listTransactions")
BLOCK_MAX = checks.plain_page_size("listBlocksByNode")


def listed(data: DataApi, operation_id: str, rule: str, params: dict[str, Any]) -> tuple[Exchange, list[dict]]:
    exchange = data.once(operation_id, params)
    body = checks.served(exchange, rule, f"{operation_id} with {params}")
    return exchange, [i for i in checks.items_of(operation_id, body) if isinstance(i, dict)]


def base_query(data: DataApi, operation_id: str) -> dict[str, Any]:
    """The query that selects a list the time filters apply to (listTransactions needs an address)."""
    if operation_id == "listTransactions":
        return {"addresses": data.need("p_chain_address"), "pageSize": TX_MAX}
    return {"pageSize": BLOCK_MAX}


def middle_timestamp(data: DataApi, operation_id: str, rule: str) -> int:
    """A timestamp inside the list: the median blockTimestamp of one page at the default size."""
    _, items = listed(data, operation_id, rule, {**base_query(data, operation_id), "pageSize": None})
    stamps = sorted(i["blockTimestamp"] for i in items if isinstance(i.get("blockTimestamp"), int))
    if not stamps:
        pytest.skip(f"{operation_id} lists no item with a blockTimestamp")
    return stamps[len(stamps) // 2]


TIME_FILTERS = [
    ("DATA-FLT-013", "listTransactions", "startTimestamp"),
    ("DATA-FLT-014", "listTransactions", "endTimestamp"),
    ("DATA-FLT-015", "listBlocksByNode", "startTimestamp"),
    ("DATA-FLT-016", "listBlocksByNode", "endTimestamp"),
]


@pytest.mark.parametrize(("rule", "operation_id", "parameter"), [
    pytest.param(*case, marks=pytest.mark.rule(case[0]), id=f"{case[1]}-{case[2]}") for case in TIME_FILTERS])
def test_time_filter_keeps_items_in_range(data: DataApi, rule: str, operation_id: str, parameter: str) -> None:
    """A time filter returns no item beyond it."""
    stamp = middle_timestamp(data, operation_id, rule)
    exchange, items = listed(data, operation_id, rule, {**base_query(data, operation_id), parameter: stamp})
    after = parameter == "startTimestamp"
    wrong = [i["blockTimestamp"] for i in items if isinstance(i.get("blockTimestamp"), int)
             and (i["blockTimestamp"] < stamp if after else i["blockTimestamp"] > stamp)]
    check(not wrong, rule, f"{parameter} returns items {'before' if after else 'after'} it",
          expected=f"blockTimestamp {'>=' if after else '<='} {stamp}", received=f"blockTimestamps {wrong[:5]}",
          exchange=exchange)


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
    """listTransactions with addresses and txTypes returns only transactions of the listed types."""
    query = base_query(data, "listTransactions")
    _, items = listed(data, "listTransactions", "DATA-FLT-018", {**query, "pageSize": None})
    types = sorted({i["txType"] for i in items if isinstance(i.get("txType"), str)})
    if not types:
        pytest.skip("the address's transactions carry no txType")
    wanted = types[:1]
    exchange, items = listed(data, "listTransactions", "DATA-FLT-018", {**query, "txTypes": ",".join(wanted)})
    wrong = [i.get("txType") for i in items if i.get("txType", wanted[0]) not in wanted]
    check(not wrong, "DATA-FLT-018", "txTypes returns transactions of other types", expected=f"only {wanted}",
          received=f"txTypes {wrong[:5]}", exchange=exchange)


def l1_query(data: DataApi) -> dict[str, Any]:
    return {"l1ValidationId": data.need("l1_validation_id"), "pageSize": TX_MAX}


@pytest.mark.rule("DATA-FLT-019")
def test_l1_validation_tx_types_filter(data: DataApi) -> None:
    """listTransactions on the P-Chain with l1ValidationId and txTypes returns only the listed types."""
    _, items = listed(data, "listTransactions", "DATA-FLT-019", l1_query(data))
    types = sorted({i["txType"] for i in items if isinstance(i.get("txType"), str)})
    if not types:
        pytest.skip("the L1 validation's transactions carry no txType")
    exchange, found = listed(data, "listTransactions", "DATA-FLT-019", {**l1_query(data), "txTypes": types[0]})
    wrong = [i.get("txType") for i in found if i.get("txType", types[0]) != types[0]]
    check(not wrong, "DATA-FLT-019", "txTypes with l1ValidationId returns other types", expected=f"only {types[0]}",
          received=f"txTypes {wrong[:5]}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-020")
@pytest.mark.parametrize("parameter", [variant("startTimestamp", quick=True, id="startTimestamp"),
                                       variant("endTimestamp", quick=False, id="endTimestamp")])
def test_l1_validation_time_filter(data: DataApi, parameter: str) -> None:
    """listTransactions on the P-Chain with l1ValidationId and a time filter returns only transactions in range."""
    _, items = listed(data, "listTransactions", "DATA-FLT-020", l1_query(data))
    stamps = sorted(i["blockTimestamp"] for i in items if isinstance(i.get("blockTimestamp"), int))
    if len(stamps) < 2:
        pytest.skip("the L1 validation has fewer than two timed transactions")
    stamp = stamps[len(stamps) // 2]
    exchange, found = listed(data, "listTransactions", "DATA-FLT-020", {**l1_query(data), parameter: stamp})
    after = parameter == "startTimestamp"
    wrong = [i["blockTimestamp"] for i in found if isinstance(i.get("blockTimestamp"), int)
             and (i["blockTimestamp"] < stamp if after else i["blockTimestamp"] > stamp)]
    check(not wrong, "DATA-FLT-020", f"{parameter} with l1ValidationId returns transactions out of range",
          expected=f"blockTimestamp {'>=' if after else '<='} {stamp}", received=f"{wrong[:5]}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-021")
def test_l1_validation_transactions_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Which transaction types listTransactions returns for an l1ValidationId is recorded."""
    exchange = data.once("listTransactions", l1_query(data))
    items = checks.items_of("listTransactions", exchange.json()) if exchange.status == 200 else []
    observe("DATA-FLT-021", {"status": exchange.status, "types": sorted({str(i.get("txType")) for i in items
                                                                         if isinstance(i, dict)})})


@pytest.mark.rule("DATA-FLT-038")
def test_blocks_are_proposed_by_the_node(data: DataApi) -> None:
    """listBlocksByNode returns only blocks whose proposerNodeId, when present, is the node in the path."""
    node = data.path_value("listBlocksByNode", "nodeId")
    exchange, items = listed(data, "listBlocksByNode", "DATA-FLT-038", {})   # the route's default request
    proposers = [(i.get("proposerDetails") or {}).get("proposerNodeId") if isinstance(i.get("proposerDetails"), dict)
                 else None for i in items]
    wrong = [p for p in proposers if p is not None and p != node]
    check(not wrong, "DATA-FLT-038", "blocks of other proposers are returned", expected=f"proposerNodeId {node}",
          received=f"proposerNodeId {wrong[:5]}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-039")
def test_vertex_heights_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """The vertexHeight of the vertices returned for a requested height is recorded."""
    exchange = data.first("listVerticesByHeight")
    items = checks.items_of("listVerticesByHeight", exchange.json()) if exchange.status == 200 else []
    observe("DATA-FLT-039", {"requested": data.required_query("listVerticesByHeight")["vertexHeight"],
                             "returned": sorted({str(i.get("vertexHeight")) for i in items if isinstance(i, dict)})})
