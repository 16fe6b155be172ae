"""Pagination on every list route: page sizes, nextPageToken, no repeats, and the documented order."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks import data as checks, data_pages as pages
from conformance.checks.data_pages import DataWalk
from conformance.suite.data.conftest import DataApi

LIST_ROUTES = checks.list_operations()
SMALL_PAGE = 2
#: Routes whose order the documents state: the query that selects the order and the key items are ordered by.
ORDERED = {
    "listUtxos": ({"sortBy": "timestamp"}, "blockTimestamp"),
    "listTransactions": ({}, "blockTimestamp"),
    "listBlockchains": ({}, "createBlockTimestamp"),
    "listValidators": ({"sortBy": "timeRemaining", "validationStatus": "active"}, "endTimestamp"),
    "listVerticesByHeight": ({}, "vertexTimestamp"),
}
TIMESTAMP_ORDER = ("listTransactions", "listBlockchains", "listVerticesByHeight")   # DATA-PAG-008 and 009


class Walks:
    """Walks shared by the tests of this module, each sent once."""

    def __init__(self, data: DataApi) -> None:
        self.data = data
        self.cache: dict[tuple[Any, ...], DataWalk] = {}

    def get(self, operation_id: str, params: dict[str, Any]) -> DataWalk:
        key = (operation_id, tuple(sorted(params.items())))
        if key not in self.cache:
            self.cache[key] = self.data.walk(operation_id, params)
        return self.cache[key]

    def small(self, operation_id: str) -> DataWalk:
        return self.get(operation_id, {"pageSize": SMALL_PAGE})

    def ordered(self, operation_id: str, order: str, extra: dict[str, Any] | None = None) -> DataWalk:
        query, _ = ORDERED.get(operation_id, ({}, ""))
        return self.get(operation_id, {**query, **(extra or {}), "pageSize": SMALL_PAGE, "sortOrder": order})

    def to_the_end(self, operation_id: str) -> DataWalk:
        """A walk at the route's maximum page size; listTransactions is narrowed to recent items so it ends."""
        params: dict[str, Any] = {"pageSize": checks.page_size_limits(operation_id)[1]}
        if operation_id == "listTransactions":
            params.update(self._recent_window())
        return self.get(operation_id, params)

    def _recent_window(self) -> dict[str, Any]:
        address = self.data.need("p_chain_address")
        exchange = self.data.call("listTransactions", {"addresses": address, "pageSize": 10, "sortOrder": "desc"})
        items = checks.items_of("listTransactions", checks.served(exchange, "DATA-PAG-004", "listTransactions"))
        stamps = [i.get("blockTimestamp") for i in items if isinstance(i, dict)
                  and isinstance(i.get("blockTimestamp"), int)]
        return {"addresses": address, **({"startTimestamp": min(stamps)} if stamps else {})}


@pytest.fixture(scope="module")
def walks(data: DataApi) -> Walks:
    return Walks(data)


@pytest.mark.rule("DATA-PAG-001")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_page_holds_at_most_page_size(walks: Walks, operation_id: str) -> None:
    """No page of the route holds more items than pageSize."""
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-001")
    pages.assert_pages_within_size(walk, SMALL_PAGE)


