"""Every documented bound of a query parameter, tried exactly at the bound, one inside it and one beyond it, in every
profile: the bounds are read from the OpenAPI document, the rule deciding each row from the table below."""
from __future__ import annotations

import pytest

from conformance.checks import check
from conformance.checks.metrics import API, assert_metric_response, metric_path, query_bounds, small_page_size
from conformance.checks.rest import assert_refused, assert_success
from conformance.checks.timeseries import assert_within
from conformance.clients.rest import RestClient
from conformance.suite.metrics.conftest import CHAIN

PATH = metric_path(CHAIN, "txCount")
#: (parameter, bound) -> the rule deciding the value at the bound, one inside it, and one beyond it.
RULES = {("pageSize", "minimum"): ("MET-LIM-001", "MET-LIM-011", "MET-LIM-003"),
         ("pageSize", "maximum"): ("MET-LIM-002", "MET-LIM-011", "MET-LIM-004"),
         ("startTimestamp", "minimum"): ("MET-LIM-006", "MET-LIM-011", "MET-LIM-007"),
         ("endTimestamp", "minimum"): ("MET-LIM-010", "MET-LIM-011", "MET-LIM-008")}
#: What an answer to a value at a bound must also keep, besides being served: the rule and how it is judged.
ALSO = {"pageSize": "MET-PAG-005", "endTimestamp": "MET-TS-007"}


def _rows(accepted: bool) -> list:
    rows = []
    for parameter, bounds in query_bounds().items():
        for bound, value in bounds.items():
            inward = 1 if bound == "minimum" else -1
            at, inside, beyond = RULES[parameter, bound]
            tried = [(value, at, "at"), (value + inward, inside, "inside")] if accepted \
                else [(value - inward, beyond, "beyond")]
            for sent, rule, where in tried:
                also = ALSO.get(parameter) if where == "at" else None
                marks = pytest.mark.rule(rule, also) if also else pytest.mark.rule(rule)
                rows.append(pytest.param(parameter, sent, rule, also, marks=marks,
                                         id=f"{parameter}-{where}-{bound}-{sent}"))
    return rows


def _query(parameter: str, value: int) -> dict[str, int | str]:
    page_size = {} if parameter == "pageSize" else {"pageSize": small_page_size()}
    return {"timeInterval": "day", parameter: value, **page_size}


@pytest.mark.parametrize(("parameter", "value", "rule", "also"), _rows(accepted=True))
def test_value_at_or_inside_a_bound_is_served(metrics_api: RestClient, parameter: str, value: int, rule: str,
                                              also: str | None) -> None:
    """A value at a documented bound, or one inside it, is served; at the bound, the answer keeps what the value
    asks: no more points than pageSize, no point after endTimestamp."""
    exchange = metrics_api.get(PATH, _query(parameter, value))
    assert_success(exchange, rule_id=rule, what=f"{parameter} {value}")
    points = assert_metric_response(exchange)
    if also == "MET-PAG-005":
        check(len(points) <= value, also, f"the page holds more than {value} data points",
              expected=f"at most {value} data points", received=f"{len(points)} data points", exchange=exchange)
    elif also == "MET-TS-007":
        assert_within(points, start=None, end=value, start_rule="MET-TS-006", end_rule=also, exchange=exchange)


@pytest.mark.parametrize(("parameter", "value", "rule", "also"), _rows(accepted=False))
def test_value_beyond_a_bound_is_refused(metrics_api: RestClient, parameter: str, value: int, rule: str,
                                         also: None) -> None:
    """A value one beyond a documented bound is refused with a 4XX and the error body."""
    exchange = metrics_api.get(PATH, _query(parameter, value))
    assert_refused(exchange, rule_id=rule, api=API, what=f"{parameter} {value}")
