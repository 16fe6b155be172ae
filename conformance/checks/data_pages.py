"""Pagination checks of the Data API over the shared bounded walk: page sizes, tokens, repeats and order."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from conformance import pagination
from conformance.checks import check, fail, held
from conformance.checks.data import identity, items_of, number, out_of_order, served, unavailable
from conformance.clients.http import Exchange


@dataclass
class DataWalk:
    """One walk of a Data API list route: the shared walk plus what the route's items are."""

    operation_id: str
    page_size: int | None
    walk: pagination.Walk

    def pages(self) -> list[tuple[Exchange, list[Any], Any]]:
        """(exchange, items, nextPageToken) of every served page, in order."""
        return [(exchange, items_of(self.operation_id, body), body.get("nextPageToken"))
                for exchange, body in zip(self.walk.exchanges, self.walk.pages)]

    @property
    def items(self) -> list[Any]:
        return [item for _, items, _ in self.pages() for item in items]

    @property
    def ended(self) -> bool:
        return self.walk.complete


def require_first_page(data_walk: DataWalk, rule_id: str) -> None:
    """The first page of a valid request is served; otherwise `rule_id` fails (or the target is unavailable)."""
    first = data_walk.walk.exchanges[0]
    if not data_walk.walk.pages:
        served(first, rule_id, f"the first {data_walk.operation_id} page")


def assert_pages_within_size(data_walk: DataWalk, page_size: int) -> None:
    """No page holds more items than pageSize (DATA-PAG-001)."""
    for exchange, items, _ in data_walk.pages():
        check(len(items) <= page_size, "DATA-PAG-001", f"a {data_walk.operation_id} page holds too many items",
              expected=f"at most pageSize={page_size} items", received=f"{len(items)} items", exchange=exchange)


def assert_token_when_more(small: Exchange, small_body: Any, larger_count: int, operation_id: str) -> None:
    """A page carries nextPageToken when a page fetched before it held more items than it does (DATA-PAG-003).

    The larger page is fetched first: a list only grows, so more data still exists when the smaller page is asked.
    """
    count = len(items_of(operation_id, small_body))
    if count and larger_count > count:
        token = small_body.get("nextPageToken") if isinstance(small_body, dict) else None
        check(isinstance(token, str) and token != "", "DATA-PAG-003",
              f"a {operation_id} page has no nextPageToken although more data exists",
              expected=f"nextPageToken (a page asked for earlier held {larger_count} items, this one {count})",
              received=f"nextPageToken = {token!r}", exchange=small)


def assert_tokens_work(data_walk: DataWalk) -> None:
    """Each nextPageToken of the walk returned the following page (DATA-PAG-005).

    An empty or null token ends the list (the walk stops there, as on a page without one): the document never
    calls it a token to follow, so it is never a page that "cannot be followed".
    """
    walk = data_walk.walk
    if walk.stopped == pagination.NOT_SERVED and walk.pages:
        unavailable(walk.last)
        fail("DATA-PAG-005", f"a {data_walk.operation_id} nextPageToken does not return the next page",
             expected="status 200 with the following page",
             received=f"status {walk.last.status}: {walk.last.text(300)}", exchange=walk.last)
    if walk.stopped in (pagination.NOT_AN_OBJECT, pagination.BAD_TOKEN):
        fail("DATA-PAG-005", f"a {data_walk.operation_id} page cannot be followed ({walk.stopped})",
             expected="a string nextPageToken that returns a JSON page", received=walk.last.text(300),
             exchange=walk.last)
    if len(walk.pages) > 1:   # a token was followed and returned a page
        held("DATA-PAG-005", walk.last)


