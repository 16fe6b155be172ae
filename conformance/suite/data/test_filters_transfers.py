"""EVM filters: block ranges of transfers (startBlock inclusive, endBlock exclusive, tried at a transfer's block
and one block either side), the address and token each transfer route is asked about, and balance filters."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, data as checks, data_pages as pages
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


#: The block range boundaries, tried around a block `b` that holds a transfer: (rule, startBlock - b, endBlock - b,
#: whether that transfer is in the range). startBlock is inclusive: a range starting at b holds it, one starting a
#: block later does not. endBlock is exclusive: a range ending at b + 1 holds it, one ending at b does not.
BLOCK_BOUNDS = [
    ("DATA-FLT-022", 0, 2, True),
    ("DATA-FLT-022", 1, 3, False),
    ("DATA-FLT-023", -1, 1, True),
    ("DATA-FLT-023", -1, 0, False),
]


@pytest.mark.parametrize(("rule", "start", "end", "holds"), [
    pytest.param(*row, marks=pytest.mark.rule(row[0]), id=f"startBlock=b{row[1]:+d}-endBlock=b{row[2]:+d}")
    for row in BLOCK_BOUNDS])
@pytest.mark.parametrize("operation_id", TRANSFER_ROUTES)   # a boundary is tried at the boundary in every profile
def test_block_range_bounds(data: DataApi, operation_id: str, rule: str, start: int, end: int, holds: bool) -> None:
    """A block range that starts at a transfer's block, or ends one block after it, holds that transfer; one that
    starts a block later, or ends at its block, does not; and no range returns a transfer outside it."""
    transfer = blocks_seen(data, operation_id, rule)[0]
    b = block(transfer)
    assert b is not None
    low, high = max(0, b + start), max(0, b + end)
    exchange, items = transfers(data, operation_id, rule, {"startBlock": low, "endBlock": high})
    outside = [block(i) for i in items if block(i) is not None and not low <= (block(i) or 0) < high]
    held = checks.identity(operation_id, transfer) in keys(operation_id, items)
    check(not outside and held == holds, rule,
          f"startBlock={low} and endBlock={high} {'leave out' if holds else 'return'} the transfer at block {b}",
          expected=f"transfers of blocks {low} to {high - 1}, {'including' if holds else 'without'} the one at "
                   f"block {b} (startBlock inclusive, endBlock exclusive)",
          received=f"blocks {sorted(b for i in items if (b := block(i)) is not None)[:10]}", exchange=exchange)


@pytest.mark.parametrize(("rule", "parameter"), [
    pytest.param("DATA-FLT-024", "startBlock", marks=pytest.mark.rule("DATA-FLT-024"), id="startBlock-only"),
    pytest.param("DATA-FLT-025", "endBlock", marks=pytest.mark.rule("DATA-FLT-025"), id="endBlock-only")])
@pytest.mark.parametrize("operation_id", [variant(op, quick=op == TRANSFER_ROUTES[0], id=op) for op in TRANSFER_ROUTES])
def test_open_block_range(data: DataApi, operation_id: str, rule: str, parameter: str) -> None:
    """An open block range reaches the most recent block (startBlock only) or genesis (endBlock only)."""
    seen = blocks_seen(data, operation_id, rule)
    numbers = sorted(block(i) or 0 for i in seen)
    bound = numbers[0] if parameter == "startBlock" else numbers[-1]
    # the transfers away from the bound: the blocks at and next to it are the boundary rules' (DATA-FLT-022/023)
    wanted = [i for i in seen if ((block(i) or 0) > bound + 1 if parameter == "startBlock" else
                                  (block(i) or 0) < bound - 1)]
    if not wanted:
        pytest.skip(f"{operation_id} lists no transfer two blocks away from block {bound}")
    walk = data.walk(operation_id, {"pageSize": checks.plain_page_size(operation_id), parameter: bound})
    if not walk.walk.pages:
        checks.served(walk.walk.exchanges[0], rule, f"{operation_id} with {parameter}={bound}")
    missing = keys(operation_id, wanted) - keys(operation_id, walk.items)
    if missing and not walk.ended:
        pytest.skip(f"the {operation_id} range did not end within {len(walk.walk.exchanges)} pages")
    end = "the most recent block" if parameter == "startBlock" else "genesis"
    check(not missing, rule, f"{parameter}={bound} alone does not reach {end}",
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
    """A contract filter returns the balances of each named contract the unfiltered answer holds, and no other."""
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
    returned = {str(i.get("address", "")).lower() for i in found if isinstance(i, dict)}
    missing = [c for c in wanted if c.lower() not in returned]
    check(not missing, rule, f"{parameter} leaves out named contracts whose balances the route lists",
          expected=f"balances of each of {wanted}", received=f"none of {missing}", exchange=exchange)


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


def party(item: Any, side: str) -> str | None:
    info = item.get(side) if isinstance(item, dict) else None
    address = info.get("address") if isinstance(info, dict) else None
    return address.lower() if isinstance(address, str) else None


@pytest.mark.rule("DATA-FLT-044")
@pytest.mark.parametrize("operation_id", ["listErc721Transactions", "listErc1155Transactions"])
def test_transfers_of_the_address(data: DataApi, operation_id: str) -> None:
    """The address's ERC-721 and ERC-1155 transfers are each from or to the address, on every page."""
    address = data.address_for(operation_id).lower()
    walk = data.filtered(operation_id, {})
    pages.require_walk(walk, "DATA-FLT-044", operation_id)
    pages.assert_every_page(
        walk, "DATA-FLT-044", lambda t: address in (party(t, "from"), party(t, "to"))
        or (party(t, "from"), party(t, "to")) == (None, None),
        summary=f"{operation_id} returns transfers between other addresses",
        expected=f"transfers from or to {address}", shown=lambda t: (party(t, "from"), party(t, "to")))


@pytest.mark.rule("DATA-FLT-045")
def test_token_transfers_are_of_the_token(data: DataApi) -> None:
    """listTokenTransfers of an ERC-20 contract returns only transfers whose erc20Token is that contract."""
    contract = data.address_for("listTokenTransfers").lower()
    walk = data.filtered("listTokenTransfers", {})
    pages.require_walk(walk, "DATA-FLT-045", "listTokenTransfers")

    def token(item: dict) -> str | None:
        found = item.get("erc20Token")
        address = found.get("address") if isinstance(found, dict) else None
        return address.lower() if isinstance(address, str) else None
    pages.assert_every_page(walk, "DATA-FLT-045", lambda t: token(t) in (None, contract),
                            summary="listTokenTransfers returns transfers of other tokens",
                            expected=f"erc20Token.address {contract}", shown=token)
