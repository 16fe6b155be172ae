"""The HTTP session: recorded exchanges, reproducers without secrets, 429 and 503 waited out, bodies capped and
timed, redirects kept within the target."""
from __future__ import annotations

import base64
import email.utils
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Iterator

import pytest
import requests

from conformance.clients.http import SECRET_PLACEHOLDER, Exchange, HttpSession, Limits, NotJson, _retry_after
from conformance.clients.rest import RestClient
from conformance.errors import BudgetExhausted, RateLimited, SuiteError, TargetUnavailable, TargetUnreachable
from conformance.reporting.write import json_text

_OTHER_ORIGIN: dict[str, str] = {}


class _Script(BaseHTTPRequestHandler):
    """Answers by the first segment of the path; see each branch."""

    hits: dict[str, int] = {}
    keys: dict[str, str | None] = {}

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    def _answer(self) -> None:
        hits = _Script.hits[self.path] = _Script.hits.get(self.path, 0) + 1
        _Script.keys[self.path] = self.headers.get("x-data-api-key")
        kind = self.path.split("/")[1].split("?")[0]
        if kind == "429-once" and hits == 1:
            self._send(429, b'{"message":"slow down","statusCode":429,"error":"Too Many Requests"}',
                       {"Retry-After": "0"})
        elif kind == "429-always":
            self._send(429, b"{}", {"Retry-After": "0"})
        elif kind == "429-long":
            self._send(429, b"{}", {"Retry-After": "3600"})
        elif kind == "429-soon":
            self._send(429, b"{}", {"Retry-After": "5"})
        elif kind == "503-once" and hits == 1:
            self._send(503, b"<h1>busy</h1>", {"Content-Type": "text/html"})
        elif kind == "503-always":
            self._send(503, b"<h1>busy</h1>", {"Content-Type": "text/html"})
        elif kind == "big":
            self._send(200, b"[" + b"1," * 600_000 + b"1]")
        elif kind == "declared-big":
            self._send(200, b"[]", {"Content-Length": str(10**9)})
        elif kind == "trickle":
            self._head(200, {"Content-Length": "1000"})
            for _ in range(40):  # 8 s in all, past any timeout the tests use
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
        elif kind == "trickle-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Padding: ")
            for _ in range(40):
                self.wfile.write(b"a")
                self.wfile.flush()
                time.sleep(0.2)
            self.close_connection = True
        elif kind == "bad-gzip":
            self._send(200, b"not gzip at all", {"Content-Encoding": "gzip"})
        elif kind == "stall":
            time.sleep(3)
        elif kind == "cut":
            self._head(200, {"Content-Length": "1000"})
            self.wfile.write(b'{"partial"')
        elif kind == "surrogate":
            self._send(200, b'{"name":"\xed\xa0\x80"}')
        elif kind == "loop":
            self._send(302, b"", {"Location": self.path})
        elif kind == "hop":  # /hop/N redirects to /hop/N-1 until /hop/0
            left = int(self.path.split("/")[2])
            if left:
                self._send(302 if self.command == "GET" else 307, b"", {"Location": f"/hop/{left - 1}"})
            else:
                self._send(200, json.dumps({"method": self.command}).encode())
        elif kind == "away":
            self._send(302, b"", {"Location": _OTHER_ORIGIN["url"] + "/landed"})
        elif kind == "post-302":
            self._send(302, b"", {"Location": "/ok"})
        elif kind == "auth":
            self._send(200, json.dumps({"authorization": self.headers.get("Authorization")}).encode())
        else:
            self._send(200, json.dumps({"path": self.path}).encode())

    def _head(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.end_headers()

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self._head(status, {"Content-Length": str(len(body)), **(headers or {})})
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _serve() -> tuple[ThreadingHTTPServer, str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Script)
    httpd.handle_error = lambda *args: None  # type: ignore[method-assign]  # clients hang up on purpose here
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd, url = _serve()
    other, _OTHER_ORIGIN["url"] = _serve()
    yield url
    httpd.shutdown()
    other.shutdown()


def test_the_api_key_is_sent_but_reproducers_show_a_placeholder(server: str) -> None:
    http = HttpSession(secret_headers={"x-data-api-key": "very-secret-key"})
    exchange = RestClient(http, server, send_key=True).get("/ok", {"pageToken": "tok123"})
    assert "very-secret-key" not in exchange.curl() and "very-secret-key" not in repr(exchange)
    assert SECRET_PLACEHOLDER in exchange.curl() and "pageToken=tok123" in exchange.curl()


def test_a_user_and_password_in_the_url_are_sent_as_basic_auth(server: str) -> None:
    with_credentials = server.replace("http://", "http://user:pa%20ss@")
    assert HttpSession().request("GET", with_credentials + "/auth").json() == {
        "authorization": "Basic " + base64.b64encode(b"user:pa ss").decode()}


@pytest.mark.parametrize("params", [{"x": True}, {"x": 1}, {"x": 1.0}, {"x": "1"}, {"x": [1, "b"]}, {"x": (1, 2)},
                                    {"ü": "é & /"}, None, {}])
def test_a_url_is_prepared_as_requests_prepares_it_every_time(server: str, params: dict | None) -> None:
    """Prepared URLs are remembered: a value equal to another but written differently (True and 1) keeps its
    own query string."""
    http = HttpSession()
    for earlier in ({"x": 1}, {"x": True}, {"x": 1.0}):
        http.request("GET", server + "/ok", params=earlier)
    for _ in range(2):
        sent = http.request("GET", server + "/ok", params=params).url
        assert sent == requests.Request("GET", server + "/ok", params=params).prepare().url


def test_a_proxy_from_the_environment_carries_the_requests(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server)
    http = HttpSession()
    # The test server, as a proxy, answers with the absolute URL it was asked for.
    assert http.request("GET", "http://target.invalid/via-proxy").json() == {"path": "http://target.invalid/via-proxy"}
    assert http.request("GET", "http://target.invalid/again").status == 200 and http.requests_sent == 2


def test_a_429_is_waited_out_and_retried(server: str) -> None:
    http = HttpSession()
    exchange = http.request("GET", server + "/429-once/a")
    assert exchange.status == 200 and http.requests_sent == 2


def test_a_429_that_outlasts_the_retries_is_a_suite_error(server: str) -> None:
    http = HttpSession(Limits(retries_on_429=2))
    with pytest.raises(RateLimited, match="answered 429 3 times"):
        http.request("GET", server + "/429-always")
    assert http.requests_sent == 3


def test_a_retry_after_longer_than_the_suite_waits_is_not_cut_short(server: str) -> None:
    http = HttpSession(Limits(max_retry_wait=10))
    started = time.monotonic()
    with pytest.raises(RateLimited, match="Retry-After 3600"):
        http.request("GET", server + "/429-long")
    assert http.requests_sent == 1 and time.monotonic() - started < 1


def test_a_retry_after_past_the_run_deadline_ends_the_request_at_once(server: str) -> None:
    http = HttpSession(Limits(deadline=time.monotonic() + 2))
    started = time.monotonic()
    with pytest.raises(BudgetExhausted, match="maximum duration"):
        http.request("GET", server + "/429-soon")
    assert time.monotonic() - started < 1


def test_the_retries_count_against_the_request_budget(server: str) -> None:
    http = HttpSession(Limits(max_requests=2, retries_on_429=5))
    with pytest.raises(BudgetExhausted):
        http.request("GET", server + "/429-always/budget")
    assert http.requests_sent == 2


def test_a_503_is_retried(server: str) -> None:
    http = HttpSession(Limits(unavailable_backoff=0.01))
    assert http.request("GET", server + "/503-once/a").status == 200 and http.requests_sent == 2


def test_a_503_that_persists_is_a_suite_error(server: str) -> None:
    http = HttpSession(Limits(unavailable_backoff=0.01, retries_on_unavailable=2))
    with pytest.raises(TargetUnavailable, match="answered 503 3 times"):
        http.request("POST", server + "/503-always", body=b"{}")


def test_a_session_counts_the_answers_it_kept_trimmed(server: str) -> None:
    http = HttpSession()
    small, large = http.request("GET", server + "/ok"), http.request("GET", server + "/big")
    assert large.trimmed and not small.trimmed and http.trimmed_bodies == 1
    assert HttpSession().trimmed_bodies == 0   # each session counts its own


def test_a_body_over_the_cap_is_a_suite_error(server: str) -> None:
    http = HttpSession(Limits(max_body_bytes=100_000))
    with pytest.raises(SuiteError, match="larger than"):
        http.request("GET", server + "/big")


def test_a_declared_length_over_the_cap_is_refused_before_reading(server: str) -> None:
    http = HttpSession(Limits(max_body_bytes=100_000))
    with pytest.raises(SuiteError, match="body of 1000000000 bytes is larger than"):
        http.request("GET", server + "/declared-big")


def test_a_trickling_body_ends_at_the_exchange_timeout(server: str) -> None:
    http = HttpSession(Limits(read_timeout=1.0))
    started = time.monotonic()
    with pytest.raises(TargetUnreachable, match="did not arrive within 1 s"):
        http.request("GET", server + "/trickle")
    assert time.monotonic() - started < 1.5


def test_trickling_headers_end_at_the_exchange_timeout(server: str) -> None:
    http = HttpSession(Limits(read_timeout=1.0))
    started = time.monotonic()
    with pytest.raises(TargetUnreachable, match="status line and headers did not arrive within 1 s"):
        http.request("GET", server + "/trickle-headers")
    assert time.monotonic() - started < 1.5


def test_a_stalled_answer_ends_at_the_read_timeout(server: str) -> None:
    http = HttpSession(Limits(read_timeout=0.5))
    started = time.monotonic()
    with pytest.raises(TargetUnreachable, match="no answer within 0.5 s"):
        http.request("GET", server + "/stall")
    assert time.monotonic() - started < 1.5


def test_a_body_that_does_not_decode_is_a_suite_error(server: str) -> None:
    with pytest.raises(SuiteError, match="does not decode as its Content-Encoding 'gzip' says"):
        HttpSession().request("GET", server + "/bad-gzip")


def test_a_body_cut_short_is_a_suite_error(server: str) -> None:
    with pytest.raises(SuiteError, match=r"cut short \(10 of 1000 bytes\)"):
        HttpSession(Limits(read_timeout=2)).request("GET", server + "/cut")


@pytest.mark.parametrize("body", [b'{"result": NaN}', b'[Infinity]', b'-Infinity'])
def test_javascript_constants_are_not_json(body: bytes) -> None:
    assert not Exchange("GET", "http://target/", {}, None, status=200, body=body).is_json()


def test_a_number_beyond_a_float_is_json_and_reports_stay_strict_json() -> None:
    value = Exchange("GET", "http://target/", {}, None, status=200, body=b'{"gas": 1e400}').json()
    assert json.loads(json_text(value)) == {"gas": "inf"}


def test_json_with_an_encoded_surrogate_is_not_json(server: str) -> None:
    exchange = HttpSession().request("GET", server + "/surrogate")
    assert not exchange.is_json()
    with pytest.raises(NotJson):
        exchange.json()


def test_a_redirect_loop_is_a_suite_error(server: str) -> None:
    http = HttpSession()
    with pytest.raises(SuiteError, match="redirect loop"):
        http.request("GET", server + "/loop")
    assert http.requests_sent == 1


def test_same_origin_redirects_are_followed_a_few_times(server: str) -> None:
    http = HttpSession(Limits(max_redirects=3))
    assert http.request("GET", server + "/hop/3").json() == {"method": "GET"}
    assert http.request("POST", server + "/hop/2", body=b"{}").json() == {"method": "POST"}  # 307 keeps it
    with pytest.raises(SuiteError, match="more than 3 redirects"):
        http.request("GET", server + "/hop/4")


def test_a_post_is_not_turned_into_a_get(server: str) -> None:
    with pytest.raises(SuiteError, match="not followed"):
        HttpSession().request("POST", server + "/post-302", body=b"{}")


def test_a_redirect_to_another_origin_is_not_followed_and_the_key_stays(server: str) -> None:
    http = HttpSession(secret_headers={"x-data-api-key": "very-secret-key"})
    with pytest.raises(SuiteError, match="another origin"):
        RestClient(http, server, send_key=True).get("/away")
    assert _Script.keys["/away"] == "very-secret-key" and "/landed" not in _Script.hits


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


@pytest.mark.parametrize(("value", "seconds"), [("2", 2.0), (" 0 ", 0.0), ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
                                                ("soon", None), ("-1", None), (None, None)])
def test_retry_after_reads_seconds_and_http_dates(value: str | None, seconds: float | None) -> None:
    assert _retry_after(value) == seconds


def test_retry_after_in_the_future_is_the_time_until_then() -> None:
    later = email.utils.formatdate(time.time() + 100, usegmt=True)
    assert 95 < (_retry_after(later) or 0) <= 100
