"""The HTTP session: recorded exchanges, reproducers without secrets, 429 waited out, bodies capped."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from conformance.clients.http import SECRET_PLACEHOLDER, HttpSession, Limits
from conformance.clients.rest import RestClient
from conformance.errors import BudgetExhausted, SuiteError, TargetUnreachable


class _Script(BaseHTTPRequestHandler):
    """Answers by path: /ok, /429-once, /big."""

    hits: dict[str, int] = {}

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        _Script.hits[self.path] = _Script.hits.get(self.path, 0) + 1
        if self.path.startswith("/429-once") and _Script.hits[self.path] == 1:
            self._send(429, b'{"message":"slow down","statusCode":429,"error":"Too Many Requests"}',
                       {"Retry-After": "0"})
        elif self.path.startswith("/big"):
            self._send(200, b"[" + b"1," * 600_000 + b"1]")
        else:
            self._send(200, json.dumps({"path": self.path}).encode())

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", "Content-Length": str(len(body)),
                            **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Script)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_the_api_key_is_sent_but_reproducers_show_a_placeholder(server: str) -> None:
    http = HttpSession(secret_headers={"x-data-api-key": "very-secret-key"})
    exchange = RestClient(http, server, send_key=True).get("/ok", {"pageToken": "tok123"})
    assert "very-secret-key" not in exchange.curl() and "very-secret-key" not in repr(exchange)
    assert SECRET_PLACEHOLDER in exchange.curl() and "pageToken=tok123" in exchange.curl()


def test_a_429_is_waited_out_and_retried(server: str) -> None:
    http = HttpSession()
    exchange = http.request("GET", server + "/429-once/a")
    assert exchange.status == 200 and http.requests_sent == 2


def test_a_body_over_the_cap_is_a_suite_error(server: str) -> None:
    http = HttpSession(Limits(max_body_bytes=100_000))
    with pytest.raises(SuiteError, match="larger than"):
        http.request("GET", server + "/big")


def test_the_request_budget_is_enforced(server: str) -> None:
    http = HttpSession(Limits(max_requests=2))
    http.request("GET", server + "/ok")
    http.request("GET", server + "/ok")
    with pytest.raises(BudgetExhausted):
        http.request("GET", server + "/ok")


def test_the_rate_limit_spaces_requests(server: str) -> None:
    http = HttpSession(Limits(rate_limit=20))
    started = time.monotonic()
    for _ in range(5):
        http.request("GET", server + "/ok")
    assert time.monotonic() - started >= 0.19


def test_a_refused_connection_is_target_unreachable() -> None:
    with pytest.raises(TargetUnreachable):
        HttpSession(Limits(connect_timeout=1)).request("GET", "http://127.0.0.1:9/")
