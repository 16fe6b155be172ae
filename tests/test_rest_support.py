"""Self-tests of the shared REST pieces: walk_pages, the error-body checks, timeseries helpers, schemathesis glue."""
from __future__ import annotations

import json
import pickle
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import schemathesis
from hypothesis import given, settings
from schemathesis import GenerationMode

from conformance.checks.rest import assert_error_body, assert_refused, documented_phrases, error_body_problems
from conformance.checks.timeseries import is_aligned, period_start, shift_periods
from conformance.clients.http import Exchange, HttpSession
from conformance.clients.rest import RestClient
from conformance import evidence
from conformance.errors import SuiteError, Violation
from conformance.pagination import BAD_TOKEN, BUDGET, LAST_PAGE, NOT_SERVED, REPEATED_TOKEN, is_token, walk_pages
from conformance import schemathesis_support as sts


# A tiny REST server: /items pages through 10 items two at a time; /loop always hands out the same token ----

class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.server.seen.append(self.path)  # type: ignore[attr-defined]  # what this test's server saw
        if url.path == "/items":
            start = int(query.get("pageToken", "0"))
            body: dict[str, Any] = {"items": list(range(start, min(start + 2, 10)))}
            if start + 2 < 10:
                body["nextPageToken"] = str(start + 2)
            self._reply(200, body)
        elif url.path == "/loop":
            self._reply(200, {"items": [1], "nextPageToken": "again"})
        elif url.path in ("/empty-token", "/null-token", "/number-token"):
            last = {"/empty-token": "", "/null-token": None, "/number-token": 7}[url.path]
            self._reply(200, {"items": [1], "nextPageToken": last if "pageToken" in query else "next"})
        else:
            self._reply(404, {"message": ["no route"], "error": "Not Found", "statusCode": 404})

    def _reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.seen = []  # type: ignore[attr-defined]  # what this test's server saw
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def client(server: ThreadingHTTPServer) -> Iterator[RestClient]:
    http = HttpSession()
    yield RestClient(http, f"http://127.0.0.1:{server.server_address[1]}")
    http.close()


# walk_pages -----------------------------------------------------------------------------------------------

def test_walk_follows_tokens_to_the_last_page(client: RestClient) -> None:
    walk = walk_pages(client, "/items", budget=10)
    assert walk.stopped == LAST_PAGE and walk.complete
    assert walk.items("items") == list(range(10))
    assert len(walk.exchanges) == 5 and walk.tokens()[-1] is None


def test_walk_stops_on_its_budget(client: RestClient) -> None:
    walk = walk_pages(client, "/items", budget=2)
    assert walk.stopped == BUDGET and not walk.complete
    assert client.http.requests_sent == 2 and walk.items("items") == [0, 1, 2, 3]


def test_walk_stops_on_a_repeated_token(client: RestClient) -> None:
    walk = walk_pages(client, "/loop", budget=10)
    assert walk.stopped == REPEATED_TOKEN and len(walk.exchanges) == 2


def test_walk_stops_on_an_error_page(client: RestClient) -> None:
    walk = walk_pages(client, "/nowhere", budget=3)
    assert walk.stopped == NOT_SERVED and walk.pages == [] and walk.last.status == 404


def test_walk_resends_the_parameters_with_the_token(client: RestClient, server: ThreadingHTTPServer) -> None:
    walk_pages(client, "/items", {"sortOrder": "asc"}, budget=2)
    assert server.seen[-1].endswith("/items?sortOrder=asc&pageToken=2")  # type: ignore[attr-defined]  # what this test's server saw


@pytest.mark.parametrize("path", ["/empty-token", "/null-token"])
def test_an_empty_or_null_token_ends_the_list(client: RestClient, path: str) -> None:
    walk = walk_pages(client, path, budget=5)
    assert walk.stopped == LAST_PAGE and walk.complete and len(walk.exchanges) == 2


def test_a_token_that_is_not_a_string_stops_the_walk(client: RestClient) -> None:
    walk = walk_pages(client, "/number-token", budget=5)
    assert walk.stopped == BAD_TOKEN and not walk.complete


def test_only_a_non_empty_token_names_a_next_page() -> None:
    assert is_token("abc") and is_token(7)
    assert not is_token(None) and not is_token("")


def test_walk_refuses_an_empty_budget(client: RestClient) -> None:
    with pytest.raises(ValueError):
        walk_pages(client, "/items", budget=0)


# Error bodies ---------------------------------------------------------------------------------------------

