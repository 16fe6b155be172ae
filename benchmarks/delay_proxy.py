"""A proxy on 127.0.0.1 that adds a fixed delay to every answer: a target as far away as a real one.

Each client connection gets its own thread and its own keep-alive connection to the upstream, so requests in
flight overlap as they would over a network; the proxy counts what it forwarded and how many were in flight at
once. It forwards to loopback upstreams only and stops by itself after `lifetime` seconds.
"""
from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

#: Hop-by-hop headers (RFC 9110 §7.6.1) and the length, which the proxy sets itself.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
                  "content-length"})


class DelayProxy:
    """Forwards every request to `upstream` (a loopback URL) and answers `delay` seconds after the upstream did."""

    def __init__(self, upstream: str, delay: float, *, lifetime: float = 3600.0, swap_every: int | None = None) -> None:
        parts = urlsplit(upstream)
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"the delay proxy forwards to loopback only, not {parts.hostname}")
        self.upstream = (parts.hostname, parts.port or 80)
        self.delay = delay
        self.lifetime = lifetime
        # Every n-th answer is replaced by the answer before it (to another request): a load balancer's odd node.
        self.swap_every = swap_every
        self.swapped = 0
        self._previous: tuple[int, str, list, bytes] | None = None
        self.forwarded = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = QuietServer(("127.0.0.1", 0), _handler(self))
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="delay-proxy", daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def start(self) -> DelayProxy:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> DelayProxy:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _entered(self) -> None:
        with self._lock:
            self.forwarded += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _left(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _answered(self, answer: tuple[int, str, list, bytes]) -> tuple[int, str, list, bytes]:
        """The answer to send: this one, or, every `swap_every`-th, the one before it."""
        with self._lock:
            previous, self._previous = self._previous, answer
            if self.swap_every and previous is not None and self.forwarded % self.swap_every == 0:
                self.swapped += 1
                return previous
        return answer


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that goes away (a run ending with connections open), or a connection a proxy cut itself, is not
        worth a traceback."""


class ForwardingHandler(BaseHTTPRequestHandler):
    """What a proxy's handler forwards with: its own keep-alive connection to `upstream_address`."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: with Nagle's algorithm on, the body would wait for the
    # client's delayed acknowledgement of the headers (about 40 ms on Linux) and the delay would not be ours.
    disable_nagle_algorithm = True
    upstream_address: tuple[str, int]
    upstream: http.client.HTTPConnection | None = None

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def request_parts(self) -> tuple[bytes | None, dict[str, str]]:
        """The request's body and the headers to forward."""
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        return body, {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}

    def ask(self, body: bytes | None, headers: dict[str, str]) -> tuple[int, str, list, bytes]:
        """The upstream's answer to this request: status, reason, headers and body."""
        for attempt in (1, 2):   # a kept-alive upstream connection may have been closed in between
            if self.upstream is None:
                self.upstream = http.client.HTTPConnection(*self.upstream_address, timeout=60)
            try:
                self.upstream.request(self.command, self.path, body=body, headers=headers)
                response = self.upstream.getresponse()
                return response.status, response.reason, response.getheaders(), response.read()
            except (OSError, http.client.HTTPException):
                self.upstream.close()
                self.upstream = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def send_head(self, status: int, reason: str, headers: list, length: int) -> None:
        """The answer's status line and headers, its length as given."""
        self.send_response(status, reason)
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            if self.upstream is not None:
                self.upstream.close()


def _handler(proxy: DelayProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(ForwardingHandler):
        upstream_address = proxy.upstream

        def _forward(self) -> None:
            body, headers = self.request_parts()
            proxy._entered()
            try:
                status, reason, answer_headers, answer = proxy._answered(self.ask(body, headers))
                time.sleep(proxy.delay)
            finally:
                proxy._left()
            self.send_head(status, reason, answer_headers, len(answer))
            if self.command != "HEAD":
                self.wfile.write(answer)

        def __getattr__(self, name: str) -> Any:
            # Every method is forwarded, those generated requests send to see them refused (TRACE, QUERY) too.
            if name.startswith("do_"):
                return self._forward
            raise AttributeError(name)

    return Handler
