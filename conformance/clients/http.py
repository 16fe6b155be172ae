"""One HTTP session per target: keep-alive, timeouts, a body cap, a rate limit, 429 handling, recorded exchanges."""
from __future__ import annotations

import json
import shlex
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

import requests

from conformance.errors import BudgetExhausted, SuiteError, TargetUnreachable

#: Stands in for a secret header's value in every reproducer and report.
SECRET_PLACEHOLDER = "$CONFORMANCE_API_KEY"
_NOT_PARSED = object()


class NotJson(SuiteError):
    """A body that should be JSON is not."""


@dataclass
class Exchange:
    """One request and what came back, enough to print a reproducing curl line."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: bytes | None
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    elapsed: float = 0.0
    truncated: bool = False
    secret_headers: frozenset[str] = frozenset()
    _json: Any = field(default=_NOT_PARSED, repr=False)

    @property
    def content_type(self) -> str:
        return self.response_headers.get("content-type", "")

    def json(self) -> Any:
        """The body parsed as JSON; raises NotJson (a suite error) when it is not."""
        if self._json is _NOT_PARSED:
            try:
                self._json = json.loads(self.body)
            except (ValueError, UnicodeDecodeError) as exc:
                raise NotJson(f"{self.method} {self.url} answered {self.status} with a body that is not JSON: "
                              f"{self.body[:200]!r}") from exc
        return self._json

    def is_json(self) -> bool:
        try:
            self.json()
        except NotJson:
            return False
        return True

    def text(self, limit: int = 600) -> str:
        text = self.body.decode("utf-8", "replace")
        return text if len(text) <= limit else text[:limit] + "…"

    def curl(self) -> str:
        """A curl command that repeats this request, secrets replaced by an environment variable."""
        parts = ["curl", "-s", "-X", self.method, shlex.quote(self.url)]
        for name, value in self.request_headers.items():
            if name.lower() in self.secret_headers:
                parts += ["-H", f'"{name}: {SECRET_PLACEHOLDER}"']
            else:
                parts += ["-H", shlex.quote(f"{name}: {value}")]
        if self.request_body is not None:
            parts += ["-d", shlex.quote(self.request_body.decode("utf-8", "replace"))]
        return " ".join(parts)


class RateLimiter:
    """Spaces requests so that at most `per_second` start in any second."""

    def __init__(self, per_second: float | None) -> None:
        self.interval = 1.0 / per_second if per_second else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


@dataclass
class Limits:
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    max_body_bytes: int = 32 * 1024 * 1024
    rate_limit: float | None = None
    max_requests: int | None = None
    max_retry_wait: float = 30.0
    retries_on_429: int = 3
    deadline: float | None = None  # time.monotonic() value after which no request starts


class HttpSession:
    """Sends requests for one run, records them, and never prints a secret."""

    def __init__(self, limits: Limits | None = None, *, secret_headers: Mapping[str, str] | None = None,
                 user_agent: str = "conformance-suite") -> None:
        self.limits = limits or Limits()
        self.session = requests.Session()
        # Proxy settings from the environment are read once per host, not on every request (which costs
        # requests about a third of its time against a fast local server).
        self.session.trust_env = False
        self._proxies: dict[str, dict[str, str]] = {}
        self.session.headers["User-Agent"] = user_agent
        self.session.max_redirects = 5
        self.secret_values = dict(secret_headers or {})
        self.secret_names = frozenset(name.lower() for name in self.secret_values)
        self.rate = RateLimiter(self.limits.rate_limit)
        self.requests_sent = 0
        self.last: Exchange | None = None
        self.listeners: list[Callable[[Exchange], None]] = []

    def request(self, method: str, url: str, *, params: Mapping[str, Any] | None = None,
                headers: Mapping[str, str] | None = None, body: bytes | None = None,
                secret: bool = False) -> Exchange:
        """Sends one request, waiting out 429 answers within the retry budget."""
        all_headers = dict(headers or {})
        if secret:
            all_headers.update(self.secret_values)
        prepared = self.session.prepare_request(
            requests.Request(method, url, params=params, headers=all_headers, data=body))
        for attempt in range(self.limits.retries_on_429 + 1):
            exchange = self._send(prepared)
            if exchange.status != 429 or attempt == self.limits.retries_on_429:
                return exchange
            time.sleep(self._retry_after(exchange))
        return exchange  # pragma: no cover - the loop always returns

    def _retry_after(self, exchange: Exchange) -> float:
        value = exchange.response_headers.get("retry-after", "1")
        try:
            wait = float(value)
        except ValueError:
            wait = 1.0
        return min(max(wait, 0.0), self.limits.max_retry_wait)

    def _check_budget(self) -> None:
        if self.limits.max_requests is not None and self.requests_sent >= self.limits.max_requests:
            raise BudgetExhausted(f"the request budget of {self.limits.max_requests} requests is spent")
        if self.limits.deadline is not None and time.monotonic() > self.limits.deadline:
            raise BudgetExhausted("the run's maximum duration has passed")

    def _send(self, prepared: requests.PreparedRequest) -> Exchange:
        self._check_budget()
        self.rate.wait()
        self.requests_sent += 1
        body = prepared.body.encode() if isinstance(prepared.body, str) else prepared.body
        exchange = Exchange(
            method=prepared.method or "GET", url=prepared.url or "",
            # The secret's value never enters an exchange: reproducers and reports show a placeholder.
            request_headers={k: (SECRET_PLACEHOLDER if k.lower() in self.secret_names else v)
                             for k, v in prepared.headers.items()
                             if k.lower() not in ("user-agent", "accept-encoding", "connection", "content-length")},
            request_body=body, secret_headers=self.secret_names)
        started = time.perf_counter()
        try:
            response = self.session.send(prepared, stream=True, proxies=self._proxies_for(exchange.url),
                                         timeout=(self.limits.connect_timeout, self.limits.read_timeout))
        except requests.exceptions.ConnectionError as exc:
            raise TargetUnreachable(f"{exchange.method} {exchange.url}: cannot connect ({_reason(exc)})") from None
        except requests.exceptions.Timeout:
            raise TargetUnreachable(f"{exchange.method} {exchange.url}: no answer within "
                                    f"{self.limits.read_timeout:g} s") from None
        except requests.exceptions.TooManyRedirects:
            raise SuiteError(f"{exchange.method} {exchange.url}: too many redirects") from None
        except requests.exceptions.RequestException as exc:
            raise SuiteError(f"{exchange.method} {exchange.url}: {_reason(exc)}") from None
        with response:
            exchange.status = response.status_code
            exchange.response_headers = {k.lower(): v for k, v in response.headers.items()}
            exchange.body, exchange.truncated = self._read_capped(response, exchange)
        exchange.elapsed = time.perf_counter() - started
        self.last = exchange
        for listener in self.listeners:
            listener(exchange)
        return exchange

    def _proxies_for(self, url: str) -> dict[str, str]:
        host = urlsplit(url).netloc
        if host not in self._proxies:
            self._proxies[host] = requests.utils.get_environ_proxies(url)
        return self._proxies[host]

    def _read_capped(self, response: requests.Response, exchange: Exchange) -> tuple[bytes, bool]:
        cap = self.limits.max_body_bytes
        chunks, size = [], 0
        try:
            for chunk in response.iter_content(chunk_size=65536):
                size += len(chunk)
                if size > cap:
                    raise SuiteError(f"{exchange.method} {exchange.url}: body larger than {cap} bytes; not read")
                chunks.append(chunk)
        except requests.exceptions.RequestException as exc:
            raise SuiteError(f"{exchange.method} {exchange.url}: the body was cut short ({_reason(exc)})") from None
        return b"".join(chunks), False

    def close(self) -> None:
        self.session.close()


def _reason(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) < 200 else text[:200] + "…"
