"""pageSize: pages never exceed it, a value that is not an integer is refused, and the default is 100 (the bounds
themselves are tried in test_boundaries.py)."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest
from hypothesis import strategies as st

from conformance.checks import check, live
from conformance.checks.metrics import API, assert_metric_response, metric_path, page_size_bounds
from conformance.checks.rest import assert_refused, assert_success
from conformance.checks.timeseries import shift_periods, timestamps
from conformance.clients.rest import RestClient
from conformance.generated import cases
from conformance.suite.metrics.conftest import CHAIN, require_served

MINIMUM, MAXIMUM, DEFAULT = page_size_bounds()
PATH = metric_path(CHAIN, "txCount")


def assert_page_within(rule_id: str, exchange: Any, page_size: int) -> list[dict[str, Any]]:
    """Fails `rule_id` when the page holds more points than `page_size`."""
    points = assert_metric_response(exchange)
    check(len(points) <= page_size, rule_id, f"the page holds more than {page_size} data points",
          expected=f"at most {page_size} data points", received=f"{len(points)} data points", exchange=exchange)
    return points


@pytest.mark.rule("MET-LIM-005")
@pytest.mark.parametrize("page_size", ["abc", "1.5", "10abc"])
def test_page_size_that_is_not_an_integer_is_refused(metrics_api: RestClient, page_size: str) -> None:
    """A pageSize that is not written as an integer is refused with a 4XX and the error body."""
    exchange = metrics_api.get(PATH, {"timeInterval": "hour", "pageSize": page_size})
    assert_refused(exchange, rule_id="MET-LIM-005", api=API, what=f"pageSize {page_size!r}")


@pytest.mark.rule("MET-PAG-005")
# Page sizes strictly between the bounds: the bounds themselves are the subject of MET-LIM-001 and -002 (their
# tests check this rule there too), and a target that refuses one of them fails that rule, not this one.
@cases(page_size=st.integers(min_value=MINIMUM + 1, max_value=MAXIMUM - 1))
def test_page_never_exceeds_any_page_size(metrics_api: RestClient, page_size: int) -> None:
    """For any pageSize between the bounds, the page holds at most pageSize points."""
    exchange = metrics_api.get(PATH, {"timeInterval": "hour", "pageSize": page_size})
    assert_success(exchange, rule_id="MET-PAG-005", what=f"pageSize {page_size}")
    assert_page_within("MET-PAG-005", exchange, page_size)


@pytest.mark.rule("MET-DEF-001", "MET-DEF-002")
def test_omitted_page_size_behaves_like_the_default(metrics_api: RestClient, latest_day: int,
                                                    observe: Callable[[str, Any], None]) -> None:
    """Without pageSize the route serves the page pageSize=100 serves: the same points, and a next page exactly
    when that page has one ("default 100" is the value an omitted pageSize takes, not a bound below it)."""
    # A window closed two days ago, so that a refresh between the two requests changes nothing they cover.
    params = {"timeInterval": "hour", "endTimestamp": shift_periods(latest_day, "day", -2)}
    explicit = metrics_api.get(PATH, {**params, "pageSize": DEFAULT})
    require_served(explicit, "txCount", "hour")     # refused even with pageSize: not the default's deviation
    omitted = metrics_api.get(PATH, params)
    assert_success(omitted, rule_id="MET-DEF-001", what="a page without pageSize")
    points = assert_page_within("MET-DEF-001", omitted, DEFAULT)

    def page(exchange: Any) -> tuple[list[Any], bool]:
        return timestamps(assert_metric_response(exchange)), "nextPageToken" in exchange.json()
    outcome = live.agree_while_live(lambda: metrics_api.get(PATH, {**params, "pageSize": DEFAULT}),
                                    lambda: metrics_api.get(PATH, params), page, earlier=(explicit, omitted))
    first, second = outcome.first, outcome.second
    check(outcome.agreed, "MET-DEF-001", f"a page without pageSize is not the page with pageSize {DEFAULT}",
          expected=f"{len(first[0])} timestamps from {first[0][:2]}, " + ("a" if first[1] else "no") + " nextPageToken",
          received=f"{len(second[0])} timestamps from {second[0][:2]}, " + ("a" if second[1] else "no")
          + " nextPageToken", exchange=outcome.exchange)
    observe("MET-DEF-002", {"points": len(points), "has_next_page": "nextPageToken" in omitted.json()})
