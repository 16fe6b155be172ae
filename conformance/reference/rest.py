"""Shared plumbing of the two REST APIs: routes with literal `:action` suffixes, parameters, errors, page tokens."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, overload
from collections.abc import Callable, Sequence

from conformance.reference.calls import HttpReply, RestCall


class RestError(Exception):
    """Ends a request with a documented error status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class InvalidToken(RestError):
    def __init__(self) -> None:
        super().__init__(400, "pageToken is invalid or does not belong to this query")


Handler = Callable[[RestCall], Any]


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    handler: Handler
    pattern: re.Pattern[str]

    @classmethod
    def of(cls, method: str, template: str, handler: Handler) -> Route:
        regex, last = "", 0
        for match in re.finditer(r"\{(\w+)\}", template):
            regex += re.escape(template[last:match.start()]) + f"(?P<{match.group(1)}>[^/]+?)"
            last = match.end()
        regex += re.escape(template[last:])
        return cls(method, template, handler, re.compile(f"^{regex}$"))


def phrase(status: int) -> str:
    return HTTPStatus(status).phrase


class RestService:
    """A REST API: a route table and the API's own error body."""

    api = ""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def route(self, method: str, template: str, handler: Handler) -> None:
        self.routes.append(Route.of(method, template, handler))

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            if route.method == method and (found := route.pattern.match(path)):
                return route, found.groupdict()
        return None

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    def error(self, status: int, message: str) -> HttpReply:
        return HttpReply(status, self.error_body(status, message))

    def dispatch(self, call: RestCall) -> HttpReply:
        found = self.match(call.method, call.path)
        if found is None:
            return self.error(404, f"Cannot {call.method} {call.path}")
        route, path_params = found
        try:
            # the path is authoritative: a fault that rewrites it gets the route and parameters it names
            return HttpReply(200, route.handler(call.with_(route=route.template, path_params=path_params)))
        except RestError as exc:
            return self.error(exc.status, exc.message)


# Parameters -------------------------------------------------------------------------------------------------

def query_int(call: RestCall, name: str, *, minimum: int | None = None, maximum: int | None = None,
              default: int | None = None, required: bool = False) -> int | None:
    """An integer query parameter within bounds; out of bounds or malformed is a 400."""
    raw = call.first(name)
    if raw is None or raw == "":
        if required:
            raise RestError(400, f"{name} is required")
        return default
    try:
        value = int(raw)
    except ValueError:
        raise RestError(400, f"{name} must be an integer") from None
    _bounded(name, value, minimum, maximum)
    return value


@overload
def query_number(call: RestCall, name: str, *, minimum: float | None = None, maximum: float | None = None,
                 default: float) -> float: ...
@overload
def query_number(call: RestCall, name: str, *, minimum: float | None = None, maximum: float | None = None,
                 default: None = None) -> float | None: ...
def query_number(call: RestCall, name: str, *, minimum: float | None = None, maximum: float | None = None,
                 default: float | None = None) -> float | None:
    raw = call.first(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise RestError(400, f"{name} must be a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise RestError(400, f"{name} must be a finite number")
    _bounded(name, value, minimum, maximum)
    return value


@overload
def query_enum(call: RestCall, name: str, allowed: Sequence[str], *, default: str) -> str: ...
@overload
def query_enum(call: RestCall, name: str, allowed: Sequence[str], *, default: None = None) -> str | None: ...
def query_enum(call: RestCall, name: str, allowed: Sequence[str], *, default: str | None = None) -> str | None:
    raw = call.first(name)
    if raw is None or raw == "":
        return default
    if raw not in allowed:
        raise RestError(400, f"{name} must be one of {', '.join(allowed)}")
    return raw


def query_bool(call: RestCall, name: str, *, default: bool | None = None) -> bool | None:
    raw = call.first(name)
    if raw is None or raw == "":
        return default
    if raw not in ("true", "false"):
        raise RestError(400, f"{name} must be true or false")
    return raw == "true"


def _bounded(name: str, value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise RestError(400, f"{name} must not be less than {minimum}")
    if maximum is not None and value > maximum:
        raise RestError(400, f"{name} must not be greater than {maximum}")


# Page tokens ------------------------------------------------------------------------------------------------

class PageTokens:
    """Opaque, signed cursor tokens that work only for the query they were issued for.

    A token carries the sort key of the last item served, not an offset, so a list that grows while a
    client walks it (a live chain) never serves an item twice.
    """

    def __init__(self, secret: bytes) -> None:
        self.secret = secret

    @staticmethod
    def fingerprint(call: RestCall) -> str:
        query = {k: v for k, v in sorted(call.query.items()) if k not in ("pageToken", "pageSize")}
        canonical = json.dumps([call.route, call.path, query, call.body], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self.secret, payload, hashlib.sha256).hexdigest()[:24]

    def issue(self, call: RestCall, cursor: Any) -> str:
        payload = json.dumps([cursor, self.fingerprint(call)], separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(payload).decode().rstrip("=") + "." + self._sign(payload)

    def cursor(self, call: RestCall) -> Any:
        """The cursor a request's pageToken carries: None without a token; InvalidToken when forged or foreign."""
        token = call.first("pageToken")
        if token is None:
            return None
        encoded, _, signature = token.partition(".")
        try:
            payload = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
            cursor, fingerprint = json.loads(payload)
        except (ValueError, TypeError):
            raise InvalidToken() from None
        if not hmac.compare_digest(signature, self._sign(payload)) or fingerprint != self.fingerprint(call):
            raise InvalidToken()
        return cursor


def paginate(items: Sequence[Any], call: RestCall, tokens: PageTokens, page_size: int, *,
             key: Callable[[Any], Any], descending: bool = False) -> tuple[list[Any], str | None]:
    """One page of `items` (already sorted by `key`) and the next page's token, None on the last page.

    `key` must give JSON-friendly, totally ordered values (a tuple of timestamp and ID, for instance).
    """
    cursor = tokens.cursor(call)
    start = 0
    if cursor is not None:
        cursor = _untuple(cursor)
        start = next((i for i, item in enumerate(items)
                      if (key(item) < cursor if descending else key(item) > cursor)), len(items))
    page = list(items[start:start + page_size])
    more = start + len(page) < len(items)
    return page, (tokens.issue(call, key(page[-1])) if more and page else None)


def _untuple(value: Any) -> Any:
    return tuple(_untuple(v) for v in value) if isinstance(value, list) else value
