"""One HTTP session per target: keep-alive, timeouts, a body cap, a rate limit, 429 handling, recorded exchanges."""
from __future__ import annotations

import collections
import contextlib
import email.utils
import hashlib
import http.client
import io
import json
import re
import shlex
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, NoReturn, cast
from collections.abc import Callable, Hashable, Iterator, Mapping
from urllib.parse import urljoin, urlsplit

import requests
import requests.structures
import urllib3

from conformance.clients.deadline import cut_every_wait, deadline_session, watching
from conformance.clients.outage import Outage, Ride
from conformance.clients.resending import may_resend
from conformance.errors import (AnswerCut, BudgetExhausted, ConnectionLost, RateLimited, RunStopped, SuiteError,
                               TargetDown, TargetUnavailable, TargetUnreachable, TransportFault)

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
    #: A large body, once parsed, is kept as its first and last bytes: its size and digest then say what it was.
    body_size: int = 0
    body_digest: str | None = None
    _null_in_body: bool = True
    secret_headers: frozenset[str] = frozenset()
    #: The request's number in its session (1, 2, …): how evidence and the HAR archive name this exchange.
    number: int = 0
    #: When it was sent (time.time()), for the HAR archive.
    sent_at: float = 0.0
    _json: Any = field(default=_NOT_PARSED, repr=False)

    @property
    def content_type(self) -> str:
        return self.response_headers.get("content-type", "")

    def json(self) -> Any:
        """The body parsed as JSON; raises NotJson (a suite error) when it is not."""
        if self._json is _NOT_PARSED:
            try:
                # Strict UTF-8 (RFC 8259 §8.1): json.loads on bytes would let encoded surrogates through, and a
                # lone surrogate breaks every later encode of the value (reports, terminal).
                text = self.body.decode("utf-8-sig")
                self._json = json.loads(text, parse_constant=_not_json_constant)
                if "\\u" in text and _SURROGATE_ESCAPE.search(text):
                    self._json = _mended(self._json)
            except (ValueError, UnicodeDecodeError) as exc:
                raise NotJson(f"{self.method} {self.url} answered {self.status} with a body that is not JSON: "
                              f"{self.body[:200]!r}") from exc
            except RecursionError:
                raise NotJson(f"{self.method} {self.url} answered {self.status} with JSON nested too deeply to "
                              f"read: {self.body[:60]!r}") from None
            if len(self.body) > KEEP_WHOLE:
                self._trim()
        return self._json

    def _trim(self) -> None:
        """Keeps a parsed large body as its head and tail, its size and digest, and its parsed value with every
        long text as its head, digest and tail: what the run holds (evidence, pages a later test reads) stays
        bounded whatever the target sends, and two texts that differ still compare unequal."""
        body = self.body
        self.body_size, self.body_digest = len(body), hashlib.blake2b(body, digest_size=16).hexdigest()
        self._null_in_body = b"null" in body
        self.body = body[:KEPT_HEAD] + body[-KEPT_TAIL:]
        if self._json is not _NOT_PARSED:
            self._json = _shortened(self._json)

    def settle(self) -> None:
        """Parses a large body now (a JSON one) and keeps it trimmed: the whole body is not kept after it is read."""
        if len(self.body) > KEEP_WHOLE:
            if opens_a_container(self.body) and self.is_json():
                return   # parsing trimmed it
            if not self.trimmed:
                self._trim()

    def kept_bytes(self) -> int:
        """About what keeping this exchange costs: its body, and its parsed value (a few times the text it was
        parsed from, for Python's objects), once parsed."""
        parsed = 0 if self._json is _NOT_PARSED else (_kept_size(self._json) if self.trimmed else 3 * len(self.body))
        return len(self.body) + parsed + len(self.request_body or b"")

    @property
    def trimmed(self) -> bool:
        return self.body_digest is not None

    def may_hold_null(self) -> bool:
        """Whether the body may hold a JSON null (checked before a large body was trimmed)."""
        return self._null_in_body if self.trimmed else b"null" in self.body

    def is_json(self) -> bool:
        try:
            self.json()
        except NotJson:
            return False
        return True

    def text(self, limit: int = 600) -> str:
        # A character is at most four bytes: a large body is not decoded whole for its first characters.
        text = self.body[:4 * limit + 4].decode("utf-8", "replace")
        return text if len(text) <= limit and len(self.body) <= 4 * limit + 4 else text[:limit] + "…"

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


