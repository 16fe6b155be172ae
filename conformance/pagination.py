"""Walking paginated REST lists: follow nextPageToken within a request budget, keeping every exchange.

The walk decides nothing: it stops where it cannot go on (a non-2XX answer, a body that is not a JSON object,
a token that is not a string, a token seen before, the budget spent) and says why, so that each test applies its
own rule to the pages and exchanges it gets back. A page whose token is absent, null or empty ends the list: none
of them names a next page, and whether an empty one is the documented form is a shape rule's question, not the
walk's. Used by the Data API and Metrics API suites.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient

#: Why a walk stopped.
LAST_PAGE = "last-page"          # a page without a token (absent, null or ""): the list is complete
BUDGET = "budget"                # `budget` pages fetched and the last one still has a token
NOT_SERVED = "not-served"        # a page answered with a non-2XX status
NOT_AN_OBJECT = "not-an-object"  # a page whose body is not a JSON object
BAD_TOKEN = "bad-token"          # a token that is not a string (a number, an object, ...)
REPEATED_TOKEN = "repeated-token"  # a token that an earlier page already carried (a loop)


def is_token(value: Any) -> bool:
    """Whether a nextPageToken value names a next page: anything but absent (None), null and the empty string."""
    return value is not None and value != ""


@dataclass
class Walk:
    """The pages of one walk, in order: their parsed bodies, their exchanges, and why the walk stopped."""

    pages: list[dict[str, Any]] = field(default_factory=list)     # bodies of the 2XX JSON-object pages
    exchanges: list[Exchange] = field(default_factory=list)       # every exchange, including the one that stopped it
    stopped: str = LAST_PAGE
    token_field: str = "nextPageToken"

    @property
    def complete(self) -> bool:
        """Whether the walk reached a page without a token."""
        return self.stopped == LAST_PAGE

    @property
    def last(self) -> Exchange:
        return self.exchanges[-1]

    def tokens(self) -> list[Any]:
        """The token each page carried (None where absent), page by page."""
        return [page.get(self.token_field) for page in self.pages]

    def items(self, key: str) -> list[Any]:
        """The items of every page under `key` (e.g. "results", "transactions"), concatenated in page order."""
        out: list[Any] = []
        for page in self.pages:
            value = page.get(key)
            if isinstance(value, list):
                out.extend(value)
        return out


def walk_pages(client: RestClient, path: str, params: Mapping[str, Any] | None = None, *, budget: int,
               method: str = "GET", json_body: Any = None, token_param: str = "pageToken",
               token_field: str = "nextPageToken") -> Walk:
    """Fetches `path` with `params`, then follows `token_field` as `token_param` (sending the same parameters
    again) until a page has no token or `budget` pages have been fetched; never sends more than `budget` requests.
    """
    if budget < 1:
        raise ValueError("a walk needs a budget of at least one page")
    walk = Walk(token_field=token_field)
    seen: set[str] = set()
    token: str | None = None
    while True:
        query = {**(params or {}), **({token_param: token} if token is not None else {})}
        exchange = client.get(path, query) if method == "GET" else client.post(path, query, json_body)
        walk.exchanges.append(exchange)
        if not 200 <= (exchange.status or 0) < 300:
            walk.stopped = NOT_SERVED
            return walk
        body = exchange.json() if exchange.is_json() else None
        if not isinstance(body, dict):
            walk.stopped = NOT_AN_OBJECT
            return walk
        walk.pages.append(body)
        token = body.get(token_field)
        if not is_token(token):
            walk.stopped = LAST_PAGE
            return walk
        if not isinstance(token, str):
            walk.stopped = BAD_TOKEN
            return walk
        if token in seen:
            walk.stopped = REPEATED_TOKEN
            return walk
        seen.add(token)
        if len(walk.exchanges) >= budget:
            walk.stopped = BUDGET
            return walk
