"""Checks of the Metrics API (3-metrics-api.md): response shapes, and the limits read from its OpenAPI document."""
from __future__ import annotations

import re
from functools import cache
from typing import Any, TypeGuard, cast

from conformance import specs
from conformance.checks import check, independently
from conformance.checks.rest import (assert_error_body, assert_json_content_type, assert_json_object,
                                     assert_refused)
from conformance.clients.http import Exchange
from conformance.schemathesis_support import GeneratedRequest, invalid_query_parameters, rest_check, sent_query

API = "metrics"
METRIC_ROUTE = "/v2/chains/{chainId}/metrics/{metric}"
AVG_TPS_ROUTE = "/v1/avg_tps/{chainId}"
#: Chain IDs the document names besides EVM chain IDs.
AGGREGATE_CHAINS = ("total", "mainnet", "testnet")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


# What the document says, read from specs/openapi/metrics-api.yaml -------------------------------------------

def _operation(path: str) -> dict[str, Any]:
    return specs.openapi(API)["paths"][path]["get"]


def _parameter(name: str) -> dict[str, Any]:
    document = specs.openapi(API)
    for parameter in _operation(METRIC_ROUTE)["parameters"]:
        resolved = specs.resolve(document, parameter)
        if resolved["name"] == name:
            return specs.resolve(document, resolved["schema"])
    raise KeyError(f"{name} is not a parameter of GET {METRIC_ROUTE}")


@cache
def metric_intervals() -> dict[str, tuple[str, ...]]:
    """Metric name -> the intervals it is served at (x-metric-intervals)."""
    return {name: tuple(intervals) for name, intervals in _operation(METRIC_ROUTE)["x-metric-intervals"].items()}


def _relations() -> dict[str, Any]:
    return _operation(METRIC_ROUTE)["x-metric-relations"]


def additive_metrics() -> tuple[str, ...]:
    """Counts of events: a longer period's value is the sum of its shorter periods' (x-metric-relations)."""
    return tuple(_relations()["additive"])


def distinct_metrics() -> tuple[str, ...]:
    """Counts of distinct addresses: a longer period's value lies between its largest shorter period's and their
    sum (x-metric-relations)."""
    return tuple(_relations()["distinct"])


def cumulative_metrics() -> dict[str, dict[str, str]]:
    """Cumulative metric -> {per: its per-day metric, through: start | end, count: sum | distinct}."""
    return {name: dict(relation) for name, relation in _relations()["cumulative"].items()}


def at_most_pairs(*, recorded: bool = False) -> tuple[tuple[str, str], ...]:
    """(smaller, larger) metric pairs of one period: decided, or (`recorded`) only recorded."""
    return tuple((smaller, larger) for smaller, larger in _relations()["recorded-at-most" if recorded else "at-most"])


def metric_names() -> tuple[str, ...]:
    return tuple(_parameter("metric")["enum"])


def intervals() -> tuple[str, ...]:
    return tuple(_parameter("timeInterval")["enum"])


def page_size_bounds() -> tuple[int, int, int]:
    """(minimum, maximum, default) of pageSize."""
    schema = _parameter("pageSize")
    return schema["minimum"], schema["maximum"], schema["default"]


def query_bounds() -> dict[str, dict[str, int]]:
    """Query parameter -> its documented bounds ({"minimum": ..., "maximum": ...}), for every bounded integer."""
    document = specs.openapi(API)
    out: dict[str, dict[str, int]] = {}
    for parameter in _operation(METRIC_ROUTE)["parameters"]:
        resolved = specs.resolve(document, parameter)
        schema = specs.resolve(document, resolved["schema"])
        bounds = {edge: schema[edge] for edge in ("minimum", "maximum") if edge in schema}
        if resolved["in"] == "query" and schema.get("type") == "integer" and bounds:
            out[resolved["name"]] = bounds
    return out


def small_page_size() -> int:
    """The page size of tests whose subject is not a bound: inside both documented bounds (never the minimum or
    the maximum itself), so a target that keeps a bound of its own fails that bound's rule alone."""
    minimum, maximum, _ = page_size_bounds()
    return min(minimum + 1, maximum - 1)


def metric_path(chain: str, metric: str) -> str:
    return f"/v2/chains/{chain}/metrics/{metric}"


def avg_tps_path(chain: str) -> str:
    return f"/v1/avg_tps/{chain}"


# Shapes -----------------------------------------------------------------------------------------------------

def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    return _is_number(value) and float(value).is_integer()


def value_of(point: Any) -> float | None:
    """A data point's value as a number, read also from a decimal string: a value in the wrong form is the shape
    rule's deviation (MET-SHP-002), and the rules about what the values are still read it. None when unreadable."""
    value = point.get("value") if isinstance(point, dict) else None
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _assert_points(results: Any, *, value_rule: str, timestamp_rule: str, exchange: Exchange) -> None:
    """Values and timestamps of the data points, each decided by its own rule whatever the other found."""
    if not results:
        return
    no_value = [p for p in results if not isinstance(p, dict) or not _is_number(p.get("value"))]
    no_time = [p for p in results if not isinstance(p, dict) or not _is_integer(p.get("timestamp"))]
    with independently():
        check(not no_value, value_rule, "a data point has no numeric value", expected="value: a number",
              received=no_value[:1], exchange=exchange)
    with independently():
        check(not no_time, timestamp_rule, "a data point has no integer timestamp", expected="timestamp: an integer",
              received=no_time[:1], exchange=exchange)