def _exchange(status: int, body: Any, content_type: str = "application/json") -> Exchange:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Exchange("GET", "http://target/v2/x", {}, None, status=status,
                    response_headers={"content-type": content_type}, body=raw)


def test_the_documented_phrases_come_from_the_specs() -> None:
    assert documented_phrases("metrics")[400] == "Bad Request"
    assert documented_phrases("data")[503] == "Service Unavailable"


@pytest.mark.parametrize(("api", "body"), [
    ("metrics", {"message": ["pageSize must not be less than 1"], "error": "Bad Request", "statusCode": 400}),
    ("metrics", {"message": [], "error": "Bad Request", "statusCode": 400, "path": "/v2"}),
    ("data", {"message": "pageSize must not be less than 1", "error": "Bad Request", "statusCode": 400}),
])
def test_the_error_body_check_accepts_documented_bodies(api: str, body: dict[str, Any]) -> None:
    assert error_body_problems(body, 400, api=api) == []
    assert_error_body(_exchange(400, body), api=api)


@pytest.mark.parametrize(("api", "body", "rule"), [
    ("metrics", {"message": "one string", "error": "Bad Request", "statusCode": 400}, "MET-ERR-001"),
    ("metrics", {"message": ["a", 1], "error": "Bad Request", "statusCode": 400}, "MET-ERR-001"),
    ("metrics", {"message": ["a"], "error": None, "statusCode": 400}, "MET-ERR-002"),
    ("metrics", {"message": ["a"], "error": "Bad Request", "statusCode": "400"}, "MET-ERR-003"),
    ("metrics", {"message": ["a"], "error": "Bad Request", "statusCode": 422}, "MET-ERR-003"),
    ("metrics", {"message": ["a"], "error": "ValidationError", "statusCode": 400}, "MET-ERR-005"),
    ("metrics", "just text", "MET-ENV-003"),
    ("data", {"message": ["a"], "error": "Bad Request", "statusCode": 400}, "DATA-ERR-003"),
    ("data", {"message": "a", "error": "Bad Request", "statusCode": True}, "DATA-ERR-004"),
    ("data", {"message": "a", "error": "Bad Request", "statusCode": 404}, "DATA-ERR-005"),
    ("data", {"message": "a", "error": "BAD_REQUEST", "statusCode": 400}, "DATA-ERR-007"),
])
def test_the_error_body_check_refuses_undocumented_bodies(api: str, body: Any, rule: str) -> None:
    with pytest.raises(Violation) as raised:
        assert_error_body(_exchange(400, body), api=api)
    assert raised.value.rule.id == rule
    assert "Reproduce: curl" in str(raised.value)


def test_a_body_that_is_not_json_breaks_the_body_rule() -> None:
    with pytest.raises(Violation) as raised:
        assert_error_body(_exchange(400, b"<html>bad</html>", "text/html"), api="metrics")
    assert raised.value.rule.id == "MET-ENV-003"


@pytest.mark.parametrize("status", [200, 302, 500, 503])
def test_refusal_is_never_a_success_a_redirect_or_a_server_error(status: int) -> None:
    body = {"message": ["x"], "error": "Internal Server Error", "statusCode": status}
    with pytest.raises(Violation) as raised:
        assert_refused(_exchange(status, body), rule_id="MET-LIM-003", api="metrics")
    assert raised.value.rule.id == "MET-LIM-003"


def test_refusal_with_a_documented_4xx_passes_and_checks_the_body() -> None:
    good = {"message": ["x"], "error": "Not Found", "statusCode": 404}
    assert_refused(_exchange(404, good), rule_id="MET-ENUM-001", api="metrics")
    with pytest.raises(Violation) as raised:
        assert_refused(_exchange(404, {**good, "statusCode": 400}), rule_id="MET-ENUM-001", api="metrics")
    assert raised.value.rule.id == "MET-ERR-003"
    with pytest.raises(Violation):
        assert_refused(_exchange(404, good), rule_id="MET-ERR-004", api="metrics", statuses={400})


