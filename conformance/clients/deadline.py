"""The one module that overrides parts of requests, urllib3 and http.client: a deadline for the whole wait for an
answer's status line and headers, and what else the client's transport changes in them.

A socket timeout bounds each read, so a server that trickles its status line and headers a byte at a time
would hold a request for ever. While a request waits for its headers, a watchdog shuts the connection's socket
down when the exchange's time is up; the session reads the body against the same deadline itself.

Every override of another library's classes lives here, and works on every version of requests and urllib3 that
pyproject.toml allows: `tests/test_transport_adapter.py` proves each one, and `make test` runs it on the oldest
of both too (REQUESTS_OLDEST, URLLIB3_OLDEST).
"""
from __future__ import annotations

import functools
import http.client
import itertools
import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, cast
from collections.abc import Callable, Iterator, Mapping
from urllib.parse import urlsplit

import requests.adapters
import requests.structures
import requests.utils
import urllib3
import urllib3.connection

_current = threading.local()
#: The watchdog acts this long after the deadline, so that a socket timeout ending at the same moment (a server
#: that sends nothing at all) is reported as what it is.
GRACE_SECONDS = 0.25


class Watch:
    """The deadline of one exchange, and whether the watchdog had to cut its connection."""

    def __init__(self, ends: float) -> None:
        self.ends = ends
        self.fired = False


@contextmanager
def watching(ends: float) -> Iterator[Watch]:
    """Headers of the requests this thread sends inside the block must arrive before `ends` (time.monotonic)."""
    watch = Watch(ends)
    _current.watch = watch
    try:
        yield watch
    finally:
        _current.watch = None


class _Watchdog:
    """One thread for every armed deadline; arming is cheap because the usual new deadline is the latest."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._armed: dict[int, tuple[float, Callable[[], None]]] = {}
        self._keys = itertools.count()
        self._wake_at = float("inf")
        self._thread: threading.Thread | None = None

    def arm(self, ends: float, action: Callable[[], None]) -> int:
        with self._lock:
            key = next(self._keys)
            self._armed[key] = (ends, action)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="conformance-deadlines", daemon=True)
                self._thread.start()
            if ends < self._wake_at:
                self._lock.notify()
        return key

    def owns(self, thread: threading.Thread) -> bool:
        return thread is self._thread

    def disarm(self, key: int) -> None:
        with self._lock:
            self._armed.pop(key, None)

    def fire_all(self) -> None:
        """Acts on every armed deadline now (the run is stopping)."""
        with self._lock:
            actions = [action for _, action in self._armed.values()]
            self._armed.clear()
        for action in actions:
            action()

    def _run(self) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                due = [key for key, (ends, _) in self._armed.items() if ends <= now]
                actions = [self._armed.pop(key)[1] for key in due]
                if not actions:
                    self._wake_at = min((ends for ends, _ in self._armed.values()), default=float("inf"))
                    self._lock.wait(None if self._wake_at == float("inf") else self._wake_at - now)
                    self._wake_at = float("inf")
                    continue
            for action in actions:
                action()


_WATCHDOG = _Watchdog()


def cut_every_wait() -> None:
    """Cuts off every request still waiting for its status line and headers (the run is stopping)."""
    _WATCHDOG.fire_all()


def is_watchdog(thread: threading.Thread) -> bool:
    """Whether `thread` is the client's own: the one thread that watches every deadline."""
    return _WATCHDOG.owns(thread)