def opens_a_container(body: bytes) -> bool:
    """Whether a body's JSON text opens an object or an array: whitespace may come first (RFC 8259 §2)."""
    return body[:4096].lstrip(b" \t\n\r")[:1] in (b"{", b"[")


#: Bodies larger than this are trimmed once parsed, to their first and last bytes.
KEEP_WHOLE = 1024 * 1024
KEPT_HEAD, KEPT_TAIL = 16 * 1024, 4 * 1024
#: Texts of a trimmed answer's parsed value longer than this are kept as their head, digest and tail.
KEPT_TEXT = 4 * 1024
#: Answers over KEEP_WHOLE read at once at most: the others wait for one to be read and trimmed, so that bodies
#: in flight are bounded whatever the target sends and however many tests are in flight.
LARGE_IN_FLIGHT = 1


def _shortened(value: Any) -> Any:
    """A parsed value with every text longer than KEPT_TEXT as its head, its digest and its tail."""
    if isinstance(value, str):
        if len(value) <= KEPT_TEXT:
            return value
        # the text's own hash (no encoding of it again): two long texts that differ still read unequal in one run
        return f"{value[:KEPT_TEXT // 2]}…[{len(value)} characters, hash {hash(value) & (2**64 - 1):016x}]…" \
               f"{value[-KEPT_TEXT // 4:]}"
    if isinstance(value, dict):
        return {key: _shortened(member) for key, member in value.items()}
    if isinstance(value, list):
        return [_shortened(member) for member in value]
    return value


def _kept_size(value: Any) -> int:
    """About the memory a parsed JSON value takes."""
    if isinstance(value, str):
        return 50 + len(value)
    if isinstance(value, dict):
        return 100 + sum(50 + len(key) + _kept_size(member) for key, member in value.items())
    if isinstance(value, list):
        return 60 + sum(8 + _kept_size(member) for member in value)
    return 32


class RateLimiter:
    """Spaces requests so that at most `per_second` start in any second.

    A turn is taken when the request really starts, not when it was scheduled: a thread that wakes late (a loaded
    machine) would otherwise start beside the next one on time, and a second of the target's would see one more.
    The starts of the last second are kept and counted too, so no window of a second ever holds more."""

    def __init__(self, per_second: float | None) -> None:
        self.interval = 1.0 / per_second if per_second else 0.0
        self._next = 0.0
        self._lock = threading.Lock()
        self._starts: collections.deque[float] = collections.deque(maxlen=max(1, int(per_second or 1)))

    def wait(self) -> float:
        """Waits for this request's turn; returns when it was (time.monotonic)."""
        if not self.interval:
            return time.monotonic()
        while True:
            with self._lock:
                now = time.monotonic()
                full = len(self._starts) == self._starts.maxlen
                start = max(now, self._next, self._starts[0] + 1.0 if full else now)
                if start <= now:
                    self._next = now + self.interval
                    self._starts.append(now)
                    return now
            time.sleep(start - now)


@dataclass
class Limits:
    """How hard a run may press the target and how long it waits; past any bound a request is a suite error."""

    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    total_timeout: float | None = None  # one exchange, headers and body; None: read_timeout
    max_body_bytes: int = 32 * 1024 * 1024
    rate_limit: float | None = None
    max_requests: int | None = None
    max_retry_wait: float = 30.0  # a longer Retry-After ends the request: retrying sooner would break the limit
    retries_on_429: int = 3
    retries_on_unavailable: int = 2
    unavailable_backoff: float = 0.5
    max_redirects: int = 3
    deadline: float | None = None  # time.monotonic() value after which no request starts
    in_flight: int = 1  # requests sent at once (threads of a concurrent run), each on a keep-alive connection
    #: Seconds a request that changes nothing is sent again after its connection was refused, reset or cut, and
    #: after which a target that gave nothing else (or 5XX answers) is down; 0: neither (conformance.clients.outage)
    outage_window: float = 0.0

    @property
    def exchange_timeout(self) -> float:
        return self.total_timeout if self.total_timeout is not None else self.read_timeout