def test_a_wrong_message_form_breaks_the_message_rule_alone_and_the_others_hold() -> None:
    """One deviation, one rule: the other members of the body are decided and hold."""
    ledger = evidence.Ledger()
    with evidence.recording(ledger):
        assert_refused(_exchange(400, {"message": ["a"], "error": "Bad Request", "statusCode": 400}),
                       rule_id="DATA-LIM-002", api="data")
        assert_refused(_exchange(400, {"message": "a", "error": "Bad Request", "statusCode": 400}),
                       rule_id="MET-LIM-003", api="metrics")
    assert {rule for rule, (_, broke) in ledger.counts().items() if broke} == {"DATA-ERR-003", "MET-ERR-001"}
    held_rules = {rule for rule, (held, _) in ledger.counts().items() if held}
    assert {"DATA-LIM-002", "DATA-ERR-004", "DATA-ERR-005", "DATA-ERR-006", "DATA-ERR-007", "MET-LIM-003",
            "MET-ERR-002", "MET-ERR-003", "MET-ERR-005"} <= held_rules


def test_a_member_that_decides_nothing_holds_nothing() -> None:
    """Without a string error there is no phrase to compare; without an integer statusCode, no value."""
    ledger = evidence.Ledger()
    with evidence.recording(ledger):
        assert_refused(_exchange(400, {"message": "a", "error": None, "statusCode": "400"}),
                       rule_id="DATA-LIM-002", api="data")
    counts = ledger.counts()
    assert counts["DATA-ERR-006"][1] and counts["DATA-ERR-004"][1]
    assert "DATA-ERR-007" not in counts and "DATA-ERR-005" not in counts


def test_a_lasting_429_decides_nothing() -> None:
    body = {"message": ["slow down"], "error": "Too Many Requests", "statusCode": 429}
    with pytest.raises(SuiteError):
        assert_refused(_exchange(429, body), rule_id="MET-LIM-003", api="metrics")


# Time series ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("timestamp", "interval", "aligned"), [
    (1780012800, "day", True), (1780012800 + 3600, "day", False), (1780012800 + 3600, "hour", True),
    (1779667200, "week", True),       # Monday 2026-05-25
    (1779580800, "week", False),      # Sunday 2026-05-24
    (1777593600, "month", True),      # 2026-05-01
    (1777593600 - 5 * 3600, "month", False),
])
def test_alignment_per_interval(timestamp: int, interval: str, aligned: bool) -> None:
    assert is_aligned(timestamp, interval) is aligned


def test_period_arithmetic_stays_aligned() -> None:
    for interval in ("hour", "day", "week", "month"):
        start = period_start(1780000000, interval)
        assert is_aligned(start, interval) and start <= 1780000000
        assert shift_periods(start, interval, 1) > start and is_aligned(shift_periods(start, interval, -13), interval)


# schemathesis integration ---------------------------------------------------------------------------------

def test_a_generated_case_is_sent_through_our_session_with_the_real_page_token(client: RestClient) -> None:
    op = sts.operation("metrics", "GET /v2/chains/{chainId}/metrics/{metric}")
    case = op.Case(path_parameters={"chainId": "total", "metric": "txCount"},
                   query={"pageToken": "3f0c9b1e-7a2d-4c55-9e61-0d8f2b7a4c10", "pageSize": 5})
    exchange = sts.send(client, sts.wire_case("metrics", case))
    assert client.http.requests_sent == 1 and exchange.status == 404
    assert "pageToken=3f0c9b1e-7a2d-4c55-9e61-0d8f2b7a4c10" in exchange.curl()
    assert "schemathesis" not in exchange.curl().lower()


def test_invalid_query_parameters_are_judged_against_the_spec() -> None:
    label = "GET /v2/chains/{chainId}/metrics/{metric}"
    assert sts.invalid_query_parameters("metrics", label, {"pageSize": "0", "timeInterval": "day"}) == ["pageSize"]
    assert sts.invalid_query_parameters("metrics", label, {"pageSize": "2160", "startTimestamp": 0}) == []
    assert sts.invalid_query_parameters("metrics", label, {"endTimestamp": "1.5", "timeInterval": "year"}) \
        == ["endTimestamp", "timeInterval"]


def test_every_case_is_judged_by_every_check_after_a_failure(client: RestClient) -> None:
    def always_fails(request: sts.GeneratedRequest, exchange: Exchange) -> None:
        assert_refused(exchange, rule_id="MET-ERR-004", api="metrics", statuses={400}, body=False)

    op = sts.operation("metrics", "GET /v1/avg_tps/{chainId}")
    ledger = evidence.Ledger()
    with evidence.recording(ledger):
        for chain in ("total", "mainnet", "testnet"):
            sts.judge(client, "metrics", op.Case(path_parameters={"chainId": chain}), checks=[always_fails])
    assert ledger.broke["MET-ERR-004"] == 3 and ledger.violations


