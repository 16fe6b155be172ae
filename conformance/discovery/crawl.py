"""A bounded crawl: requests through the run's HttpSession, never more than the budget, never an exception.

An answer the crawl cannot read (an error status, a body that is not JSON, a target that stops answering) yields
nothing: discovery then finds fewer identifiers, and the tests that need them skip saying what was searched.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Iterator
from urllib.parse import urlencode, urlsplit

from conformance import specs
from conformance.clients.http import HttpSession
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.errors import BudgetExhausted, SuiteError, TargetUnavailable, TargetUnreachable


@dataclass(frozen=True)
class Answer:
    """A JSON answer of status 200 (or a JSON-RPC response object) and the request that got it."""

    source: str          # operationId or JSON-RPC method
    request: str         # "GET /v1/…?pageSize=100"
    status: int
    body: Any


class Crawl:
    """Sends the crawl's requests: at most `budget`, and none once the target stopped answering."""

    def __init__(self, http: HttpSession, *, budget: int) -> None:
        self.http = http
        self.budget = budget
        self.sent = 0
        self.stopped: str | None = None  # why no further request is sent
        self.status: int | None = None   # the status of the last Data API answer (None: no answer arrived)

    @property
    def spent(self) -> bool:
        return self.stopped is not None or self.sent >= self.budget

    @property
    def refused(self) -> bool:
        """Whether the last Data API request was refused (4XX): the target says it serves nothing there."""
        return self.status is not None and 400 <= self.status < 500

    def _send(self, call: Any) -> Any:
        if self.spent:
            return None
        before = self.http.sent_by_this_thread
        try:
            return call()
        except (TargetUnreachable, TargetUnavailable, BudgetExhausted) as exc:   # no further request would do
            self.stopped = str(exc)
            return None
        except SuiteError:
            return None
        finally:
            self.sent += self.http.sent_by_this_thread - before

    def rest(self, client: RestClient, operation_id: str, values: dict[str, str], params: dict[str, Any] | None = None,
             body: Any = None) -> Answer | None:
        """A Data API route by operationId, its path filled from `values`; None unless a 200 JSON answer."""
        method, template = route(operation_id)
        path = template.format(**values)
        exchange = self._send(lambda: client.post(path, params, body) if method == "POST" else client.get(path, params))
        self.status = exchange.status if exchange is not None else None
        if exchange is None or exchange.status != 200 or not exchange.is_json():
            return None
        query = f"?{urlencode(params)}" if params else ""
        return Answer(operation_id, f"{method} {path}{query}", 200, exchange.json())

    def get(self, client: RestClient, path: str, params: dict[str, Any] | None = None) -> Answer | None:
        """A GET of any REST API by its path; None unless a 200 JSON answer."""
        exchange = self._send(lambda: client.get(path, params))
        if exchange is None or exchange.status != 200 or not exchange.is_json():
            return None
        query = f"?{urlencode(params)}" if params else ""
        return Answer(path, f"GET {path}{query}", 200, exchange.json())

    def rpc(self, client: JsonRpcClient, method: str, params: Any) -> Answer | None:
        """A JSON-RPC call; None when nothing answers there (404, not JSON), else the response object (the first of
        an array: a node that wraps single answers still answers)."""
        exchange = self._send(lambda: client.call(method, params))
        if exchange is None or exchange.status == 404 or not exchange.is_json():
            return None
        body = exchange.json()
        if isinstance(body, list):
            body = next((item for item in body if isinstance(item, dict)), {})
        return Answer(method, f"POST {urlsplit(client.url).path} {method}", int(exchange.status or 0),
                      body if isinstance(body, dict) else {})


def route(operation_id: str) -> tuple[str, str]:
    """(HTTP method, path template) of a Data API route, from the OpenAPI document."""
    for template, item in specs.openapi("data")["paths"].items():
        for method, spec in item.items():
            if isinstance(spec, dict) and spec.get("operationId") == operation_id:
                return method.upper(), template
    raise KeyError(operation_id)


def pointer(*parts: object) -> str:
    """An RFC 6901 JSON pointer."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def items(body: Any, member: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, item) of each object in the list `member` of a body."""
    listed = body.get(member) if isinstance(body, dict) else None
    for index, item in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(item, dict):
            yield pointer(member, index), item


def members(node: Any, names: frozenset[str] | tuple[str, ...], at: str = "") -> Iterator[tuple[str, str, Any]]:
    """(pointer, name, value) of every member called one of `names`, anywhere inside a JSON value."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = at + pointer(key)
            if key in names:
                yield here, key, value
            yield from members(value, names, here)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from members(value, names, at + pointer(index))


def strings(node: Any, names: frozenset[str] | tuple[str, ...], at: str = "") -> Iterator[tuple[str, str]]:
    """(pointer, text) of every string held by a member called one of `names`, or listed in one."""
    for here, _, value in members(node, names, at):
        if isinstance(value, str) and value:
            yield here, value
        elif isinstance(value, list):
            for index, entry in enumerate(value):
                if isinstance(entry, str) and entry:
                    yield here + pointer(index), entry
