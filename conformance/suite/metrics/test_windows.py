"""A window in the past: startTimestamp and endTimestamp select the points between them, and each keeps the value
its period has, whichever request reads it ("items after this timestamp", "items before this timestamp")."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import independently
from conformance.checks.metrics import intervals
from conformance.checks.timeseries import assert_holds_between, assert_same_values
from conformance.clients.rest import RestClient
from conformance.profiles import Profile
from conformance.suite.metrics.conftest import SeriesReader, read_window, variant, window_before

#: A metric served at every interval.
METRIC = "txCount"


@pytest.mark.rule("MET-TS-010", "MET-TS-011", "MET-TS-012")
@pytest.mark.parametrize("interval", [variant(i, quick=i == "day", id=i) for i in intervals()])
def test_a_past_window_holds_the_points_between_its_edges_with_their_values(
        metrics_api: RestClient, series_reader: SeriesReader, latest_day: int, profile: Profile, interval: str,
        observe: Callable[[str, Any], None]) -> None:
    """Every page of a window that has ended holds each point a read reaching the present has strictly between the
    window's edges, with the same value; whether the edges themselves are served is recorded."""
    start, end = window_before(latest_day, interval)
    window = read_window(metrics_api, METRIC, interval, start, end, budget=profile.pages)
    wider = series_reader.series(METRIC, interval)
    observe("MET-TS-012", {"interval": interval, "startTimestamp": start, "endTimestamp": end,
                           "start_served": start in window.values if start in wider.values else "not in the wider read",
                           "end_served": end in window.values if end in wider.values else "not in the wider read"})
    with independently():   # a point left out says nothing of the values of the points served
        looked_for = assert_holds_between("MET-TS-010", window, wider, start, end)
    compared = assert_same_values("MET-TS-011", window, wider)
    if not looked_for and not compared:
        pytest.skip(f"the read reaching the present holds no {interval} of the window")