def assert_last_page_has_no_token(data_walk: DataWalk) -> None:
    """The page that ends the list carries no token: a token whose page is empty and final was one too many
    (DATA-PAG-004).

    "List responses carry nextPageToken (string) when more data exists": a token that leads to an empty last
    page was carried when no more data existed. An empty or null nextPageToken on the last page names no page:
    the list ends there, as the walk reads it, and this rule holds.
    """
    pages = data_walk.pages()
    for (exchange, _, token), (_, after_items, after_token) in zip(pages, pages[1:]):
        if pagination.is_token(token) and not after_items and not pagination.is_token(after_token):
            fail("DATA-PAG-004", f"the last {data_walk.operation_id} page carries a nextPageToken",
                 expected="no nextPageToken on the page that ends the list",
                 received=f"nextPageToken {str(token)[:60]!r}, whose page is empty", exchange=exchange)
    if data_walk.ended:
        held("DATA-PAG-004", data_walk.walk.last)


def watch(data_walk: DataWalk) -> DataWalk:
    """What holds of every walk of a list route, whichever test walks it and for whichever of its rules: no page
    holds more items than the pageSize sent (DATA-PAG-001), and no item or token comes twice (DATA-PAG-006). A walk
    made to test a filter or a bound is still a walk; a route quick's pagination tests do not reach is still walked
    by others. Each is independent of the test's own checks: a deviation is recorded and the test goes on."""
    from conformance.checks import independently

    size = number(data_walk.page_size)
    if size is not None:
        for number_, (exchange, items, _) in enumerate(data_walk.pages(), 1):
            if len(items) > size:
                with independently():
                    fail("DATA-PAG-001", f"a {data_walk.operation_id} page holds more items than pageSize",
                         expected=f"at most {size} items", received=f"{len(items)} items on page {number_}",
                         exchange=exchange)
                break
    if len(data_walk.walk.pages) > 1:
        with independently():
            _no_repeats(data_walk)
    return data_walk


def _no_repeats(data_walk: DataWalk) -> None:
    seen: dict[str, int] = {}
    for number_, (exchange, items, _) in enumerate(data_walk.pages(), 1):
        for item in items:
            key = identity(data_walk.operation_id, item)
            if key in seen and seen[key] != number_:
                fail("DATA-PAG-006", f"a {data_walk.operation_id} item appears twice across pages",
                     expected="each item once", received=f"{key} on page {seen[key]} and on page {number_}",
                     exchange=exchange)
            seen.setdefault(key, number_)
    if data_walk.walk.stopped == pagination.REPEATED_TOKEN:
        fail("DATA-PAG-006", f"a {data_walk.operation_id} nextPageToken repeats an earlier one",
             expected="each page once", received="a token already followed", exchange=data_walk.walk.last)


def assert_no_repeats(data_walk: DataWalk) -> None:
    """No item appears twice across the walk's pages (DATA-PAG-006)."""
    seen: dict[str, int] = {}
    for number_, (exchange, items, _) in enumerate(data_walk.pages(), 1):
        for item in items:
            key = identity(data_walk.operation_id, item)
            if key in seen:
                fail("DATA-PAG-006", f"a {data_walk.operation_id} item appears twice across pages",
                     expected="each item once", received=f"{key} on page {seen[key]} and on page {number_}",
                     exchange=exchange)
            seen[key] = number_
    if data_walk.walk.stopped == pagination.REPEATED_TOKEN:
        fail("DATA-PAG-006", f"a {data_walk.operation_id} nextPageToken repeats an earlier one",
             expected="each page once", received="a token already followed", exchange=data_walk.walk.last)
    if len(data_walk.walk.pages) > 1:   # items of more than one page were compared
        held("DATA-PAG-006", data_walk.walk.last)


def _direction(descending: bool) -> str:
    return "descending" if descending else "ascending"