#: Answers that say "not now" rather than "wrong": waited out, then a suite error, never a verdict.
UNAVAILABLE = frozenset({502, 503, 504})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: Prepared URLs a session remembers; past that it starts again (a long run's distinct URLs are unbounded).
_REMEMBERED_URLS = 4096


@dataclass
class FailedAttempt(Exchange):
    """A request that went out and got no whole answer (refused, reset, cut off, too late, too large): no status,
    no body, and `fault` says what happened. The session's listeners see it as they see every exchange."""

    fault: str = ""


class HttpSession:
    """Sends requests for one run, records them, and never prints a secret."""

    def __init__(self, limits: Limits | None = None, *, secret_headers: Mapping[str, str] | None = None,
                 user_agent: str = "conformance-suite") -> None:
        self.limits = limits or Limits()
        # Proxy settings from the environment are read once per host, not on every request (which costs
        # requests about a third of its time against a fast local server).
        self.session = deadline_session(connections=self.limits.in_flight)
        self._proxies: dict[str, dict[str, str]] = {}
        self._urls: dict[Any, str | None] = {}   # prepared URLs by (url, params)
        self.session.headers["User-Agent"] = user_agent
        self.secret_values = dict(secret_headers or {})
        self.secret_names = frozenset(name.lower() for name in self.secret_values)
        self.rate = RateLimiter(self.limits.rate_limit)
        # Threads of a concurrent run share the session: counting and the budget are decided under one lock, and
        # at most `in_flight` exchanges are on the wire at once.
        self.requests_sent = 0
        self.trimmed_bodies = 0   # answers whose bodies were too large to keep whole (Exchange.settle)
        self._counting = threading.Lock()
        self._slots = threading.BoundedSemaphore(max(1, self.limits.in_flight))
        self._local = threading.local()
        # Told of every exchange in the thread that sent it: once its answer is read (`elapsed` set), or as a
        # FailedAttempt when no whole answer came back. Whoever follows the run's requests listens here.
        self.listeners: list[Callable[[Exchange], None]] = []
        self.stopped: str | None = None   # why the run stops: no request starts any more
        self._stopping = threading.Event()
        # How a retry is waited for: every wait the target asks for goes through this one call, which a stop ends.
        self.sleep: Callable[[float], Any] = self._stopping.wait
        self._reading: set[Any] = set()   # the raw answers whose bodies are being read, to cut off on a stop
        self._large = threading.BoundedSemaphore(LARGE_IN_FLIGHT)
        self.outage = Outage(self.limits.outage_window)
        # Told why, when the target is down: the run stops as on a signal (the session stops itself too).
        self.when_down: list[Callable[[str], None]] = []

    @property
    def last(self) -> Exchange | None:
        """The last exchange this thread completed."""
        return getattr(self._local, "last", None)

    @last.setter
    def last(self, exchange: Exchange | None) -> None:
        self._local.last = exchange

    @property
    def sent_by_this_thread(self) -> int:
        """Requests this thread sent: what a crawl spent, while the tests of other threads send theirs."""
        return getattr(self._local, "sent", 0)

    def request(self, method: str, url: str, *, params: Mapping[str, Any] | None = None,
                headers: Mapping[str, str] | None = None, body: bytes | None = None,
                secret: bool | Mapping[str, str] = False) -> Exchange:
        """Sends one request: 429, 502, 503 and 504 are waited out within the budget, same-origin redirects
        followed a few times, a refused or reset connection or a cut answer ridden through within the outage window
        (a request that changes nothing); what outlasts that is a suite error.

        `secret` adds the session's secret headers, or, as a mapping, other secret headers for this request
        alone (a key the target advertises), hidden in the same way.
        """
        all_headers = dict(headers or {})
        secrets = secret if isinstance(secret, Mapping) else self.secret_values if secret else {}
        all_headers.update(secrets)
        hidden = self.secret_names | {name.lower() for name in secrets}
        prepared = self._prepared(method, url, params, all_headers, body)
        throttled = unavailable = 0
        visited = [prepared.url]
        ride: Ride | None = None   # the faults on the way to the target, once there was one
        while True:
            try:
                exchange = self._send(prepared, hidden)
            except TransportFault as fault:
                ride = ride or Ride()
                self._ride_out(prepared, fault, ride)
                continue
            if exchange.status == 429:
                throttled += 1
                self._wait_out(exchange, throttled, self.limits.retries_on_429, RateLimited, backoff=1.0)
            elif exchange.status in UNAVAILABLE:
                unavailable += 1
                self._wait_out(exchange, unavailable, self.limits.retries_on_unavailable, TargetUnavailable,
                               backoff=self.limits.unavailable_backoff)
            elif exchange.status in REDIRECTS and "location" in exchange.response_headers:
                prepared = self._redirected(prepared, exchange, visited)
            else:
                if ride is not None:
                    self.outage.rode_through(exchange.method, exchange.url, ride, exchange.number,
                                             time.monotonic() - ride.started)
                return exchange

    def _prepared(self, method: str, url: str, params: Mapping[str, Any] | None, headers: Mapping[str, str],
                  body: bytes | None) -> requests.PreparedRequest:
        """The request as requests' session prepares it, less its cookie jar and hooks (the suite uses neither),
        which cost a tenth of a request's time against a target on the same machine."""
        merged = requests.structures.CaseInsensitiveDict(self.session.headers)
        merged.update(headers)
        prepared = requests.PreparedRequest()
        prepared.prepare_method(method)
        self._prepare_url(prepared, url, params)
        prepared.prepare_headers(merged)
        prepared.prepare_body(body, None)
        if "@" in (prepared.url or ""):
            prepared.prepare_auth(None, url)   # a user and password written in the target's URL
        return prepared

    def _prepare_url(self, prepared: requests.PreparedRequest, url: str, params: Mapping[str, Any] | None) -> None:
        """requests' prepare_url, remembered: a run sends most of its requests to a few URLs (every JSON-RPC call
        of an API goes to one), and working each out again is a twentieth of a request's time on loopback."""
        key = _url_key(url, params)
        known = self._urls.get(key) if key is not None else None
        if known is not None:
            prepared.url = known
            return
        prepared.prepare_url(url, params)
        if key is not None:
            if len(self._urls) >= _REMEMBERED_URLS:
                self._urls.clear()
            self._urls[key] = prepared.url

    def _wait_out(self, exchange: Exchange, attempt: int, retries: int, error: type[SuiteError], *,
                  backoff: float) -> None:
        """Sleeps before retry number `attempt`, or raises `error` when the retries, the wait the target asks
        for, or the run's duration do not allow one."""
        what = f"{exchange.method} {exchange.url} answered {exchange.status}"
        if attempt > retries:
            raise error(f"{what} {attempt} times; the target could not be tested now"
                        + (" (lower --rate-limit)" if exchange.status == 429 else ""))
        wait = _retry_after(exchange.response_headers.get("retry-after"))
        wait = backoff * 2 ** (attempt - 1) if wait is None else wait
        if wait > self.limits.max_retry_wait:
            # Retrying sooner than asked would break the target's limit: give up instead.
            raise error(f"{what} with Retry-After {wait:g} s, longer than the {self.limits.max_retry_wait:g} s "
                        f"the suite waits")
        if self.limits.deadline is not None and time.monotonic() + wait > self.limits.deadline:
            raise BudgetExhausted(f"{what}; waiting {wait:g} s for a retry outlasts the run's maximum duration")
        self.sleep(wait)

    def _ride_out(self, prepared: requests.PreparedRequest, fault: TransportFault, ride: Ride) -> None:
        """Waits before the request is sent again after `fault`, or raises when it may not be: a request that may
        have reached the target and changes its state, a run that is stopping, the outage window or the run's
        maximum duration passed."""
        ride.faults.append(fault.kind)
        ride.attempts.append(fault.number)
        if self.stopped is not None:
            # the stop itself may have cut the answer off: the test is interrupted, not in error
            raise RunStopped(self.stopped) from None
        body = prepared.body.encode() if isinstance(prepared.body, str) else prepared.body
        if not self.outage.window or (fault.sent and not may_resend(prepared.method or "GET", body)):
            raise fault
        wait = ride.next_wait(self.outage.window)
        if wait is None:
            raise type(fault)(f"{fault} (sent {len(ride.faults)} times over {time.monotonic() - ride.started:.1f} s, "
                              f"no answer within --outage-window {self.outage.window:g} s)", sent=fault.sent) from None
        if self.limits.deadline is not None and time.monotonic() + wait > self.limits.deadline:
            raise BudgetExhausted(f"{fault}; waiting {wait:g} s to send it again outlasts the run's maximum duration")
        self.sleep(wait)

    def _redirected(self, prepared: requests.PreparedRequest, exchange: Exchange,
                    visited: list[str | None]) -> requests.PreparedRequest:
        """The request that follows a redirect; only within the target's origin, a few times, never in a loop.

        Another origin is never followed: the API key and the suite's requests stay with the target.
        """
        location = exchange.response_headers["location"]
        what = f"{exchange.method} {exchange.url} answered {exchange.status} to {location[:200]}"
        try:
            location = urljoin(exchange.url, location)
            elsewhere = _origin(location) != _origin(exchange.url)
        except ValueError:  # urllib refuses a bad port or bracket: a Location nobody can follow
            raise SuiteError(f"{what}: a Location that is not a URL, not followed") from None
        if elsewhere:
            raise SuiteError(f"{what}: another origin, not followed")
        if location in visited:
            raise SuiteError(f"{what}: a redirect loop")
        if len(visited) > self.limits.max_redirects:
            raise SuiteError(f"{what}: more than {self.limits.max_redirects} redirects")
        keeps_method = exchange.status in (307, 308) or exchange.method in ("GET", "HEAD")
        if not keeps_method:
            raise SuiteError(f"{what}: not followed, a {exchange.status} would turn the {exchange.method} into a "
                             f"GET without its body")
        visited.append(location)
        following = prepared.copy()
        try:
            following.prepare_url(location, None)
        except (ValueError, requests.exceptions.RequestException):
            raise SuiteError(f"{what}: a Location that is not a URL, not followed") from None
        return following

    @contextlib.contextmanager
    def capturing(self) -> Iterator[list[Exchange]]:
        """The exchanges this thread completes inside the block."""
        outer = getattr(self._local, "capture", None)
        seen: list[Exchange] = []
        self._local.capture = seen
        try:
            yield seen
        finally:
            self._local.capture = outer

    def stop(self, reason: str) -> None:
        """The run is stopping: no request starts any more, and the answers still arriving are cut off, so that the
        threads sending them end at once."""
        self.stopped = reason
        self._stopping.set()
        cut_every_wait()
        with self._counting:
            reading = list(self._reading)
        for raw in reading:
            sock = getattr(getattr(raw, "connection", None), "sock", None)
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def _check_budget(self) -> None:
        if self.stopped is not None:
            raise RunStopped(self.stopped)
        if self.limits.max_requests is not None and self.requests_sent >= self.limits.max_requests:
            raise BudgetExhausted(f"the request budget of {self.limits.max_requests} requests is spent")
        if self.limits.deadline is not None and time.monotonic() > self.limits.deadline:
            raise BudgetExhausted("the run's maximum duration has passed")

    def _send(self, prepared: requests.PreparedRequest, hidden: frozenset[str]) -> Exchange:
        self._check_budget()
        self._local.attempt = None
        try:
            with self._slots:
                exchange = self._send_counted(prepared, hidden)
        except SuiteError as error:
            self._attempt_failed(error)
            if self.stopped is not None and not isinstance(error, BudgetExhausted):
                # The run's own stop cut this answer off (its socket shut, its wait ended): the test is
                # interrupted, never the target's fault.
                raise RunStopped(self.stopped) from None
            raise
        self._local.attempt = None
        # Outside the slot: a listener may send a request of its own (the watch asks an odd answer again).
        for listener in self.listeners:
            listener(exchange)
        if exchange.status is not None and exchange.status >= 500:
            self._outage_fault(f"{exchange.method} {exchange.url} answered {exchange.status}")
        else:
            self.outage.answered()
        return exchange

    def _attempt_failed(self, error: SuiteError) -> None:
        """A request went out and no whole answer came back: the listeners see the attempt (the HAR archive holds
        every request sent), and a fault on the way counts towards an outage."""
        attempt, self._local.attempt = getattr(self._local, "attempt", None), None
        if attempt is None:
            return   # nothing was sent: the budget, or the run stopping
        failed = FailedAttempt(method=attempt.method, url=attempt.url, request_headers=attempt.request_headers,
                               request_body=attempt.request_body, response_headers=attempt.response_headers,
                               elapsed=max(0.0, time.time() - attempt.sent_at), secret_headers=attempt.secret_headers,
                               number=attempt.number, sent_at=attempt.sent_at, fault=str(error))
        for listener in self.listeners:
            listener(failed)
        if isinstance(error, TransportFault):
            error.number = attempt.number
            self._outage_fault(str(error))

    def _outage_fault(self, what: str) -> None:
        """Counts a fault or a 5XX answer towards an outage; raises TargetDown when it has lasted past the window."""
        if self.stopped is not None:
            return
        down = self.outage.failed(what)
        if down is None:
            return
        for tell in self.when_down:
            tell(down)
        if self.stopped is None:
            self.stop(down)
        raise TargetDown(down)

    def _send_counted(self, prepared: requests.PreparedRequest, hidden: frozenset[str]) -> Exchange:
        self.rate.wait()
        with self._counting:
            self._check_budget()
            self.requests_sent += 1
            number = self.requests_sent
        self._local.sent = self.sent_by_this_thread + 1
        body = prepared.body.encode() if isinstance(prepared.body, str) else prepared.body
        exchange = Exchange(
            method=prepared.method or "GET", url=prepared.url or "",
            # The secret's value never enters an exchange: reproducers and reports show a placeholder.
            request_headers={k: (SECRET_PLACEHOLDER if k.lower() in hidden else v)
                             for k, v in prepared.headers.items()
                             if k.lower() not in ("user-agent", "accept-encoding", "connection", "content-length")},
            request_body=body, secret_headers=hidden, number=number, sent_at=time.time())
        self._local.attempt = exchange   # what the listeners see of it, should no whole answer come back
        started = time.perf_counter()
        # requests' read timeout bounds each socket read, so a server that trickles bytes could hold a request
        # for ever; the whole exchange gets `exchange_timeout`: a watchdog while the headers arrive, then the
        # body is read against the same deadline.
        ends = time.monotonic() + self.limits.exchange_timeout
        try:
            with watching(ends) as watch:
                # The session's adapter directly: the session would only add its cookie jar and hooks.
                response = self.session.get_adapter(exchange.url).send(
                    # the session's verify is never None: requests sets it True and this client leaves it
                    prepared, stream=True, verify=cast("bool | str", self.session.verify), cert=self.session.cert,
                    proxies=self._proxies_for(exchange.url),
                    timeout=(self.limits.connect_timeout, min(self.limits.read_timeout, self.limits.exchange_timeout)))
            if watch.fired:
                response.close()
                raise TargetUnreachable(self._headers_late(exchange))
        except requests.exceptions.RequestException as exc:
            timed_out = isinstance(exc, requests.exceptions.Timeout) or _timed_out(exc)
            if watch.fired and not timed_out:
                raise TargetUnreachable(self._headers_late(exchange)) from None
            self._unreachable(exchange, exc)
        with response:
            exchange.status = response.status_code
            exchange.response_headers = {k.lower(): v for k, v in response.headers.items()}
            with self._counting:
                self._reading.add(response.raw)
            large = False
            try:
                exchange.body, large = self._read_capped(response, exchange, ends)
                if large:
                    # A large answer is parsed and trimmed while it still holds its slot: what waits for the slot
                    # is never read beside it.
                    exchange.settle()
                    if exchange.trimmed:
                        with self._counting:
                            self.trimmed_bodies += 1
            finally:
                if large:
                    self._large.release()
                with self._counting:
                    self._reading.discard(response.raw)
        exchange.elapsed = time.perf_counter() - started
        self.last = exchange
        capture = getattr(self._local, "capture", None)
        if capture is not None:
            capture.append(exchange)
        return exchange

    def _headers_late(self, exchange: Exchange) -> str:
        return (f"{exchange.method} {exchange.url}: the status line and headers did not arrive within "
                f"{self.limits.exchange_timeout:g} s")

    def _unreachable(self, exchange: Exchange, exc: requests.exceptions.RequestException) -> NoReturn:
        if isinstance(exc, requests.exceptions.ConnectionError):
            if isinstance(exc, requests.exceptions.ConnectTimeout) or _timed_out(exc):
                raise TargetUnreachable(f"{exchange.method} {exchange.url}: no answer within "
                                        f"{self._timeout_text(exc)}") from None
            if _caused_by(exc, ConnectionRefusedError):
                raise ConnectionLost(f"{exchange.method} {exchange.url}: cannot connect ({_reason(exc)})",
                                     sent=False) from None
            if _caused_by(exc, ConnectionResetError, ConnectionAbortedError, BrokenPipeError,
                          http.client.RemoteDisconnected):
                raise ConnectionLost(f"{exchange.method} {exchange.url}: the connection was closed before the "
                                     f"answer ({_reason(exc)})") from None
            raise TargetUnreachable(f"{exchange.method} {exchange.url}: cannot connect ({_reason(exc)})") from None
        if isinstance(exc, requests.exceptions.Timeout):
            raise TargetUnreachable(f"{exchange.method} {exchange.url}: no answer within "
                                    f"{self._timeout_text(exc)}") from None
        raise SuiteError(f"{exchange.method} {exchange.url}: {_reason(exc)}") from None

    def _timeout_text(self, exc: BaseException) -> str:
        if isinstance(exc, requests.exceptions.ConnectTimeout):
            return f"{self.limits.connect_timeout:g} s (connecting)"
        return f"{min(self.limits.read_timeout, self.limits.exchange_timeout):g} s"

    def _proxies_for(self, url: str) -> dict[str, str]:
        host = urlsplit(url).netloc
        if host not in self._proxies:
            self._proxies[host] = requests.utils.get_environ_proxies(url)
        return self._proxies[host]

    def _read_capped(self, response: requests.Response, exchange: Exchange, ends: float) -> tuple[bytes, bool]:
        """The body, read until `ends` and up to the cap, and whether it holds one of the slots of large answers
        (the caller releases it); a larger, slower or broken body is a suite error."""
        cap = self.limits.max_body_bytes
        what = f"{exchange.method} {exchange.url}"
        declared = response.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > cap:
            raise SuiteError(f"{what}: body of {int(declared)} bytes is larger than {cap} bytes; not read")
        raw = response.raw
        # read1 returns what has arrived (read waits for a whole chunk), so the deadline is checked often.
        read = getattr(raw, "read1", None) or raw.read
        buffer = io.BytesIO()
        holding = [False]
        try:
            return self._read_into(buffer, raw, read, what, ends, cap, holding), holding[0]
        except BaseException:
            if holding[0]:
                self._large.release()
            raise
        finally:
            # an error's traceback keeps this frame: what was read so far must not live on with it
            buffer.close()

    def _read_into(self, buffer: io.BytesIO, raw: Any, read: Callable[..., bytes], what: str, ends: float,
                   cap: int, holding: list[bool]) -> bytes:
        size = 0
        try:
            while True:
                left = ends - time.monotonic()
                if left <= 0:
                    raise TargetUnreachable(f"{what}: the answer did not arrive within "
                                            f"{self.limits.exchange_timeout:g} s ({size} bytes of the body read)")
                _bound_next_read(raw, min(left, self.limits.read_timeout))
                # larger reads once a body is large: fewer system calls for the same bytes
                chunk = read(1048576 if size > KEEP_WHOLE else 65536, decode_content=True)
                if not chunk:
                    return buffer.getvalue()
                size += len(chunk)
                if size > cap:
                    raise SuiteError(f"{what}: body larger than {cap} bytes; not read")
                if size > KEEP_WHOLE and not holding[0]:
                    # waits while LARGE_IN_FLIGHT other large answers are being read and trimmed
                    if not self._large.acquire(timeout=max(0.0, ends - time.monotonic())):
                        raise TargetUnreachable(f"{what}: the answer did not arrive within "
                                                f"{self.limits.exchange_timeout:g} s (waiting to read a large body)")
                    holding[0] = True
                buffer.write(chunk)
        except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
            if time.monotonic() >= ends - 0.01:
                raise TargetUnreachable(f"{what}: the answer did not arrive within "
                                        f"{self.limits.exchange_timeout:g} s ({size} bytes of the body read)") from None
            raise TargetUnreachable(f"{what}: the body stopped arriving ({size} bytes read, then nothing for "
                                    f"{self.limits.read_timeout:g} s)") from None
        except urllib3.exceptions.DecodeError:
            encoding = raw.headers.get("content-encoding", "")
            raise SuiteError(f"{what}: the body does not decode as its Content-Encoding {encoding!r} says") from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise AnswerCut(f"{what}: the body was cut short ({_short_read(exc) or _reason(exc)})") from None

    def close(self) -> None:
        self.session.close()


def _not_json_constant(name: str) -> Any:
    """NaN and Infinity are JavaScript, not JSON (RFC 8259 §6): Python's parser would accept them."""
    raise ValueError(f"{name} is not a JSON value")


def _bound_next_read(raw: Any, seconds: float) -> None:
    """Lets the next socket read wait at most `seconds` (the exchange's time left)."""
    sock = getattr(getattr(raw, "connection", None), "sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))


def redacted(value: Any, secrets: tuple[str, ...]) -> Any:
    """`value` (a string, or JSON-like data) with every secret replaced by SECRET_PLACEHOLDER, keys included.

    A target may echo the key it was sent (in an error message, a header, a body that mirrors the request):
    whatever the suite prints or writes goes through here first.
    """
    def hide(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, SECRET_PLACEHOLDER)
        return text
    return _strings_mapped(value, hide) if secrets else value


#: A \uD800-\uDFFF escape: JSON's grammar allows one alone, and a lone surrogate cannot be written as UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _mended(value: Any) -> Any:
    """`value` with each lone surrogate in its strings (keys too) replaced by U+FFFD, so it can be reported."""
    return _strings_mapped(value, lambda text: text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))


def _strings_mapped(value: Any, change: Callable[[str], str]) -> Any:
    """`value` with `change` applied to every string inside it, object keys included."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_strings_mapped(item, change) for item in value)
    if isinstance(value, dict):
        return {_strings_mapped(key, change): _strings_mapped(item, change) for key, item in value.items()}
    return value


def _url_key(url: str, params: Mapping[str, Any] | None) -> Hashable | None:
    """What a prepared URL is remembered by; None for params that cannot be a key. Each value carries its type:
    True and 1 are equal keys but different query strings."""
    if not params:
        return url, ()

    def typed(value: Any) -> Any:
        return (type(value), tuple(typed(item) for item in value) if isinstance(value, (list, tuple)) else value)

    key = (url, tuple((name, typed(value)) for name, value in params.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _retry_after(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (delay-seconds or an HTTP-date), None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():  # str.isdigit also takes "²", which float() does not
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port or {"http": 80, "https": 443}.get(parts.scheme)


def _timed_out(exc: BaseException) -> bool:
    """Whether a requests ConnectionError is a read timeout underneath (urllib3 raises some that way)."""
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    if isinstance(reason, urllib3.exceptions.NewConnectionError):   # urllib3 files a refusal under timeouts too
        return False
    return isinstance(reason, (urllib3.exceptions.ReadTimeoutError, urllib3.exceptions.ConnectTimeoutError))


def _caused_by(exc: BaseException, *kinds: type[BaseException]) -> bool:
    """Whether one of `kinds` is behind `exc`, however requests and urllib3 wrapped it (a ConnectionError holding
    a MaxRetryError whose reason is a NewConnectionError caused by ConnectionRefusedError, say)."""
    seen: set[int] = set()
    found: list[object] = [exc]
    while found:
        error = found.pop()
        if not isinstance(error, BaseException) or id(error) in seen or len(seen) > 16:
            continue
        if isinstance(error, kinds):
            return True
        if isinstance(error, ssl.SSLError):
            return False   # a certificate refused is no fault of the way: sending again would not help
        seen.add(id(error))
        found += [getattr(error, "reason", None), error.__cause__, error.__context__, *error.args]
    return False


def _short_read(exc: BaseException) -> str | None:
    """"10 of 1000 bytes" for a body that ended before its Content-Length, wherever urllib3 wrapped that."""
    for arg in (exc, *exc.args):
        if isinstance(arg, urllib3.exceptions.IncompleteRead):
            return f"{arg.partial} of {arg.partial + arg.expected} bytes"
    return None


def _reason(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) < 200 else text[:200] + "…"
