"""The transport's overrides of requests, urllib3 and http.client (conformance/clients/deadline.py), one by one.

`make test` runs this file on the newest versions the venv holds and again on the oldest pyproject.toml allows
(REQUESTS_OLDEST, URLLIB3_OLDEST in the Makefile): each override reaches into code those libraries may change.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import ssl
import subprocess
import threading
import time
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import pytest
import requests

from conformance.clients.deadline import (GRACE_SECONDS, DeadlineAdapter, _HTTPConnection, _HTTPConnectionPool,
                                          _HTTPSConnection, _HTTPSConnectionPool, cut_every_wait, deadline_session,
                                          is_watchdog, watching, why_silent)
from conformance.clients.http import HttpSession, Limits
from conformance.errors import TargetUnreachable


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stopped: threading.Event


class _Handler(BaseHTTPRequestHandler):
    """Answers by the last segment of the path (a proxied request's path is the whole URL)."""

    # keep-alive: what one answer leaves on the connection would be read by the next request
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        kind = urlsplit(self.path).path.rsplit("/", 1)[-1]
        if kind == "trickle-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Padding: ")
            for _ in range(100):
                if self.server.stopped.wait(0.1):
                    break
                self.wfile.write(b"a")
                self.wfile.flush()
            self.close_connection = True
        elif kind == "silent":
            self.server.stopped.wait(10)
            self.close_connection = True
        elif kind == "early-hints":
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                             b"HTTP/1.1 102 Processing\r\n\r\n")
            self._send(200, {"answer": "final"})
        elif kind == "continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self._send(200, {"answer": "final"})
        elif kind == "redirect-nowhere":
            self._send(302, {"moved": True}, {"Location": "http://[::1"})
        elif kind == "set-cookie":
            self._send(200, {}, {"Set-Cookie": "session=abc; Path=/"})
        else:
            self._send(200, {"path": self.path, "port": self.client_address[1], "cookie": self.headers.get("Cookie")})

    def _send(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        for name, text in {"Content-Type": "application/json", "Content-Length": str(len(body)),
                           **(headers or {})}.items():
            self.send_header(name, text)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _serve(context: ssl.SSLContext | None = None) -> tuple[_Server, str]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.stopped = threading.Event()
    httpd.handle_error = lambda *args: None  # type: ignore[method-assign]  # clients hang up on purpose here
    if context is not None:
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"{'https' if context else 'http'}://127.0.0.1:{httpd.server_address[1]}"


def _stop(httpd: _Server) -> None:
    httpd.stopped.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd, url = _serve()
    yield url
    _stop(httpd)


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An HTTPS server and the certificate that signs it (its own)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl not found: the HTTPS connection is not tested (install openssl)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    httpd, url = _serve(context)
    yield url, cert
    _stop(httpd)


def _adapter(session: HttpSession, url: str) -> DeadlineAdapter:
    return cast(DeadlineAdapter, session.session.get_adapter(url))


# One write ----------------------------------------------------------------------------------------------------------

class _RecordingSocket:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def settimeout(self, timeout: float | None) -> None:
        pass


@pytest.mark.parametrize("connection_class", [_HTTPConnection, _HTTPSConnection])
@pytest.mark.parametrize("body", [b'{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0"}', None])
def test_headers_and_body_leave_in_one_write(connection_class: type[Any], body: bytes | str | None) -> None:
    connection = connection_class("target.invalid", 80)
    connection.sock = sock = _RecordingSocket()
    connection.request("POST" if body else "GET", "/ext/info", body=body, headers={"X-Case": "1"})
    assert len(sock.writes) == 1
    head, _, sent = sock.writes[0].partition(b"\r\n\r\n")
    assert b"X-Case: 1" in head and sent == (body.encode() if isinstance(body, str) else body or b"")


def test_a_body_read_from_a_file_is_still_sent_after_the_headers() -> None:
    connection = _HTTPConnection("target.invalid", 80)
    connection.sock = sock = _RecordingSocket()  # type: ignore[assignment]  # a socket that records
    connection.request("POST", "/upload", body=io.BytesIO(b"abc"), headers={"Content-Length": "3"})
    assert b"".join(sock.writes).endswith(b"\r\n\r\nabc")


# The deadline of the status line and headers ------------------------------------------------------------------------

def test_trickling_headers_are_cut_off_at_the_deadline(server: str) -> None:
    with deadline_session() as session:
        started = time.monotonic()
        with watching(started + 0.5) as watch:
            # the headers cut short may read as an answer, or as a broken one: the watch says which it was
            with contextlib.suppress(requests.exceptions.RequestException):
                session.get(server + "/trickle-headers", timeout=(2, 2), stream=True).close()
        assert watch.fired and time.monotonic() - started < 0.5 + GRACE_SECONDS + 1.0
    assert why_silent(server + "/trickle-headers", 0.5) == "no status line and headers within 0.5 s"


def test_headers_in_time_are_left_alone(server: str) -> None:
    with deadline_session() as session, watching(time.monotonic() + 5) as watch:
        assert session.get(server + "/ok", timeout=(2, 2)).json()["path"] == "/ok"
    assert not watch.fired
    assert why_silent(server + "/ok", 0.5) is None


def test_a_stop_cuts_off_every_request_waiting_for_its_headers(server: str) -> None:
    ended: list[float] = []

    def waiting() -> None:
        with deadline_session() as session, watching(time.monotonic() + 30):
            try:
                session.get(server + "/silent", timeout=(2, 30), stream=True)
            except requests.exceptions.RequestException:
                ended.append(time.monotonic())

    thread = threading.Thread(target=waiting)
    thread.start()
    time.sleep(0.3)
    stopped = time.monotonic()
    cut_every_wait()
    thread.join(timeout=5)
    assert ended and ended[0] - stopped < 2


def test_the_watchdog_tells_its_own_thread(server: str) -> None:
    with deadline_session() as session, watching(time.monotonic() + 5):
        session.get(server + "/ok", timeout=(2, 2))
    assert [thread for thread in threading.enumerate() if is_watchdog(thread)]
    assert not is_watchdog(threading.current_thread())


# The final answer ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/early-hints", "/continue"])
def test_interim_answers_are_read_past_and_the_next_request_gets_its_own_answer(server: str, path: str) -> None:
    http = HttpSession()
    first = http.request("GET", server + path)
    assert (first.status, first.json()) == (200, {"answer": "final"})
    second = http.request("GET", server + "/after")
    assert second.json()["path"] == "/after"


# What requests would do on its own ----------------------------------------------------------------------------------

def test_a_redirect_is_left_to_the_caller_even_one_that_leads_nowhere(server: str) -> None:
    with deadline_session() as session:
        response = session.get(server + "/redirect-nowhere", allow_redirects=False)
    assert response.status_code == 302 and response.next is None


def test_a_cookie_the_target_sets_is_not_sent_back(server: str) -> None:
    http = HttpSession()
    http.request("GET", server + "/set-cookie")
    assert http.request("GET", server + "/cookie").json()["cookie"] is None


def test_an_origin_s_pool_is_looked_up_once_and_again_once_closed(server: str) -> None:
    http = HttpSession()
    ports = {http.request("GET", server + f"/ok/{n}").json()["port"] for n in range(3)}
    assert len(ports) == 1   # one keep-alive connection
    adapter = _adapter(http, server)
    assert [type(pool) for pool in adapter._direct_pools.values()] == [_HTTPConnectionPool]
    adapter.poolmanager.clear()   # closes every pool, as the manager does to the ones it no longer keeps
    assert http.request("GET", server + "/ok").json()["path"] == "/ok"
    assert all(pool.pool is not None for pool in adapter._direct_pools.values())
    http.close()
    assert adapter._direct_pools == {}


def test_a_proxy_carries_the_request_and_the_deadline_holds_through_it(server: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server)
    http = HttpSession(Limits(read_timeout=0.5))
    # The test server, as a proxy, is asked for the absolute URL; without a proxy the path alone is sent.
    assert http.request("GET", "http://target.invalid/ok").json()["path"] == "http://target.invalid/ok"
    assert _adapter(http, server)._direct_pools == {}
    started = time.monotonic()
    with pytest.raises(TargetUnreachable, match="status line and headers did not arrive within 0.5 s"):
        http.request("GET", "http://target.invalid/trickle-headers")
    assert time.monotonic() - started < 0.5 + GRACE_SECONDS + 1.0


def test_an_https_origin_is_reached_with_its_certificate_checked(tls_server: tuple[str, Path]) -> None:
    url, cert = tls_server
    http = HttpSession(Limits(read_timeout=0.5))
    http.session.verify = str(cert)
    assert http.request("GET", url + "/ok").json()["path"] == "/ok"
    assert [type(pool) for pool in _adapter(http, url)._direct_pools.values()] == [_HTTPSConnectionPool]
    with pytest.raises(TargetUnreachable, match="status line and headers did not arrive within 0.5 s"):
        http.request("GET", url + "/trickle-headers")
    unchecked = HttpSession()
    with pytest.raises(TargetUnreachable, match="cannot connect"):
        unchecked.request("GET", url + "/ok")   # the certificate is no public authority's


# The versions under test --------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("package", "variable"), [("requests", "REQUESTS_OLDEST"), ("urllib3", "URLLIB3_OLDEST")])
def test_the_oldest_versions_tested_are_the_oldest_allowed(package: str, variable: str) -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    floors = [re.fullmatch(rf"{package}>=([\d.]+),<\d+", dependency) for dependency in dependencies]
    floor = next(found.group(1) for found in floors if found)
    tested = re.search(rf"^{variable}\s*:=\s*(\S+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert tested is not None

    def parts(version: str) -> tuple[int, ...]:
        numbers = [int(part) for part in version.split(".")]
        return tuple(numbers + [0] * (3 - len(numbers)))
    assert parts(tested.group(1)) == parts(floor)