class _Watched:
    sock: socket.socket | None

    def getresponse(self) -> Any:
        watch: Watch | None = getattr(_current, "watch", None)
        if watch is None:
            return super().getresponse()  # type: ignore[misc]  # a mixin: the connection class has it
        key = _WATCHDOG.arm(watch.ends + GRACE_SECONDS, lambda: self._time_up(watch))
        try:
            return super().getresponse()  # type: ignore[misc]  # a mixin: the connection class has it
        finally:
            _WATCHDOG.disarm(key)

    def _time_up(self, watch: Watch) -> None:
        watch.fired = True
        sock = self.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _OneWrite:
    """A request's headers and body go out in one write, as http.client itself sends them, not two.

    urllib3 writes the body after the headers; on a connection without Nagle's delay that is two segments, and
    the server wakes for headers it cannot act on until the body follows (about a tenth of a small request's
    time against a target on the same machine)."""

    _held: bytes | None = None
    _holding = False

    def request(self, method: str, url: str, body: Any = None, headers: Any = None, **kwargs: Any) -> None:
        self._holding, self._held = isinstance(body, (bytes, str)) and bool(body), None
        try:
            super().request(method, url, body=body, headers=headers, **kwargs)  # type: ignore[misc]  # a mixin: the connection class has it
            if self._held is not None:   # no body followed the headers after all
                super().send(self._held)
        finally:
            self._holding, self._held = False, None

    def send(self, data: Any) -> None:
        if self._holding:
            if self._held is None:
                self._held = data    # the headers: held until the body comes
                return
            data, self._holding, self._held = self._held + data, False, None
        super().send(data)  # type: ignore[misc]  # a mixin: the connection class has it


class _FinalAnswer(http.client.HTTPResponse):
    """An answer read past any interim one: http.client skips `100 Continue` only, and would take a `103 Early
    Hints` (or any other 1xx) for the final answer and leave the real one on the connection for the next
    request. Interim answers carry no body (RFC 9110 §15.2): their status line and headers are skipped."""

    # The one private part of http.client overridden: begin() reads every status line through it
    # (tests/test_transport_adapter.py proves it on the Python that runs the self-tests).
    def _read_status(self) -> tuple[str, int, str]:
        while True:
            version, status, reason = super()._read_status()  # type: ignore[misc]  # http.client's own reader
            if status < 100 or status >= 200 or status in (100, 101):
                return version, status, reason   # 100 is skipped by http.client itself, 101 switches protocols
            http.client.parse_headers(self.fp)   # the interim answer's headers, read past


class _HTTPConnection(_Watched, _OneWrite, urllib3.connection.HTTPConnection):
    response_class = _FinalAnswer


class _HTTPSConnection(_Watched, _OneWrite, urllib3.connection.HTTPSConnection):
    response_class = _FinalAnswer


class _HTTPConnectionPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSConnectionPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS = {"http": _HTTPConnectionPool, "https": _HTTPSConnectionPool}


class DeadlineAdapter(requests.adapters.HTTPAdapter):
    """requests' adapter whose connections honour the deadline of `watching`.

    It also takes costs off every request, about a sixth of the client's time against a target on the same
    machine: the connection pool of an origin reached without a proxy is looked up once, not worked out again
    from the request's URL (nor is the URL parsed to find that no proxy applies), and no cookie is taken from an
    answer (the suite sends none: each request stands alone, as the curl line that reproduces it does).
    """

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS
        self._direct_pools: dict[tuple[str, str, Any], Any] = {}

    def get_connection_with_tls_context(self, request: requests.PreparedRequest, verify: Any,
                                        proxies: Mapping[str, str] | None = None, cert: Any = None) -> Any:
        """The pool of a request's origin (requests 2.32.2 and later: a pool for each TLS setting)."""
        # a request on its way to be sent has its URL
        if cert is not None or (proxies and requests.utils.select_proxy(cast(str, request.url), proxies)):
            return super().get_connection_with_tls_context(request, verify, proxies=proxies, cert=cert)
        return self._direct_pool(request.url or "", verify,
                                 functools.partial(super().get_connection_with_tls_context, request, verify))

    def get_connection(self, url: str | bytes, proxies: Mapping[str, str] | None = None) -> Any:
        """The pool of a URL's origin (requests 2.31, which sets a request's TLS settings on the pool it gets)."""
        text = url.decode("utf-8") if isinstance(url, bytes) else url
        if proxies and requests.utils.select_proxy(text, proxies):
            return super().get_connection(text, proxies)
        return self._direct_pool(text, None, functools.partial(super().get_connection, text))

    def _direct_pool(self, url: str, verify: Any, look_up: Callable[[], Any]) -> Any:
        scheme, netloc = urlsplit(url)[:2]
        key = (scheme.lower(), netloc, verify)
        pool = self._direct_pools.get(key)
        if pool is None or pool.pool is None:   # a pool the manager closed (it keeps a few) is looked up again
            pool = self._direct_pools[key] = look_up()
        return pool

    def request_url(self, request: requests.PreparedRequest, proxies: Mapping[str, str] | None) -> str:
        if not proxies:   # requests would parse the URL twice to find that no proxy applies
            return request.path_url
        return super().request_url(request, proxies)

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        response = requests.Response()
        response.status_code = resp.status
        response.headers = requests.structures.CaseInsensitiveDict(resp.headers)
        response.encoding = requests.utils.get_encoding_from_headers(response.headers)
        response.raw = resp
        response.reason = resp.reason
        # a request that was sent has its URL
        response.url = req.url.decode("utf-8") if isinstance(req.url, bytes) else cast(str, req.url)
        response.request = req
        response.connection = self
        return response

    def close(self) -> None:
        super().close()
        self._direct_pools.clear()

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = _POOLS
        return manager