@pytest.mark.rule("DATA-PAG-002")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_full_pages_are_recorded(walks: Walks, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """Whether pages followed by another hold exactly pageSize items is recorded."""
    walk = walks.small(operation_id)
    sizes = [len(items) for _, items, token in walk.pages() if token is not None]
    observe("DATA-PAG-002", {"route": operation_id, "pageSize": SMALL_PAGE, "sizes_before_a_next_page": sizes})


@pytest.mark.rule("DATA-PAG-003")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_page_carries_token_when_more_data_exists(data: DataApi, walks: Walks, operation_id: str) -> None:
    """A one-item page carries nextPageToken when the list holds more items."""
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-003")
    larger = len(walk.pages()[0][1])
    if larger < 2:
        pytest.skip(f"the {operation_id} list holds fewer than two items")
    exchange = data.call(operation_id, {"pageSize": 1})
    pages.assert_token_when_more(exchange, checks.served(exchange, "DATA-PAG-003", operation_id), larger,
                                 operation_id)


@pytest.mark.rule("DATA-PAG-004")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_last_page_carries_no_token(walks: Walks, operation_id: str) -> None:
    """The page that ends the list carries no nextPageToken."""
    walk = walks.to_the_end(operation_id)
    pages.require_first_page(walk, "DATA-PAG-004")
    pages.assert_tokens_work(walk)
    pages.assert_last_page_has_no_token(walk)
    if not walk.ended:
        pytest.skip(f"the {operation_id} list did not end within {len(walk.walk.exchanges)} pages")


@pytest.mark.rule("DATA-PAG-005")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_token_returns_the_next_page(data: DataApi, walks: Walks, operation_id: str) -> None:
    """Each nextPageToken of the route returns the following page."""
    larger = data.call(operation_id, {"pageSize": SMALL_PAGE * data.profile.pages})   # asked before the walk
    one_page = checks.items_of(operation_id, checks.served(larger, "DATA-PAG-005", operation_id))
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-005")
    pages.assert_tokens_work(walk)
    pages.assert_pages_follow(walk, one_page)


@pytest.mark.rule("DATA-PAG-006")
@pytest.mark.parametrize("operation_id", LIST_ROUTES)
def test_no_item_appears_twice(walks: Walks, operation_id: str) -> None:
    """No item of the route appears twice across the pages of one walk."""
    walk = walks.small(operation_id)
    pages.require_first_page(walk, "DATA-PAG-006")
    pages.assert_no_repeats(walk)


@pytest.mark.rule("DATA-PAG-007")
@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("operation_id", list(ORDERED))
def test_order_holds_across_pages(walks: Walks, operation_id: str, order: str) -> None:
    """Items keep the requested order across page boundaries."""
    walk = walks.ordered(operation_id, order)
    pages.require_first_page(walk, "DATA-PAG-007")
    key = ORDERED[operation_id][1]
    pages.assert_sorted_across_pages(walk, lambda item: item.get(key), descending=order == "desc", what=key)


@pytest.mark.parametrize(("rule", "order"), [pytest.param("DATA-PAG-008", "asc", marks=pytest.mark.rule("DATA-PAG-008"),
                                                          id="asc"),
                                             pytest.param("DATA-PAG-009", "desc", marks=pytest.mark.rule("DATA-PAG-009"),
                                                          id="desc")])
@pytest.mark.parametrize("operation_id", TIMESTAMP_ORDER)
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


@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize(("rule", "operation_id", "query", "key"), [
    pytest.param(*case, marks=pytest.mark.rule(case[0]), id=case[0]) for case in SORT_BY])
def test_sort_by_orders_items(walks: Walks, rule: str, operation_id: str, query: dict[str, Any], key: str,
                              order: str) -> None:
    """sortBy orders the items by its key in the requested sortOrder."""
    walk = walks.get(operation_id, {**query, "pageSize": SMALL_PAGE, "sortOrder": order})
    pages.require_first_page(walk, rule)
    pages.assert_sorted_within_pages(walk, rule, lambda item: item.get(key), descending=order == "desc", what=key)
    pages.assert_sorted_across_pages(walk, lambda item: item.get(key), descending=order == "desc", what=key)


@pytest.mark.rule("DATA-PAG-013")
@pytest.mark.parametrize("order", ["asc", "desc"])
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
def test_delegation_fee_sort_elsewhere_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What sortBy=delegationFee returns without the primary network subnetId is recorded."""
    exchange = data.call("listValidators", {"sortBy": "delegationFee", "pageSize": 5})
    observe("DATA-PAG-015", {"network": data.network, "subnetId": None, "status": exchange.status})


@pytest.mark.rule("DATA-PAG-016")
@pytest.mark.parametrize("operation_id", ["listValidators", "getValidatorsByNode"])
def test_validator_order_is_recorded(walks: Walks, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """The timestamp that orders validators without sortBy is recorded."""
    walk = walks.small(operation_id)
    items = [i for i in walk.items if isinstance(i, dict)]
    seen = {}
    for key in ("startTimestamp", "endTimestamp"):
        keys = [checks.number(i.get(key)) for i in items]
        seen[key] = ("asc" if checks.out_of_order(keys, descending=False) is None else
                     "desc" if checks.out_of_order(keys, descending=True) is None else "unordered")
    observe("DATA-PAG-016", {"route": operation_id, "order": seen})


@pytest.mark.rule("DATA-PAG-017")
def test_block_order_is_recorded(walks: Walks, observe: Callable[[str, Any], None]) -> None:
    """The order of the blocks listBlocksByNode returns is recorded."""
    stamps = [checks.number(i.get("blockTimestamp")) for i in walks.small("listBlocksByNode").items
              if isinstance(i, dict)]
    observe("DATA-PAG-017", {"blockTimestamps": stamps[:10]})


@pytest.mark.rule("DATA-PAG-018")
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
def test_short_transaction_pages_are_recorded(walks: Walks, observe: Callable[[str, Any], None]) -> None:
    """listTransactions pages holding fewer items than pageSize before a next page are recorded."""
    walk = walks.small("listTransactions")
    observe("DATA-PAG-019", {"short_pages": sum(1 for _, items, token in walk.pages()
                                                if token is not None and len(items) < SMALL_PAGE)})
