"""Pagination of the data API: cursor tokens bound to the normalised query, and the switches faults turn on.

Tokens are bound to the query after normalisation (network fuji = testnet, alias = chain ID, defaults applied),
so equivalent requests answer identically, nextPageToken included.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar
from collections.abc import Callable, Iterator, Sequence

from conformance.reference.calls import RestCall
from conformance.reference.rest import PageTokens, _untuple

T = TypeVar("T")
#: Deviations a fault switches on for the request it wraps (see faults/data.py); empty on a clean server.
DEVIATIONS: ContextVar[frozenset[str]] = ContextVar("data_api_deviations", default=frozenset())


@contextmanager
def deviating(name: str) -> Iterator[None]:
    """Turns one named deviation on for the requests handled inside the block (this thread only)."""
    token = DEVIATIONS.set(DEVIATIONS.get() | {name})
    try:
        yield
    finally:
        DEVIATIONS.reset(token)


def deviates(name: str) -> bool:
    return name in DEVIATIONS.get()


def on_first_page(call: RestCall, name: str, value: T) -> T | None:
    """The value of filter `name` as the items are filtered: None on a page asked by token under the deviation
    "first-page-only:<name>" (the filter applied to the first page only; the token still names the filtered
    query, so the walk goes on)."""
    return None if call.first("pageToken") and deviates(f"first-page-only:{name}") else value


class Pager:
    def __init__(self, seed: int) -> None:
        self.tokens = PageTokens(f"data-api-{seed}".encode())

    @staticmethod
    def _bound(call: RestCall, scope: dict[str, Any]) -> RestCall:
        return RestCall(api="data", method=call.method, route=call.route, path="",
                        path_params={}, query={"scope": [json.dumps(scope, sort_keys=True, default=str)],
                                               **({"pageToken": call.query["pageToken"][:1]}
                                                  if call.first("pageToken") else {})},
                        headers={}, body=None)

    def pinned(self, call: RestCall, scope: dict[str, Any]) -> Any:
        """What the request's pageToken pinned when its walk began; None without a token.

        A balance list read at the latest block pins that block, so every page of one walk reads the same
        block while the chain advances, and the token stays valid.
        """
        cursor = self.tokens.cursor(self._bound(call, scope))
        return cursor.get("pin") if isinstance(cursor, dict) else None

    def page(self, call: RestCall, scope: dict[str, Any], items: Sequence[Any], size: int, *,
             key: Callable[[Any], Any], descending: bool, pin: Any = None) -> tuple[list[Any], str | None]:
        """One page of `items` (sorted by `key`) after the request's token; the token of the next page or None."""
        bound = self._bound(call, scope)
        if deviates("unordered-walk"):
            return self._offset_page(bound, items, size, key=key, descending=descending)
        cursor = self.tokens.cursor(bound)
        if isinstance(cursor, dict):
            cursor = cursor.get("after")
        start = 0
        if cursor is not None:
            cursor = _untuple(cursor)
            start = next((i for i, item in enumerate(items)
                          if (key(item) < cursor if descending else key(item) > cursor)), len(items))
            if deviates("overlapping-pages"):
                start = max(0, start - 1)
        page = list(items[start:start + size])
        more = start + len(page) < len(items)
        if page and (more or deviates("token-on-last-page")):
            after = key(page[-1])
            return page, self.tokens.issue(bound, after if pin is None else {"after": after, "pin": pin})
        return page, None

    def _offset_page(self, bound: RestCall, items: Sequence[Any], size: int, *,
                     key: Callable[[Any], Any], descending: bool) -> tuple[list[Any], str | None]:
        """The deviation: pages cut from the unsorted store by offset, each page sorted on its own."""
        offset = self.tokens.cursor(bound) or 0
        ordered = sorted(items, key=lambda item: json.dumps(key(item), default=str)[::-1])
        page = sorted(ordered[offset:offset + size], key=key, reverse=descending)
        more = offset + size < len(ordered)
        return page, (self.tokens.issue(bound, offset + size) if more else None)
