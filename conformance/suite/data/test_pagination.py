"""Pagination on every list route: page sizes, nextPageToken, no repeats, and the documented order."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks, data_pages as pages, independently
from conformance.checks.data_pages import DataWalk
from conformance.pagination import is_token
from conformance.suite.data.conftest import DataApi, variant

LIST_ROUTES = checks.list_operations()
SMALL_PAGE = 2
#: The list routes quick walks: the largest primary network list, the validators, and an EVM balance list.
QUICK_ROUTES = ("listBlockchains", "listValidators", "listErc1155Balances")
#: The list routes quick walks to their end: lists short enough to end within one page of the maximum size.
QUICK_ENDING = ("listErc1155Balances",)
#: Routes whose order the documents state: the query that selects the order and the key items are ordered by.
ORDERED = {
    "listUtxos": ({"sortBy": "timestamp"}, "blockTimestamp"),
    "listTransactions": ({}, "blockTimestamp"),
    "listBlockchains": ({}, "createBlockTimestamp"),
    "listValidators": ({"sortBy": "timeRemaining", "validationStatus": "active"}, "endTimestamp"),
    "listVerticesByHeight": ({}, "vertexTimestamp"),
}
TIMESTAMP_ORDER = ("listTransactions", "listBlockchains", "listVerticesByHeight")   # DATA-PAG-008 and 009
#: The ordered walks quick sends (in both orders): they are also the walks of the sortBy and sortOrder tests.
QUICK_ORDERED = ("listBlockchains", "listValidators", "listTransactions", "listVerticesByHeight")


def routes(rule: str, all_routes: Any, quick: Any) -> list[Any]:
    """Parameters of a rule shared by routes: every route in exhaustive profiles, `quick` ones in quick."""
    return [variant(op, quick=op in quick, marks=pytest.mark.rule(rule), id=op) for op in all_routes]


class Walks:
    """Walks shared by the tests of this module, each sent once."""

    def __init__(self, data: DataApi, once: Callable[..., Any]) -> None:
        self.data = data
        # The run's cache (the `once` fixture): tests running at once share a walk, sent once.
        self.once = once

    def get(self, operation_id: str, params: dict[str, Any]) -> DataWalk:
        key = (operation_id, tuple(sorted(params.items())))
        return self.once(lambda: self.data.walk(operation_id, params), self.data.rest.base_url, key)

    def small_query(self, operation_id: str) -> dict[str, Any]:
        """The query of the small walk: SMALL_PAGE items a page, in the descending documented order where there is
        one (so the walk is also the order tests' descending walk)."""
        query = {**ORDERED[operation_id][0], "sortOrder": "desc"} if operation_id in ORDERED else {}
        return {**query, "pageSize": SMALL_PAGE}

    def small(self, operation_id: str) -> DataWalk:
        """A walk at SMALL_PAGE items a page, after one page as large as the whole walk (see `one_page`)."""
        self.one_page(operation_id)
        return self.get(operation_id, self.small_query(operation_id))

    def one_page(self, operation_id: str) -> Any:
        """The exchange of one page holding a page more than the small walk may fetch (so that a token that skips
        a page is caught), fetched before that walk: a list only grows, so what it holds still exists then."""
        query = {**self.small_query(operation_id), "pageSize": SMALL_PAGE * (self.data.budget + 1)}
        return self.once(lambda: self.data.call(operation_id, query), self.data.rest.base_url, operation_id)

    def ordered(self, operation_id: str, order: str, extra: dict[str, Any] | None = None) -> DataWalk:
        query, _ = ORDERED.get(operation_id, ({}, ""))
        return self.get(operation_id, {**query, **(extra or {}), "pageSize": SMALL_PAGE, "sortOrder": order})

    def to_the_end(self, operation_id: str) -> DataWalk:
        """A walk at a page size inside every bound (the bound is not this walk's subject); listTransactions is
        narrowed to recent items so it ends."""
        params: dict[str, Any] = {"pageSize": checks.plain_page_size(operation_id)}
        if operation_id == "listTransactions":
            params.update(self._recent_window())
        return self.get(operation_id, params)

    def _recent_window(self) -> dict[str, Any]:
        address = self.data.need("p_chain_address")
        exchange = self.data.call("listTransactions", {"addresses": address, "pageSize": 10, "sortOrder": "desc"})
        items = checks.items_of("listTransactions", checks.served(exchange, "DATA-PAG-004", "listTransactions"))
        stamps = [stamp for i in items if isinstance(i, dict)
                  and isinstance(stamp := i.get("blockTimestamp"), int)]
        return {"addresses": address, **({"startTimestamp": min(stamps)} if stamps else {})}


@pytest.fixture(scope="module")
def walks(data: DataApi, once: Any) -> Walks:
    return Walks(data, once)


@pytest.mark.parametrize("operation_id", routes("DATA-PAG-001", LIST_ROUTES, QUICK_ROUTES))
def test_page_holds_at_most_page_size(walks: Walks, operation_id: str) -> None:
    """No page of the route holds more items than pageSize."""
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-001")
    pages.assert_pages_within_size(walk, SMALL_PAGE)


@pytest.mark.parametrize("operation_id", routes("DATA-PAG-002", LIST_ROUTES, QUICK_ROUTES))
def test_full_pages_are_recorded(walks: Walks, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """Whether pages followed by another hold exactly pageSize items is recorded."""
    walk = walks.small(operation_id)
    sizes = [len(items) for _, items, token in walk.pages() if is_token(token)]
    observe("DATA-PAG-002", {"route": operation_id, "pageSize": SMALL_PAGE, "sizes_before_a_next_page": sizes})


@pytest.mark.parametrize("operation_id", routes("DATA-PAG-003", LIST_ROUTES, QUICK_ROUTES))
def test_page_carries_token_when_more_data_exists(walks: Walks, operation_id: str) -> None:
    """A page carries nextPageToken when a larger page asked for before it held more items."""
    larger = walks.one_page(operation_id)
    count = len(checks.items_of(operation_id, checks.served(larger, "DATA-PAG-003", operation_id)))
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-003")
    exchange, _, _ = walk.pages()[0]
    pages.assert_token_when_more(exchange, walk.walk.pages[0], count, operation_id)


@pytest.mark.rule("DATA-PAG-003")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_one_item_page_carries_token_when_two_exist(data: DataApi, operation_id: str) -> None:
    """A page of pageSize=1 carries nextPageToken when a page of pageSize=2 holds two items (the pages the page
    size bound test asks for, on every route: no request of its own)."""
    larger = data.once(operation_id, {"pageSize": 2})   # asked first: a list only grows
    small = data.once(operation_id, {"pageSize": 1})
    count = len(checks.items_of(operation_id, checks.served(larger, "DATA-PAG-003", f"{operation_id} pageSize=2")))
    body = checks.served(small, "DATA-PAG-003", f"{operation_id} pageSize=1")
    if count < 2:
        pytest.skip(f"{operation_id} lists fewer than two items")
    pages.assert_token_when_more(small, body, count, operation_id)


@pytest.mark.parametrize("operation_id", routes("DATA-PAG-004", LIST_ROUTES, QUICK_ENDING))
def test_last_page_carries_no_token(walks: Walks, operation_id: str) -> None:
    """The page that ends the list carries no nextPageToken."""
    walk = walks.to_the_end(operation_id)
    pages.require_first_page(walk, "DATA-PAG-004")
    pages.assert_tokens_work(walk)
    pages.assert_last_page_has_no_token(walk)
    if not walk.ended:
        pytest.skip(f"the {operation_id} list did not end within {len(walk.walk.exchanges)} pages")


@pytest.mark.parametrize("operation_id", routes("DATA-PAG-005", LIST_ROUTES, QUICK_ROUTES))
def test_token_returns_the_next_page(walks: Walks, operation_id: str) -> None:
    """Each nextPageToken of the route returns the following page."""
    one_page = checks.items_of(operation_id, checks.served(walks.one_page(operation_id), "DATA-PAG-005",
                                                            operation_id))
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-005")
    pages.assert_tokens_work(walk)
    pages.assert_pages_follow(walk, one_page)


@pytest.mark.parametrize("operation_id", routes("DATA-PAG-006", LIST_ROUTES, QUICK_ROUTES))
def test_no_item_appears_twice(walks: Walks, operation_id: str) -> None:
    """No item of the route appears twice across the pages of one walk."""
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-006")
    pages.assert_no_repeats(walk)


@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("operation_id", routes("DATA-PAG-007", ORDERED, QUICK_ORDERED))
def test_order_holds_across_pages(walks: Walks, operation_id: str, order: str) -> None:
    """Items keep the requested order across page boundaries."""
    walk = walks.ordered(operation_id, order)
    pages.require_first_page(walk, "DATA-PAG-007")
    key = ORDERED[operation_id][1]
    pages.assert_sorted_across_pages(walk, lambda item: item.get(key), descending=order == "desc", what=key)


@pytest.mark.parametrize(("rule", "order"), [
    pytest.param("DATA-PAG-008", "asc", marks=pytest.mark.rule("DATA-PAG-008"), id="asc"),
    pytest.param("DATA-PAG-009", "desc", marks=pytest.mark.rule("DATA-PAG-009"), id="desc")])
@pytest.mark.parametrize("operation_id", [variant(op, quick=op in QUICK_ORDERED, id=op) for op in TIMESTAMP_ORDER])
def test_sort_order_orders_by_timestamp(walks: Walks, operation_id: str, rule: str, order: str) -> None:
    """sortOrder orders the route's items by timestamp in that direction."""
    walk = walks.ordered(operation_id, order)
    pages.require_first_page(walk, rule)
    key = ORDERED[operation_id][1]
    pages.assert_sorted_within_pages(walk, rule, lambda item: item.get(key), descending=order == "desc", what=key)


#: (rule, route, query, key, how a key is read).
SORT_BY = [
    ("DATA-PAG-010", "listUtxos", {"sortBy": "timestamp"}, "blockTimestamp"),
    ("DATA-PAG-011", "listUtxos", {"sortBy": "amount"}, "amount"),
    ("DATA-PAG-012", "listValidators", {"sortBy": "timeRemaining", "validationStatus": "active"}, "endTimestamp"),
]


def _shares_an_ordered_walk(operation_id: str, query: dict[str, Any]) -> bool:
    """Whether the sortBy walk is one of the ordered walks quick sends anyway."""
    return operation_id in QUICK_ORDERED and ORDERED[operation_id][0] == query


@pytest.mark.parametrize(("rule", "operation_id", "query", "key", "order"), [
    variant(*case, order, quick=order == "desc" or _shares_an_ordered_walk(case[1], case[2]),
            marks=pytest.mark.rule(case[0]), id=f"{case[0]}-{order}")
    for case in SORT_BY for order in ("asc", "desc")])
def test_sort_by_orders_items(walks: Walks, rule: str, operation_id: str, query: dict[str, Any], key: str,
                              order: str) -> None:
    """sortBy orders the items by its key in the requested sortOrder."""
    walk = walks.get(operation_id, {**query, "pageSize": SMALL_PAGE, "sortOrder": order})
    pages.require_first_page(walk, rule)
    with independently():   # a page out of order leaves the page boundaries to be judged
        pages.assert_sorted_within_pages(walk, rule, lambda item: item.get(key), descending=order == "desc",
                                         what=key)
    # The order sortBy selects holds across pages too: a boundary out of that order is this rule's deviation.
    pages.assert_sorted_across_pages(walk, lambda item: item.get(key), descending=order == "desc", what=key,
                                     rule_id=rule)


@pytest.mark.rule("DATA-PAG-013")
@pytest.mark.parametrize("order", [variant("asc", quick=False, id="asc"), variant("desc", quick=True, id="desc")])
def test_sort_by_delegation_fee_on_mainnet(data: DataApi, walks: Walks, order: str) -> None:
    """sortBy=delegationFee on mainnet with the primary network subnetId orders validators by delegationFee."""
    subnet = data.need("primary_subnet_id")
    exchange = data.call("listValidators", {"sortBy": "delegationFee", "subnetId": subnet, "sortOrder": order,
                                            "pageSize": 20}, network="mainnet")
    walk = DataWalk("listValidators", 20, _single(exchange))
    pages.require_first_page(walk, "DATA-PAG-013")
    pages.assert_sorted_within_pages(walk, "DATA-PAG-013", lambda item: item.get("delegationFee"),
                                     descending=order == "desc", what="delegationFee")


def _single(exchange: Any) -> Any:
    from conformance import pagination
    walk = pagination.Walk(exchanges=[exchange])
    if exchange.status == 200 and exchange.is_json() and isinstance(exchange.json(), dict):
        walk.pages.append(exchange.json())
    return walk


@pytest.mark.rule("DATA-PAG-015")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_delegation_fee_sort_elsewhere_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What sortBy=delegationFee returns without the primary network subnetId is recorded."""
    exchange = data.call("listValidators", {"sortBy": "delegationFee", "pageSize": 5})
    observe("DATA-PAG-015", {"network": data.network, "subnetId": None, "status": exchange.status})


@pytest.mark.rule("DATA-PAG-016")
@pytest.mark.parametrize("operation_id", ["listValidators", "getValidatorsByNode"])
def test_validator_order_is_recorded(data: DataApi, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """The timestamp that orders validators without sortBy is recorded."""
    exchange = data.first(operation_id)
    items = [i for i in checks.items_of(operation_id, exchange.json() if exchange.status == 200 else {})
             if isinstance(i, dict)]
    seen = {}
    for key in ("startTimestamp", "endTimestamp"):
        keys = [checks.number(i.get(key)) for i in items]
        seen[key] = ("asc" if checks.out_of_order(keys, descending=False) is None else
                     "desc" if checks.out_of_order(keys, descending=True) is None else "unordered")
    observe("DATA-PAG-016", {"route": operation_id, "order": seen})


@pytest.mark.rule("DATA-PAG-018")
@pytest.mark.exhaustive   # an observation that needs requests of its own
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_tampered_token_is_recorded(data: DataApi, walks: Walks, observe: Callable[[str, Any], None],
                                    operation_id: str) -> None:
    """What the route answers for a tampered nextPageToken is recorded."""
    tokens = [token for _, _, token in walks.small(operation_id).pages() if isinstance(token, str) and token]
    if not tokens:
        pytest.skip(f"no {operation_id} page carried a token")
    tampered = tokens[0][:-1] + ("A" if tokens[0][-1] != "A" else "B")
    exchange = data.call(operation_id, {"pageSize": SMALL_PAGE, "pageToken": tampered})
    observe("DATA-PAG-018", {"route": operation_id, "status": exchange.status})


@pytest.mark.rule("DATA-PAG-019")
def test_short_transaction_pages_are_recorded(data: DataApi, walks: Walks,
                                              observe: Callable[[str, Any], None]) -> None:
    """listTransactions pages holding fewer items than pageSize before a next page are recorded (quick: the
    first page at the default size)."""
    if data.exhaustive:
        size, seen = SMALL_PAGE, walks.small("listTransactions").pages()
    else:
        exchange = data.first("listTransactions")
        body = exchange.json() if exchange.status == 200 else {}
        size, seen = checks.page_size_limits("listTransactions")[2], [(exchange, checks.items_of(
            "listTransactions", body), checks.next_token(body))]
    observe("DATA-PAG-019", {"pageSize": size, "short_pages": sum(1 for _, items, token in seen
                                                                  if is_token(token) and len(items) < size)})