class _NoRedirectSession(requests.Session):
    """A session that never looks at a redirect itself: the caller decides whether to follow one.

    With allow_redirects=False, requests still prepares the next request of a redirect (Response.next), and to
    do so reads the whole redirect body, past any body cap and deadline, and parses its Location, which
    may not parse at all.
    """

    def get_redirect_target(self, resp: requests.Response) -> None:
        return None


def deadline_session(*, connections: int = 1) -> requests.Session:
    """A requests session whose connections honour `watching`. It reads no proxy settings from the environment
    on its own: the caller passes the proxies for a URL (reading them on every request is slow).

    Each host keeps up to `connections` keep-alive connections (requests' default of 10 when fewer), one for
    each request a concurrent run has in flight."""
    session = _NoRedirectSession()
    session.trust_env = False
    for prefix in ("http://", "https://"):
        session.mount(prefix, DeadlineAdapter(pool_maxsize=max(connections, requests.adapters.DEFAULT_POOLSIZE)))
    return session


def why_silent(url: str, timeout: float) -> str | None:
    """Why `url` gives no answer at all (a connection, then a status line and headers, each within `timeout`);
    None when it answers, whatever the answer."""
    with deadline_session() as session:
        session.proxies = requests.utils.get_environ_proxies(url)
        watch = Watch(0.0)
        try:
            with watching(time.monotonic() + timeout) as watch:
                session.get(url, timeout=(timeout, timeout), allow_redirects=False, stream=True).close()
        except requests.exceptions.ConnectTimeout:
            return f"no connection within {timeout:g} s"
        except requests.exceptions.ReadTimeout:
            return f"no answer within {timeout:g} s"
        except requests.exceptions.RequestException as exc:
            if not watch.fired:
                return _unanswered(exc)
        return f"no status line and headers within {timeout:g} s" if watch.fired else None


#: What the transport's innermost error says of an endpoint that gave no answer.
_CAUSES = ((http.client.RemoteDisconnected, "it closes the connection without an answer"),
           (http.client.BadStatusLine, "what it sends is not HTTP"),
           (ConnectionRefusedError, "the connection is refused"),
           (ConnectionResetError, "the connection is reset"))


def _unanswered(exc: BaseException) -> str:
    """Why a request got no answer, from the innermost error the transport wrapped (urllib3 and requests wrap
    http.client's in their own, in their arguments or as the cause)."""
    seen: list[BaseException] = []
    pending: list[BaseException] = [exc]
    while pending and len(seen) < 20:
        found = pending.pop()
        seen.append(found)
        pending += [inner for inner in (found.__cause__, found.__context__, *found.args)
                    if isinstance(inner, BaseException) and inner not in seen]
    for kind, why in _CAUSES:
        if any(isinstance(found, kind) for found in seen):
            return why
    return type(exc).__name__.replace("Error", " error").replace("Timeout", "timeout").strip()
