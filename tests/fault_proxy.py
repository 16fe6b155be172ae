"""A proxy on 127.0.0.1 that fails now and then as the way to a real node does: a restart that refuses connections
for a few seconds, a load balancer that cuts an answer off mid-body and closes the connection.

Everything else it forwards unchanged to a loopback upstream (the reference target), so a run through it should
decide every rule as a run without it.
"""
from __future__ import annotations

import contextlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from benchmarks.delay_proxy import ForwardingHandler, QuietServer


class FaultProxy:
    """Forwards to `upstream`; after `refuse_after` requests it goes away for `refuse_for` seconds (connections open
    are closed, new ones refused), and every `cut_every`-th answer stops halfway through its body."""

    def __init__(self, upstream: str, *, refuse_after: int | None = None, refuse_for: float = 3.0,
                 cut_every: int | None = None) -> None:
        parts = urlsplit(upstream)
        if parts.hostname not in ("127.0.0.1", "localhost"):
            raise ValueError(f"the fault proxy forwards to loopback only, not {parts.hostname}")
        self.upstream = (parts.hostname, parts.port or 80)
        self.refuse_after = refuse_after
        self.refuse_for = refuse_for
        self.cut_every = cut_every
        self.requests = 0      # requests received, answered or not
        self.cut = 0           # answers cut off
        self.went_down = 0     # times it stopped listening
        self.connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._httpd: ThreadingHTTPServer | None = self._listen(0)
        self.port = int(self._httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"

    def _listen(self, port: int) -> ThreadingHTTPServer:
        httpd = QuietServer(("127.0.0.1", port), _handler(self))
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                         name="fault-proxy").start()
        return httpd

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stopped.set()
        with self._lock:
            httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def arrived(self) -> str:
        """What to do with the request that just arrived: "forward", "cut" its answer, or "drop" it (the proxy
        goes away with it)."""
        with self._lock:
            self.requests += 1
            number = self.requests
        if self.refuse_after is not None and number == self.refuse_after + 1:
            self._go_away()
            return "drop"
        if self.cut_every and number % self.cut_every == 0:
            with self._lock:
                self.cut += 1
            return "cut"
        return "forward"

    def _go_away(self) -> None:
        """Stops listening (connections are refused), resets what is open, and listens again later, on the same
        port, as a node does that restarts."""
        with self._lock:
            httpd, self._httpd = self._httpd, None
            self.went_down += 1
        if httpd is None:
            return

        def close() -> None:
            httpd.shutdown()
            httpd.server_close()
        threading.Thread(target=close, daemon=True).start()
        for connection in list(self.connections):
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

        def come_back() -> None:
            if not self._stopped.wait(self.refuse_for):
                with self._lock:
                    self._httpd = self._listen(self.port)
        threading.Thread(target=come_back, daemon=True).start()


def _handler(proxy: FaultProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(ForwardingHandler):
        upstream_address = proxy.upstream

        def setup(self) -> None:
            super().setup()
            proxy.connections.add(self.connection)

        def finish(self) -> None:
            proxy.connections.discard(self.connection)
            with contextlib.suppress(OSError):
                super().finish()

        def _forward(self) -> None:
            body, headers = self.request_parts()
            what = proxy.arrived()
            if what == "drop":
                self.close_connection = True
                return
            status, reason, answer_headers, answer = self.ask(body, headers)
            # A cut answer promises its whole length (at least a byte) and stops halfway.
            self.send_head(status, reason, answer_headers, max(len(answer), 1) if what == "cut" else len(answer))
            if what == "cut":
                self.wfile.write(answer[:len(answer) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(answer)

        do_GET = do_POST = _forward

    return Handler
