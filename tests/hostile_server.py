"""A misbehaving target for the self-tests: one behaviour per instance, on 127.0.0.1 and a free port.

Where a behaviour answers normally it answers as the reference target does (same world, same routes), so a run
against it can pass, and whatever goes wrong is the misbehaviour's doing.
"""
from __future__ import annotations

import contextlib
import json
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from werkzeug.test import Client

from conformance.reference.server import ReferenceApp
from conformance.reference.world import World

BEHAVIOURS = ("normal", "slow", "refuse", "stall", "trickle", "trickle-headers", "cut", "html", "bad-utf8", "deep-json",
              "huge", "huge-length", "429", "429-always", "503-bursts", "503-always", "503-json", "redirect-loop",
              "redirect-endless-body", "echo-key", "surrogate-escape", "early-hints", "restart", "reset-sometimes",
              "tls", "bloated", "not-http")
HUGE_BYTES = 50 * 1024 * 1024
_BLOCK = b" " * (1024 * 1024)
HTML = b"<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>"


@dataclass(frozen=True)
class Hit:
    """One request the server saw, and the status its misbehaviour chose (None: answered as the reference does,
    or not at all)."""

    at: float
    method: str
    path: str
    status: int | None


class HostileServer:
    """Serves one misbehaviour; `hits` records every request, `stop()` releases stalled and trickling answers."""

    def __init__(self, behaviour: str, *, throttled: int = 2, burst: tuple[int, int] = (2, 5), seed: int = 0,
                 huge_bytes: int = HUGE_BYTES, delay: float = 0.25, restart: tuple[int, float] = (30, 2.0),
                 every: int = 7) -> None:
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {behaviour!r}; choose from {', '.join(BEHAVIOURS)}")
        self.behaviour = behaviour
        self.throttled = throttled        # 429: requests answered 429 before normal answers begin
        self.burst = burst                # 503-bursts: the first n of every m requests are 503
        self.huge_bytes = huge_bytes
        self.delay = delay                # slow: seconds before each normal answer
        self.restart = restart            # restart: after this many requests, nothing listens for this long
        self.every = every                # reset-sometimes: every n-th answer is cut off by a reset mid-body
        self.connections: set[socket.socket] = set()   # the clients' open connections
        self.world = World(seed)
        self.app = ReferenceApp(self.world)
        self.hits: list[Hit] = []
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        if behaviour == "refuse":
            self.port = _free_port()
        else:
            self._httpd = self._listen(0)
            self.port = int(self._httpd.server_address[1])

    def _listen(self, port: int) -> ThreadingHTTPServer:
        httpd = _Server(("127.0.0.1", port), _Handler)
        httpd.hostile = self  # type: ignore[attr-defined]  # the server's link to its behaviour
        if self.behaviour == "tls":
            httpd.socket = _tls_context().wrap_socket(httpd.socket, server_side=True)
        return httpd

    @property
    def url(self) -> str:
        return f"{'https' if self.behaviour == 'tls' else 'http'}://127.0.0.1:{self.port}"

    def statuses(self) -> list[int | None]:
        with self._lock:
            return [hit.status for hit in self.hits]

    def start(self) -> HostileServer:
        if self._httpd is not None:
            self._serve(self._httpd)
        return self

    def _serve(self, httpd: ThreadingHTTPServer) -> None:
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True,
                         name=f"hostile-{self.behaviour}").start()

    def go_down(self) -> None:
        """restart: stops listening (connections are refused), and listens again on the same port later."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        def stop() -> None:
            httpd.shutdown()
            httpd.server_close()

        threading.Thread(target=stop, daemon=True).start()
        for connection in list(self.connections):   # a process that goes down resets what it had open
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

        def come_back() -> None:
            if not self.stopped.wait(self.restart[1]):
                self._httpd = self._listen(self.port)
                self._serve(self._httpd)
        threading.Thread(target=come_back, daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def choose(self, method: str, path: str) -> str:
        """The answer to this request: the behaviour itself, or "normal" where the behaviour lets one through."""
        with self._lock:
            number = len(self.hits) + 1
            if self.behaviour == "429":
                answer = "429-always" if number <= self.throttled else "normal"
            elif self.behaviour == "503-bursts":
                answer = "503-always" if (number - 1) % self.burst[1] < self.burst[0] else "normal"
            elif self.behaviour == "restart":
                answer = "normal"
                if number == self.restart[0]:
                    self.go_down()
            elif self.behaviour == "reset-sometimes":
                answer = "reset" if number % self.every == 0 else "normal"
            elif self.behaviour == "tls":
                answer = "normal"
            elif self.behaviour == "bloated":
                answer = "bloated" if not path.startswith("/ext/") else "normal"
            else:
                answer = self.behaviour
            status = {"normal": None, "slow": None, "stall": None, "trickle": 200, "trickle-headers": 200, "cut": 200,
                      "html": 200, "bad-utf8": 200, "deep-json": 200, "not-http": None,
                      "huge": 200, "huge-length": 200, "429-always": 429, "503-always": 503, "503-json": 503,
                      "redirect-loop": 302, "redirect-endless-body": 302, "echo-key": 400,
                      "surrogate-escape": 200, "early-hints": None, "reset": 200, "bloated": None}[answer]
            self.hits.append(Hit(time.monotonic(), method, path, status))
            return answer


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # stalled and trickling answers must not hold the test process at exit

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: clients that hang up on a misbehaving answer are the point, not a problem."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hostile/1"

    def setup(self) -> None:
        super().setup()
        self.hostile.connections.add(self.connection)

    def finish(self) -> None:
        self.hostile.connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def log_message(self, *args: Any) -> None:
        pass

    @property
    def hostile(self) -> HostileServer:
        return self.server.hostile  # type: ignore[attr-defined]  # the server's link to its behaviour

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        answer = self.hostile.choose(self.command, self.path)
        try:
            getattr(self, "_" + answer.replace("-", "_"))(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up: exactly what the misbehaviours are for

    def _normal(self, body: bytes) -> None:
        reply = Client(self.hostile.app).open(self.path, method=self.command, data=body,
                                              headers={"Content-Type": self.headers.get("Content-Type", "")})
        self._send(reply.status_code, reply.get_data(), reply.headers.get("Content-Type", "application/json"))

    def _early_hints(self, body: bytes) -> None:
        """Two interim answers before the real one: a client that takes the first for the answer reads garbage."""
        self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                         b"HTTP/1.1 102 Processing\r\n\r\n")
        self._normal(body)

    def _reset(self, body: bytes) -> None:
        """Half an answer, then the connection reset (RST, not an orderly close)."""
        self._head(200, "application/json", {"Content-Length": "1000"})
        self.wfile.write(b'{"jsonrpc":"2.0","id":1,"result"')
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def _bloated(self, body: bytes) -> None:
        """The reference's answer with one more member: a string of `huge_bytes` (a REST answer's object)."""
        reply = Client(self.hostile.app).open(self.path, method=self.command, data=body,
                                              headers={"Content-Type": self.headers.get("Content-Type", "")})
        data = reply.get_data()
        if reply.status_code == 200 and data.startswith(b"{"):
            data = b'{"padding":"' + b"x" * self.hostile.huge_bytes + b'",' + data[1:]
        self._send(reply.status_code, data, reply.headers.get("Content-Type", "application/json"))

    def _slow(self, body: bytes) -> None:
        if not self.hostile.stopped.wait(self.hostile.delay):
            self._normal(body)

    def _stall(self, body: bytes) -> None:
        self.hostile.stopped.wait()
        self.close_connection = True

    def _trickle(self, body: bytes) -> None:
        self._head(200, "application/json", {"Content-Length": "1000000"})
        self.wfile.write(b"[")
        while not self.hostile.stopped.wait(0.5):
            self.wfile.write(b" ")
            self.wfile.flush()
        self.close_connection = True

    def _trickle_headers(self, body: bytes) -> None:
        """A status line, then one header that never ends: each byte arrives well within a read timeout."""
        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Padding: ")
        while not self.hostile.stopped.wait(0.2):
            self.wfile.write(b"a")
            self.wfile.flush()
        self.close_connection = True

    def _cut(self, body: bytes) -> None:
        self._head(200, "application/json", {"Content-Length": "1000"})
        self.wfile.write(b'{"jsonrpc"')
        self.wfile.flush()
        self.close_connection = True

    def _html(self, body: bytes) -> None:
        self._send(200, HTML, "text/html; charset=utf-8")

    def _not_http(self, body: bytes) -> None:
        """Bytes that are no status line: a service of another protocol on the port."""
        self.wfile.write(b"\x00\x01 220 mail.example.org ready\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def _deep_json(self, body: bytes) -> None:
        """Valid JSON nested far deeper than any answer: a parser that recurses must not crash the run."""
        self._send(200, b"[" * 100_000 + b"]" * 100_000, "application/json")

    def _bad_utf8(self, body: bytes) -> None:
        self._send(200, b'{"jsonrpc":"2.0","id":1,"result":"\xff\xfe\xc3(","nextPageToken":"\xed\xa0\x80"}',
                   "application/json")

    def _huge(self, body: bytes) -> None:
        """A JSON array of 50 MB, streamed without a length so that only a cap while reading stops it."""
        self._head(200, "application/json", {"Connection": "close"})
        self._stream_huge()

    def _huge_length(self, body: bytes) -> None:
        self._head(200, "application/json", {"Content-Length": str(self.hostile.huge_bytes)})
        self._stream_huge()

    def _stream_huge(self) -> None:
        self.close_connection = True
        self.wfile.write(b"[")
        left = self.hostile.huge_bytes - 2
        while left > 0 and not self.hostile.stopped.is_set():
            self.wfile.write(_BLOCK[:min(left, len(_BLOCK))])
            left -= len(_BLOCK)
        self.wfile.write(b"]")

    def _429_always(self, body: bytes) -> None:
        self._send(429, b'{"message":"Too Many Requests","statusCode":429,"error":"Too Many Requests"}',
                   "application/json", {"Retry-After": "1"})

    def _503_always(self, body: bytes) -> None:
        self._send(503, b"<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>", "text/html")

    def _503_json(self, body: bytes) -> None:
        """A gateway whose node is gone: every answer a 503 with a JSON body, as the Data API documents errors."""
        self._send(503, b'{"message":"Service Unavailable","statusCode":503,"error":"Service Unavailable"}',
                   "application/json")

    def _redirect_loop(self, body: bytes) -> None:
        self._send(302, b"", "text/plain", {"Location": self.path})

    def _redirect_endless_body(self, body: bytes) -> None:
        """A redirect whose body never ends: nothing may read a redirect's body past the cap."""
        self._head(302, "text/html", {"Location": "/elsewhere", "Connection": "close"})
        self.close_connection = True
        while not self.hostile.stopped.is_set():
            self.wfile.write(_BLOCK)

    def _echo_key(self, body: bytes) -> None:
        """A refusal that echoes every request header, the key among them, in its body and its Server header."""
        sent = {name.lower(): value for name, value in self.headers.items()}
        echoed = json.dumps({"message": f"invalid request: {sent}", "statusCode": 400, "error": "Bad Request",
                             "headers": sent}).encode()
        self.server_version = "gateway/" + sent.get("x-data-api-key", "-")
        self._send(400, echoed, "application/json")

    def _surrogate_escape(self, body: bytes) -> None:
        """Lone surrogate escapes: valid JSON grammar, yet no UTF-8 writer can write the strings they make."""
        self._send(200, b'{"jsonrpc":"2.0","id":1,"result":{"k\\ud800":"\\udc00x"},'
                        b'"k\\ud800":"\\ud800","blockchains":[{"blockchainId":"\\udfff"}]}', "application/json")

    def _head(self, status: int, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self._head(status, content_type, {"Content-Length": str(len(data)), **(headers or {})})
        self.wfile.write(data)


def _tls_context() -> ssl.SSLContext:
    """A server context with a self-signed certificate, which no client that verifies certificates accepts."""
    folder = Path(tempfile.mkdtemp(prefix="hostile-tls-"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
                   check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


def _free_port() -> int:
    """A port nothing listens on (taken from the kernel, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
