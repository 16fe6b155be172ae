"""JSON-RPC 2.0 over HTTP POST: one client per endpoint path, every call an Exchange."""
from __future__ import annotations

import itertools
import json
import threading
import weakref
from typing import Any

from conformance import evidence
from conformance.clients.http import Exchange, HttpSession

OMIT: Any = object()
_JSON_HEADERS = {"content-type": "application/json"}


class JsonRpcClient:
    """Calls methods on one JSON-RPC endpoint (for example {node_url}/ext/index/X/tx)."""

    def __init__(self, http: HttpSession, url: str) -> None:
        self.http = http
        self.url = url
        self._ids = itertools.count(1)
        self._ids_by_test: dict[int, tuple[weakref.ref[Any], itertools.count[int]]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"JsonRpcClient({self.url!r})"

    def payload(self, method: str, params: Any = OMIT, *, request_id: Any = OMIT) -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id() if request_id is OMIT else request_id,
                                "method": method}
        if params is not OMIT:
            body["params"] = params
        return body

    def _next_id(self) -> int:
        """1, 2, 3, … for each test (its reproducers carry the same ids whichever tests ran before it or beside it);
        outside a test, the client's own count."""
        ledger = evidence.current()
        if ledger is None:
            return next(self._ids)
        with self._lock:
            known = self._ids_by_test.get(id(ledger))
            if known is None or known[0]() is not ledger:
                known = self._ids_by_test[id(ledger)] = (weakref.ref(ledger), itertools.count(1))
            return next(known[1])

    def call(self, method: str, params: Any = OMIT, *, request_id: Any = OMIT) -> Exchange:
        """Sends one call; `params` omitted leaves the member out of the request."""
        return self.send(self.payload(method, params, request_id=request_id))

    def send(self, body: Any) -> Exchange:
        """Sends any JSON value as the request body."""
        return self.post_raw(json.dumps(body, separators=(",", ":")).encode())

    def post_raw(self, body: bytes) -> Exchange:
        """Sends raw bytes, for malformed-request checks."""
        return self.http.request("POST", self.url, headers=_JSON_HEADERS, body=body)

    def at(self, url: str) -> JsonRpcClient:
        """The same session pointed at another endpoint URL."""
        return JsonRpcClient(self.http, url)