def assert_sorted_within_pages(data_walk: DataWalk, rule_id: str, key: Callable[[Any], Any], *,
                               descending: bool, what: str) -> int:
    """Items of each page are in (non-strict) `what` order in the requested direction; returns keys compared."""
    compared = 0
    pairs = 0
    for exchange, items, _ in data_walk.pages():
        keys = [number(key(item)) if isinstance(item, dict) else None for item in items]
        compared += sum(k is not None for k in keys)
        pairs += sum(a is not None and b is not None for a, b in zip(keys, keys[1:]))
        index = out_of_order(keys, descending=descending)
        if index is not None:
            fail(rule_id, f"{data_walk.operation_id} items are not in {_direction(descending)} {what} order",
                 expected=f"{what} {_direction(descending)}",
                 received=f"item {index - 1} has {keys[index - 1]}, item {index} has {keys[index]}",
                 exchange=exchange)
    if pairs:
        held(rule_id, data_walk.walk.last)
    return compared


def assert_sorted_across_pages(data_walk: DataWalk, key: Callable[[Any], Any], *, descending: bool,
                               what: str, rule_id: str = "DATA-PAG-007") -> None:
    """The first item of a page keeps the order after the last item of the page before (DATA-PAG-007, or the rule
    of the sortBy whose order it is)."""
    pages = data_walk.pages()
    compared = False
    for (_, before, _), (exchange, after, _) in zip(pages, pages[1:]):
        if not before or not after or not isinstance(before[-1], dict) or not isinstance(after[0], dict):
            continue
        keys = [number(key(before[-1])), number(key(after[0]))]
        if None in keys:
            continue
        compared = True
        if out_of_order(keys, descending=descending) is not None:
            fail(rule_id, f"{data_walk.operation_id} order breaks at a page boundary",
                 expected=f"{what} {_direction(descending)} across pages",
                 received=f"the last item of a page has {keys[0]}, the first of the next page has {keys[1]}",
                 exchange=exchange)
    if compared:
        held(rule_id, data_walk.walk.last)


def assert_pages_follow(data_walk: DataWalk, one_page: list[Any]) -> None:
    """Each page starts right after the previous page's last item, as one larger page fetched before the walk
    orders them (DATA-PAG-005). Items missing from the larger page (new at the head of a live list) are passed by.
    """
    order = {identity(data_walk.operation_id, item): index for index, item in enumerate(one_page)}
    pages = data_walk.pages()
    for (_, before, _), (exchange, after, _) in zip(pages, pages[1:]):
        if not before or not after:
            continue
        last, first = (order.get(identity(data_walk.operation_id, x)) for x in (before[-1], after[0]))
        if last is None or first is None or last + 1 >= len(one_page):
            continue
        check(first == last + 1, "DATA-PAG-005", f"a {data_walk.operation_id} nextPageToken does not return the "
              f"following page", expected=f"the page to start with item {last + 1} of the list",
              received=f"it starts with item {first}", exchange=exchange)


def require_walk(data_walk: DataWalk, rule_id: str, what: str) -> None:
    """The first page of a walk is served (else `rule_id` fails), and a later page that is not served ends the
    walk without a verdict here: whether a token returns the next page is DATA-PAG-005's question."""
    require_first_page(data_walk, rule_id)
    unavailable(data_walk.walk.last)


def assert_every_page(data_walk: DataWalk, rule_id: str, holds: Callable[[dict[str, Any]], bool], *,
                      summary: str, expected: str, shown: Callable[[dict[str, Any]], Any]) -> int:
    """Every item of every page the walk read satisfies `holds` (items that are not objects are the shape rules');
    returns how many items were checked. A filter that holds on the first page and not on the next is this rule's
    deviation: the page is named in the report."""
    checked = 0
    for number_, (exchange, items, _) in enumerate(data_walk.pages(), 1):
        objects = [item for item in items if isinstance(item, dict)]
        wrong = [shown(item) for item in objects if not holds(item)]
        where = f" on page {number_} of a walk" if number_ > 1 else ""
        check(not wrong, rule_id, f"{summary}{where}", expected=expected, received=f"{wrong[:5]}",
              exchange=exchange)
        checked += len(objects)
    return checked
