"""Data point timestamps: aligned to their interval, UNIX seconds, inside the requested time range."""
from __future__ import annotations

import time
from typing import Any
from collections.abc import Callable

import pytest
from hypothesis import strategies as st

from conformance.checks.metrics import assert_metric_response, intervals, metric_intervals, metric_path
from conformance.checks.rest import assert_success
from conformance.checks.timeseries import (DAY, assert_aligned, assert_distinct_timestamps, assert_not_after,
                                           assert_within, order_of, shift_periods)
from conformance.clients.rest import RestClient
from conformance.generated import cases
from conformance.profiles import Profile
from conformance.suite.metrics.conftest import CHAIN

ALIGNMENT_RULES = {"hour": "MET-TS-001", "day": "MET-TS-002", "week": "MET-TS-003", "month": "MET-TS-004"}


def _served_at(interval: str) -> str:
    """The first metric served at `interval`, read from x-metric-intervals."""
    return next(metric for metric, allowed in metric_intervals().items() if interval in allowed)


def _points(metrics_api: RestClient, metric: str, params: dict[str, Any], rule: str) -> tuple[list[dict], Any]:
    exchange = metrics_api.get(metric_path(CHAIN, metric), params)
    assert_success(exchange, rule_id=rule, what=f"GET {metric} with {params}")
    return assert_metric_response(exchange), exchange


@pytest.mark.parametrize("interval", [pytest.param(i, marks=pytest.mark.rule(ALIGNMENT_RULES[i]), id=i)
                                      for i in intervals()])
def test_timestamps_start_a_period_of_the_interval(metrics_api: RestClient, profile: Profile,
                                                   interval: str) -> None:
    """Every timestamp is on the hour, 00:00 UTC, a Monday or the first of the month, as the interval says."""
    rule = ALIGNMENT_RULES[interval]
    points, exchange = _points(metrics_api, _served_at(interval),
                               {"timeInterval": interval, "pageSize": profile.sample + 1}, rule)
    assert_aligned(rule, points, interval, exchange=exchange)


@pytest.mark.rule("MET-TS-005")
def test_timestamps_are_unix_seconds(metrics_api: RestClient) -> None:
    """No timestamp lies more than a day after the current time, as milliseconds would."""
    points, exchange = _points(metrics_api, "txCount", {"timeInterval": "day", "pageSize": 3}, "MET-TS-005")
    assert_not_after("MET-TS-005", points, int(time.time()) + DAY, exchange=exchange)


def _assert_window(metrics_api: RestClient, interval: str, start: int, end: int, page_size: int) -> None:
    params = {"timeInterval": interval, "startTimestamp": start, "endTimestamp": end, "pageSize": page_size}
    points, exchange = _points(metrics_api, _served_at(interval), params, "MET-TS-006")
    assert_within(points, start=start, end=end, start_rule="MET-TS-006", end_rule="MET-TS-007", exchange=exchange)


@pytest.mark.rule("MET-TS-006", "MET-TS-007")
def test_points_lie_within_an_aligned_range(metrics_api: RestClient, latest_day: int) -> None:
    """With aligned startTimestamp and endTimestamp, every point lies in [startTimestamp, endTimestamp]."""
    start, end = shift_periods(latest_day, "day", -10), shift_periods(latest_day, "day", -4)
    _assert_window(metrics_api, "day", start, end, page_size=20)


@pytest.mark.rule("MET-TS-006", "MET-TS-007")
# An interval, how many periods before the latest day a window ends, and its width.
@cases(window=st.tuples(st.sampled_from(intervals()), st.integers(min_value=1, max_value=40),
                        st.integers(min_value=0, max_value=12)))
def test_points_lie_within_any_aligned_range(metrics_api: RestClient, latest_day: int,
                                             window: tuple[str, int, int]) -> None:
    """For aligned windows of any interval, position and width, every point lies inside the window."""
    interval, back, width = window
    end = shift_periods(latest_day, interval, -back)
    _assert_window(metrics_api, interval, shift_periods(end, interval, -width), end, page_size=width + 5)


@pytest.mark.rule("MET-TS-008")
def test_no_two_points_share_a_timestamp(metrics_api: RestClient) -> None:
    """A first page of hourly points (with the latest, still open, period) repeats no timestamp."""
    points, exchange = _points(metrics_api, _served_at("hour"), {"timeInterval": "hour", "pageSize": 24},
                               "MET-TS-008")
    assert_distinct_timestamps("MET-TS-008", points, exchange=exchange)


@pytest.mark.rule("MET-TS-009")
def test_point_order_is_recorded(metrics_api: RestClient, observe: Callable[[str, Any], None]) -> None:
    """The order of data points (ascending or descending timestamp) is recorded."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": "day", "pageSize": 5})
    results = exchange.json().get("results") if exchange.status == 200 and exchange.is_json() else None
    stamps = [p.get("timestamp") for p in results or [] if isinstance(p, dict)]
    order = order_of(stamps) if stamps else None  # type: ignore[arg-type]  # the timestamps as sent, any form
    observe("MET-TS-009", {"status": exchange.status, "order": order})


@pytest.mark.rule("MET-DEF-003")
def test_default_interval_is_recorded(metrics_api: RestClient, observe: Callable[[str, Any], None]) -> None:
    """The interval applied without timeInterval is recorded, from the spacing of the timestamps."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"pageSize": 3})
    results = exchange.json().get("results") if exchange.status == 200 and exchange.is_json() else None
    stamps = sorted(stamp for p in results or [] if isinstance(p, dict)
                    and isinstance(stamp := p.get("timestamp"), int))
    spacing = {b - a for a, b in zip(stamps, stamps[1:])}
    guess = {3600: "hour", DAY: "day", 7 * DAY: "week"}.get(min(spacing)) if spacing else None
    observe("MET-DEF-003", {"status": exchange.status, "spacing_seconds": sorted(spacing), "interval": guess})


@pytest.mark.rule("MET-SHP-009")
def test_latest_point_changes_are_recorded(metrics_api: RestClient, observe: Callable[[str, Any], None]) -> None:
    """Whether the latest data point changes between two identical requests is recorded."""
    params = {"timeInterval": "hour", "pageSize": 2}
    seen = [metrics_api.get(metric_path(CHAIN, "txCount"), params) for _ in range(2)]
    bodies = [e.json() if e.status == 200 and e.is_json() else None for e in seen]
    observe("MET-SHP-009", {"statuses": [e.status for e in seen], "changed": bodies[0] != bodies[1]})