def _assert_token(rule_id: str, body: dict[str, Any], exchange: Exchange) -> None:
    if "nextPageToken" in body:
        token = body["nextPageToken"]
        check(isinstance(token, str) and token != "", rule_id, "nextPageToken is not a non-empty string",
              expected="nextPageToken absent, or a non-empty string", received=token, exchange=exchange)


def assert_json_success(exchange: Exchange) -> dict[str, Any]:
    """A 2XX answer is a JSON object (MET-ENV-001) declared as JSON (MET-ENV-002); returns the body."""
    body = assert_json_object("MET-ENV-001", exchange, what="the successful response body")
    with independently():   # the declared Content-Type says nothing of the body: its shape is still judged
        assert_json_content_type("MET-ENV-002", exchange, what="the successful response")
    return body


def assert_metric_response(exchange: Exchange) -> list[dict[str, Any]]:
    """A 2XX metric answer has the documented shape; returns its data points."""
    body = assert_json_success(exchange)
    with independently():   # the token is its own member: an empty last-page token leaves the points to be read
        _assert_token("MET-SHP-004", body, exchange)
    results = body.get("results")
    check(isinstance(results, list), "MET-SHP-001", "the metric response has no results array",
          expected="results: an array of data points", received=body, exchange=exchange)
    _assert_points(results, value_rule="MET-SHP-002", timestamp_rule="MET-SHP-003", exchange=exchange)
    return cast("list[dict[str, Any]]", results)   # the check above let only an array through


def assert_avg_tps_response(exchange: Exchange) -> dict[str, Any]:
    """A 2XX average TPS answer has the documented shape (results, status 200, lastRun); returns the body."""
    body = assert_json_success(exchange)
    results = body.get("results")
    with independently():   # status, lastRun and the token are members of their own, judged whatever results is
        check(isinstance(results, list), "MET-TPS-002", "the average TPS response has no results array",
              expected="results: an array of data points", received=body, exchange=exchange)
        _assert_points(results, value_rule="MET-TPS-003", timestamp_rule="MET-TPS-004", exchange=exchange)
    status = body.get("status")
    with independently():
        check(status == 200 and _is_integer(status), "MET-TPS-005", "status of the average TPS response is not 200",
              expected="status: 200 (an integer)", received={"status": status}, exchange=exchange)
    with independently():
        check(_is_integer(body.get("lastRun")), "MET-TPS-006", "lastRun of the average TPS response is not an "
              "integer", expected="lastRun: an integer UNIX time", received={"lastRun": body.get("lastRun")},
              exchange=exchange)
    with independently():
        _assert_token("MET-TPS-007", body, exchange)
    return body


def assert_error(exchange: Exchange) -> dict[str, Any]:
    """A metrics error answer has the documented body (MET-ERR-001..003, phrases) and a JSON Content-Type."""
    with independently():   # the declared Content-Type is judged whatever the body holds
        assert_json_content_type("MET-ENV-004", exchange, what=f"the {exchange.status} error response")
    return assert_error_body(exchange, api=API)


# Checks of generated requests (tests/suite/metrics/test_properties.py, and schemathesis runs) ----------------

_PLAIN = re.compile(r"^[A-Za-z0-9._~-]+$")


def _plain_path(request: GeneratedRequest) -> bool:
    """Path values a gateway routes as they are; others may be refused before the service sees them."""
    return all(_PLAIN.match(value) for value in request.path_parameters.values())


@rest_check(API)
def success_has_documented_shape(request: GeneratedRequest, exchange: Exchange) -> None:
    """A 2XX answer of either route has the route's documented shape."""
    if not 200 <= (exchange.status or 0) < 300:
        return
    if request.label == f"GET {AVG_TPS_ROUTE}":
        assert_avg_tps_response(exchange)
    elif request.label == f"GET {METRIC_ROUTE}":
        assert_metric_response(exchange)


@rest_check(API)
def error_has_documented_body(request: GeneratedRequest, exchange: Exchange) -> None:
    """A 4XX answer (other than 429) to a request with plain path values carries the documented error body."""
    if 400 <= (exchange.status or 0) < 500 and exchange.status != 429 and _plain_path(request):
        assert_error(exchange)


@rest_check(API)
def invalid_query_is_refused_with_400(request: GeneratedRequest, exchange: Exchange) -> None:
    """A documented metric of an aggregate chain with a query value outside its schema gets 400."""
    if request.label != f"GET {METRIC_ROUTE}" or exchange.status == 429:
        return
    if request.path_parameters.get("chainId") not in AGGREGATE_CHAINS \
            or request.path_parameters.get("metric") not in metric_names():
        return
    # Judged as sent, and only where decidable: an empty value may mean "absent", a repeated one is not documented.
    query = {name: values[0] for name, values in sent_query(exchange).items() if len(values) == 1 and values[0]}
    invalid = invalid_query_parameters(API, request.label, query)
    if invalid:
        assert_refused(exchange, rule_id="MET-ERR-004", api=API, statuses={400}, body=False,
                       what=f"the invalid {', '.join(invalid)}")
