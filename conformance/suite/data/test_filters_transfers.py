"""EVM filters: block ranges of transfers (startBlock inclusive, endBlock exclusive) and balance filters."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks import check, data as checks
from conformance.clients.http import Exchange
from conformance.pagination import is_token
from conformance.suite.data.conftest import DataApi, variant

TRANSFER_ROUTES = ["listErc721Transactions", "listErc1155Transactions", "listTokenTransfers"]


def routes(rule: str) -> list[object]:
    """The transfer routes a block range rule is tried on: all in exhaustive profiles, the first in quick."""
    return [variant(op, quick=op == TRANSFER_ROUTES[0], marks=pytest.mark.rule(rule), id=op) for op in TRANSFER_ROUTES]


def block(item: Any) -> int | None:
    value = checks.number(item.get("blockNumber")) if isinstance(item, dict) else None
    return int(value) if isinstance(value, (int, float)) else None


def transfers(data: DataApi, operation_id: str, rule: str, params: dict[str, Any]) -> tuple[Exchange, list[Any]]:
    exchange = data.once(operation_id, {"pageSize": checks.plain_page_size(operation_id), **params})
    return exchange, checks.items_of(operation_id, checks.served(exchange, rule, f"{operation_id} with {params}"))


def blocks_seen(data: DataApi, operation_id: str, rule: str) -> list[Any]:
    """Items of one unfiltered page that carry a block number (skips when there is none)."""
    exchange = data.once(operation_id, {"pageSize": 10})
    items = [i for i in checks.items_of(operation_id, checks.served(exchange, rule, operation_id))
             if block(i) is not None]
    if len(items) < 2:
        pytest.skip(f"{operation_id} lists fewer than two transfers with a blockNumber")
    return items


def keys(operation_id: str, items: list[Any]) -> set[str]:
    return {checks.identity(operation_id, item) for item in items}


@pytest.mark.parametrize("operation_id", routes("DATA-FLT-022"))
def test_start_block_is_inclusive(data: DataApi, operation_id: str) -> None:
    """With startBlock, transfers start at that block, inclusive."""
    first = blocks_seen(data, operation_id, "DATA-FLT-022")[0]
    start = block(first)
    exchange, items = transfers(data, operation_id, "DATA-FLT-022", {"startBlock": start, "endBlock": start + 1})
    wrong = [block(i) for i in items if (block(i) or start) < start]
    check(not wrong and checks.identity(operation_id, first) in keys(operation_id, items), "DATA-FLT-022",
          f"startBlock={start} does not start at that block inclusive",
          expected=f"transfers from block {start} on, including those at block {start}",
          received=f"blocks {sorted(block(i) for i in items)[:10]}", exchange=exchange)


@pytest.mark.parametrize("operation_id", routes("DATA-FLT-023"))
def test_end_block_is_exclusive(data: DataApi, operation_id: str) -> None:
    """With endBlock, transfers stop before that block."""
    end = max(block(i) or 0 for i in blocks_seen(data, operation_id, "DATA-FLT-023"))
    exchange, items = transfers(data, operation_id, "DATA-FLT-023", {"endBlock": end})
    wrong = [block(i) for i in items if (block(i) or 0) >= end]
    check(not wrong, "DATA-FLT-023", f"endBlock={end} returns transfers at or after it",
          expected=f"blocks below {end}", received=f"blocks {wrong[:5]}", exchange=exchange)


@pytest.mark.parametrize(("rule", "parameter"), [
    pytest.param("DATA-FLT-024", "startBlock", marks=pytest.mark.rule("DATA-FLT-024"), id="startBlock-only"),
    pytest.param("DATA-FLT-025", "endBlock", marks=pytest.mark.rule("DATA-FLT-025"), id="endBlock-only")])
@pytest.mark.parametrize("operation_id", [variant(op, quick=op == TRANSFER_ROUTES[0], id=op) for op in TRANSFER_ROUTES])
def test_open_block_range(data: DataApi, operation_id: str, rule: str, parameter: str) -> None:
    """An open block range reaches the most recent block (startBlock only) or genesis (endBlock only)."""
    seen = blocks_seen(data, operation_id, rule)
    numbers = sorted(block(i) or 0 for i in seen)
    bound = numbers[0] if parameter == "startBlock" else numbers[-1]
    wanted = [i for i in seen if ((block(i) or 0) >= bound if parameter == "startBlock" else (block(i) or 0) < bound)]
    walk = data.walk(operation_id, {"pageSize": checks.plain_page_size(operation_id), parameter: bound})
    if not walk.walk.pages:
        checks.served(walk.walk.exchanges[0], rule, f"{operation_id} with {parameter}={bound}")
    missing = keys(operation_id, wanted) - keys(operation_id, walk.items)
    if missing and not walk.ended:
        pytest.skip(f"the {operation_id} range did not end within {len(walk.walk.exchanges)} pages")
    check(not missing, rule, f"{parameter}={bound} alone does not reach {'the most recent block' if parameter == 'startBlock' else 'genesis'}",
          expected=f"every transfer {'from' if parameter == 'startBlock' else 'before'} block {bound}",
          received=f"{len(missing)} transfers missing, e.g. {sorted(missing)[:2]}", exchange=walk.walk.exchanges[0])


BALANCE_FILTERS = [
    ("DATA-FLT-026", "listErc20Balances", "contractAddresses"),
    ("DATA-FLT-027", "listErc1155Balances", "contractAddress"),
    ("DATA-FLT-028", "listErc721Balances", "contractAddress"),
]


@pytest.mark.parametrize(("rule", "operation_id", "parameter"), [
    pytest.param(*case, marks=pytest.mark.rule(case[0]), id=case[1]) for case in BALANCE_FILTERS])
def test_contract_filter(data: DataApi, rule: str, operation_id: str, parameter: str) -> None:
    """A contract filter returns only balances of the named contracts."""
    items = checks.items_of(operation_id, checks.served(data.first(operation_id), rule, operation_id))
    contracts = list(dict.fromkeys(str(i["address"]) for i in items if isinstance(i, dict) and i.get("address")))
    if not contracts:
        pytest.skip(f"{operation_id} lists no balance with an address")
    wanted = contracts[:2] if parameter == "contractAddresses" else contracts[:1]
    exchange, found = transfers(data, operation_id, rule, {parameter: ",".join(wanted)})
    allowed = {c.lower() for c in wanted}
    wrong = [i.get("address") for i in found if isinstance(i, dict) and str(i.get("address", wanted[0])).lower()
             not in allowed]
    check(not wrong, rule, f"{parameter} returns balances of other contracts", expected=f"only {wanted}",
          received=f"addresses {wrong[:5]}", exchange=exchange)


def erc20_addresses(data: DataApi, spam: bool) -> tuple[Exchange, set[str], list[Any]]:
    exchange, items = transfers(data, "listErc20Balances", "DATA-FLT-029", {"filterSpamTokens": spam})
    return exchange, {str(i.get("address")).lower() for i in items if isinstance(i, dict)}, items


@pytest.mark.rule("DATA-FLT-029")
def test_spam_filter_off_returns_more(data: DataApi) -> None:
    """listErc20Balances with filterSpamTokens=false returns the filtered balances and possibly more."""
    _, filtered, _ = erc20_addresses(data, True)
    exchange, unfiltered, _ = erc20_addresses(data, False)
    missing = filtered - unfiltered
    if missing and is_token(checks.next_token(exchange.json())):
        # The unfiltered list goes on past the page (it holds the spam tokens too): look further before judging.
        walk = data.walk("listErc20Balances", {"pageSize": checks.plain_page_size("listErc20Balances"),
                                               "filterSpamTokens": False})
        missing -= {str(i.get("address")).lower() for i in walk.items if isinstance(i, dict)}
        if missing and not walk.ended:
            pytest.skip(f"the unfiltered list did not end within {len(walk.walk.exchanges)} pages")
    check(not missing, "DATA-FLT-029", "filterSpamTokens=false drops balances that true returns",
          expected="every balance of filterSpamTokens=true", received=f"missing {sorted(missing)[:5]}",
          exchange=exchange)


@pytest.mark.rule("DATA-FLT-030")
def test_spam_tokens_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Which tokens filterSpamTokens=true removes, and their tokenReputation, is recorded."""
    _, filtered, _ = erc20_addresses(data, True)
    _, _, items = erc20_addresses(data, False)
    removed = [i for i in items if isinstance(i, dict) and str(i.get("address")).lower() not in filtered]
    observe("DATA-FLT-030", {"removed": len(removed),
                             "reputations": sorted({str(i.get("tokenReputation")) for i in removed})})