# The schemathesis API this project relies on: an upgrade that changes it fails here first ------------------

def test_schemathesis_api_we_rely_on_is_still_there() -> None:
    schema = sts.schema("metrics")
    assert {op.label for op in (result.ok() for result in schema.get_all_operations())} == \
        {"GET /v2/chains/{chainId}/metrics/{metric}", "GET /v1/avg_tps/{chainId}"}
    op = sts.operation("metrics", "GET /v2/chains/{chainId}/metrics/{metric}")
    examples = sts.explicit_cases(op, phases=("examples",))
    assert examples and all(case.path_parameters["chainId"] for case in examples)
    coverage = sts.explicit_cases(op, phases=("coverage",))
    assert {sts.mode_of(case) for case in coverage} == {"positive", "negative"}
    assert len(sts.explicit_cases(op, limit=7)) == 7
    kwargs = coverage[0].as_transport_kwargs(base_url="http://target")
    assert kwargs["method"] == "GET" and kwargs["url"].startswith("http://target/v2/chains/")
    assert GenerationMode.POSITIVE.value == "positive" and callable(schemathesis.check)
    from schemathesis.checks import CHECKS
    import conformance.checks.metrics  # noqa: F401 - registers the metrics checks
    names = {getattr(check, "__name__", "") for check in CHECKS.get_all()}
    assert "conformance_metrics_error_has_documented_body" in names


@pytest.mark.parametrize("base", ["http://target", "http://target/", "http://target/pre/fix", "http://t/a%2Fb/"])
def test_a_case_goes_where_schemathesis_would_send_it(base: str) -> None:
    for label in ("GET /v2/chains/{chainId}/metrics/{metric}", "GET /v1/avg_tps/{chainId}"):
        for case in sts.explicit_cases(sts.operation("metrics", label)):
            assert sts.wire_case("metrics", case).url(base) == case.as_transport_kwargs(base_url=base)["url"]


def test_a_case_with_a_delimited_query_value_travels_to_another_process() -> None:
    from schemathesis.core.parameters import DelimitedValue

    op = sts.operation("metrics", "GET /v1/avg_tps/{chainId}")
    wire = sts.wire_case("metrics", op.Case(path_parameters={"chainId": "total"},
                                            query={"spread": DelimitedValue("a,b", "a%2C,b")}))
    assert pickle.loads(pickle.dumps(wire)) == wire and wire.request.query == {"spread": "a,b"}


@settings(max_examples=10)
@given(case=sts.fuzzed_cases(sts.operation("metrics", "GET /v2/chains/{chainId}/metrics/{metric}"),
                             path_parameters=[{"chainId": "total"}]))
def test_fuzzed_cases_keep_fixed_path_parameters(case: Any) -> None:
    assert sts.GeneratedRequest.of("metrics", case).path_parameters["chainId"] == "total"


# One deviation, one rule: a member with a rule of its own is left out of the whole-body shape -------------------

def test_a_price_value_as_a_number_breaks_its_own_rule_and_not_the_body_shape() -> None:
    from conformance.checks import data as checks

    body = {"nativeTokenBalance": {"chainId": "1", "balance": "10",
                                   "price": {"currencyCode": "usd", "value": 112.98}}}
    exchange = _exchange(200, body)
    ledger = evidence.Ledger()
    with evidence.recording(ledger):
        checks.assert_route_shape("DATA-SHP-013", "getNativeBalance", body, exchange)
        with pytest.raises(Violation) as raised:
            checks.assert_format("DATA-SHP-018", "getNativeBalance", body, fmt="decimal", within="Price",
                                 exchange=exchange, members=("value",))
    assert raised.value.rule.id == "DATA-SHP-018"
    assert ledger.counts()["DATA-SHP-013"] == [1, 0]


def test_the_members_left_out_of_body_shapes_are_those_the_spec_gives_a_format() -> None:
    from conformance.checks import data as checks

    left_out = checks.own_rule_members()
    assert ("Price", "value") in left_out and ("AssetAmount", "amount") in left_out
    assert ("GenesisData", "timestamp") in left_out and ("Validator", "amountStaked") not in left_out


def test_a_plain_page_size_is_inside_every_documented_maximum() -> None:
    from conformance.checks import data as checks

    for operation_id in checks.list_operations():
        low, high, _ = checks.page_size_limits(operation_id)
        assert low <= checks.plain_page_size(operation_id) < high
