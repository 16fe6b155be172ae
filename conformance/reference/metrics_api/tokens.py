"""Page tokens of the metrics API: UUID strings kept server-side, each bound to one query and valid 24 hours."""
from __future__ import annotations

import json
import threading
import uuid
from collections import OrderedDict
from typing import Any
from collections.abc import Callable

from conformance.reference import ids
from conformance.reference.rest import RestError

#: "The token is valid 24 hours from creation".
LIFETIME_SECONDS = 24 * 3600
#: not shown: how many tokens the service keeps; the oldest are forgotten first.
CAPACITY = 10_000

Query = dict[str, Any]


class BadRequest(RestError):
    """A 400 whose error body lists every problem found, one string each."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(400, "; ".join(messages))
        self.messages = messages


class TokenStore:
    """Issued tokens -> (the query they continue, the timestamp of the last point served, creation time)."""

    def __init__(self, seed: int, now: Callable[[], float]) -> None:
        self.seed = seed
        self.now = now
        self._tokens: OrderedDict[str, tuple[Query, int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def issue(self, query: Query, cursor: int) -> str:
        # The same query and cursor always give the same token, so answers are reproducible from the seed.
        key = json.dumps([query, cursor], sort_keys=True, separators=(",", ":"))
        token = str(uuid.UUID(bytes=ids.digest(self.seed, "metrics-page-token", key)[:16], version=4))
        with self._lock:
            self._tokens[token] = (query, cursor, self.now())
            self._tokens.move_to_end(token)
            while len(self._tokens) > CAPACITY:
                self._tokens.popitem(last=False)
        return token

    def resume(self, token: str, given: Query) -> tuple[Query, int]:
        """The query a token continues and its cursor; `given` values that are None take the token's values.

        not shown: whether the next request must repeat the first one's parameters; the reference accepts
        both, but a parameter that differs from the token's query is refused.
        """
        try:
            uuid.UUID(token)
        except ValueError:
            raise BadRequest(["pageToken must be a UUID"]) from None
        with self._lock:
            entry = self._tokens.get(token)
        if entry is None:
            raise BadRequest(["pageToken is unknown or has expired"])
        query, cursor, created = entry
        if self.now() - created > LIFETIME_SECONDS:
            raise BadRequest(["pageToken has expired; request the first page again"])
        merged = {name: given.get(name) if given.get(name) is not None else value for name, value in query.items()}
        if merged != query or set(given) != set(query):
            raise BadRequest(["pageToken belongs to a different query"])
        return query, cursor
