"""Pagination: nextPageToken leads through a fixed time window page by page, as one large page would, every page
keeping the window and the interval of the first."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, fail, held
from conformance.checks.metrics import API, UUID, assert_metric_response, metric_path
from conformance.checks.rest import assert_refused, assert_success
from conformance.checks.timeseries import assert_within, shift_periods, timestamps
from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient
from conformance.pagination import Walk, is_token, walk_pages
from conformance.profiles import Profile
from conformance.suite.metrics.conftest import CHAIN, require_served, variant

PATH = metric_path(CHAIN, "txCount")
PAGE_SIZE = 2


@dataclass
class WindowWalk:
    """A walk over a window of `periods` periods of `interval` closed two days ago, and the same window as one large
    page."""

    interval: str
    walk: Walk
    whole: Exchange
    periods: int
    page_size: int
    start: int
    end: int

    def inside(self, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The points within the window: one outside it is MET-TS-006's or MET-TS-007's deviation alone."""
        return [p for p in points
                if not isinstance(p.get("timestamp"), int) or self.start <= p["timestamp"] <= self.end]


#: Hours in every profile: a target that keeps only the window's position in its token and falls back to a default
#: interval on the next page shows it unless the default is the interval walked, and none is documented.
@pytest.fixture(params=[variant("hour", quick=True, id="hour"), variant("day", quick=False, id="day")])
def window_walk(request: pytest.FixtureRequest, metrics_api: RestClient, profile: Profile,
                latest_day: int, once: Any) -> WindowWalk:
    """Walks a window that fits `profile.pages` pages of two points, once per run (and afresh for a test run again
    to see whether a deviation shows again); decides nothing itself."""
    interval = request.param

    def read() -> WindowWalk:
        periods = 2 * profile.pages - 1
        end = shift_periods(latest_day, "day", -2)       # closed: a refresh changes no point of the window
        start = shift_periods(end, interval, -(periods - 1))
        params = {"timeInterval": interval, "startTimestamp": start, "endTimestamp": end}
        walk = walk_pages(metrics_api, PATH, {**params, "pageSize": PAGE_SIZE}, budget=profile.pages + 1)
        whole = metrics_api.get(PATH, {**params, "pageSize": periods + 1})
        return WindowWalk(interval, walk, whole, periods, PAGE_SIZE, start, end)
    return once(read, metrics_api.base_url, interval, profile.pages, latest_day)


def _pages(ww: WindowWalk, rule: str) -> list[list[dict[str, Any]]]:
    """The points of each walked page, once every page is served with the documented shape. A first page refused
    is the interval's or the chain's deviation, not the pagination's: nothing is walked."""
    require_served(ww.walk.exchanges[0], "txCount", ww.interval)
    for exchange in ww.walk.exchanges:
        assert_success(exchange, rule_id=rule, what="a page of the walk")
    return [assert_metric_response(exchange) for exchange in ww.walk.exchanges]


def _whole(ww: WindowWalk, rule: str) -> list[dict[str, Any]]:
    require_served(ww.whole, "txCount", ww.interval)
    return assert_metric_response(ww.whole)


def _has_token(exchange: Exchange) -> bool:
    """Whether the page names a next page. An empty or null token names none: its form is MET-SHP-004's
    deviation alone, and here it reads as the end of the list."""
    return is_token(exchange.json().get("nextPageToken"))


@pytest.mark.rule("MET-PAG-001")
def test_page_has_a_token_while_more_points_exist(window_walk: WindowWalk) -> None:
    """Every page after which the window still has points carries nextPageToken."""
    whole = set(timestamps(_whole(window_walk, "MET-PAG-001")))
    served: set[Any] = set()
    for page, exchange in zip(_pages(window_walk, "MET-PAG-001"), window_walk.walk.exchanges):
        served |= set(timestamps(page))
        missing = whole - served
        check(not missing or _has_token(exchange), "MET-PAG-001",
              "a page has no nextPageToken although more points exist",
              expected=f"nextPageToken: {len(missing)} points of the window are still to come",
              received=f"no nextPageToken after {len(served)} of {len(whole)} points", exchange=exchange)


@pytest.mark.rule("MET-PAG-002")
def test_last_page_has_no_token(window_walk: WindowWalk) -> None:
    """Once every period of the window has been served, the page has no nextPageToken."""
    served: set[Any] = set()
    for page, exchange in zip(_pages(window_walk, "MET-PAG-002"), window_walk.walk.exchanges):
        if window_walk.inside(page) != page:
            break   # the page left the window: what comes after it is the window rules' deviation
        served |= set(timestamps(page))
        check(len(served) < window_walk.periods or not _has_token(exchange), "MET-PAG-002",
              "the last page has a nextPageToken", expected="no nextPageToken: all periods of the window are served",
              received=f"nextPageToken after all {window_walk.periods} periods", exchange=exchange)
    whole = _whole(window_walk, "MET-PAG-002")
    check(len(whole) < window_walk.periods or not _has_token(window_walk.whole), "MET-PAG-002",
          "a page holding the whole window has a nextPageToken", expected="no nextPageToken",
          received=f"nextPageToken with all {len(whole)} points", exchange=window_walk.whole)


@pytest.mark.rule("MET-PAG-003")
def test_pages_together_equal_one_large_page(window_walk: WindowWalk) -> None:
    """The points of the walked pages are the points of the window fetched as one page (as sets: the Metrics
    document states no order of data points)."""
    walked = window_walk.inside([point for page in _pages(window_walk, "MET-PAG-003") for point in page])
    whole = window_walk.inside(_whole(window_walk, "MET-PAG-003"))
    latest = max(timestamps(whole), default=None)
    def comparable(points: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
        # the latest point's value may change on a refresh between the requests
        return sorted(((p["timestamp"], None if p["timestamp"] == latest else p["value"]) for p in points), key=repr)
    left = Counter(comparable(whole))
    left.subtract(comparable(walked))
    # the budget may end the walk: then what it reached is among the large page's points, in whatever order
    agree = all(count >= 0 for count in left.values()) and (not window_walk.walk.complete or not +left)
    check(agree, "MET-PAG-003", "the walked pages differ from one large page",
          expected=f"{len(whole)} points: {comparable(whole)[:6]}",
          received=f"{len(walked)} points: {comparable(walked)[:6]}", exchange=window_walk.walk.last)


@pytest.mark.rule("MET-PAG-004")
def test_no_point_appears_on_two_pages(window_walk: WindowWalk) -> None:
    """No timestamp is served on two pages of one walk."""
    seen: dict[Any, int] = {}
    for number, (page, exchange) in enumerate(zip(_pages(window_walk, "MET-PAG-004"),
                                                  window_walk.walk.exchanges), start=1):
        for ts in timestamps(page):
            if ts in seen:
                fail("MET-PAG-004", "a data point appears on two pages", expected="each timestamp on one page",
                     received=f"timestamp {ts} on pages {seen[ts]} and {number}", exchange=exchange)
            seen[ts] = number
    if len(window_walk.walk.exchanges) > 1:   # the points of more than one page were compared
        held("MET-PAG-004")


@pytest.mark.rule("MET-PAG-005")
def test_walked_pages_hold_at_most_page_size(window_walk: WindowWalk) -> None:
    """No page of the walk holds more points than its pageSize."""
    for page, exchange in zip(_pages(window_walk, "MET-PAG-005"), window_walk.walk.exchanges):
        check(len(page) <= window_walk.page_size, "MET-PAG-005", "a page holds more points than pageSize",
              expected=f"at most {window_walk.page_size} points", received=f"{len(page)} points", exchange=exchange)


@pytest.mark.rule("MET-TS-006", "MET-TS-007")
def test_every_page_of_a_window_lies_within_it(window_walk: WindowWalk) -> None:
    """No page of the walk, the first or any reached through a token, holds a point outside the window."""
    for exchange in window_walk.walk.exchanges:
        if not 200 <= (exchange.status or 0) < 300:
            break   # a page not served is the pagination rules' deviation; the pages before it are judged
        points = exchange.json().get("results") if exchange.is_json() and isinstance(exchange.json(), dict) else None
        if isinstance(points, list):
            assert_within([p for p in points if isinstance(p, dict)], start=window_walk.start, end=window_walk.end,
                          start_rule="MET-TS-006", end_rule="MET-TS-007", exchange=exchange)


@pytest.mark.rule("MET-PAG-008")
def test_token_form_is_recorded(window_walk: WindowWalk, observe: Callable[[str, Any], None]) -> None:
    """Whether nextPageToken has the form of a UUID is recorded."""
    tokens = [t for t in window_walk.walk.tokens() if isinstance(t, str)]
    observe("MET-PAG-008", {"tokens": len(tokens), "uuid": [bool(UUID.match(t)) for t in tokens]})


@pytest.mark.rule("MET-PAG-006")
def test_malformed_page_token_is_refused(metrics_api: RestClient) -> None:
    """A pageToken no response could have issued is refused with a 4XX and the error body."""
    exchange = metrics_api.get(PATH, {"timeInterval": "day", "pageToken": "not a page token!"})
    assert_refused(exchange, rule_id="MET-PAG-006", api=API, what="a malformed pageToken")


@pytest.mark.rule("MET-PAG-007")
def test_tampered_page_token_is_recorded(metrics_api: RestClient, window_walk: WindowWalk,
                                         observe: Callable[[str, Any], None]) -> None:
    """What a well-formed token with one character changed returns is recorded."""
    token = next((t for t in window_walk.walk.tokens() if isinstance(t, str) and t), None)
    if token is None:
        pytest.skip("the walk received no token to tamper with")
    tampered = token[:-1] + ("0" if token[-1] != "0" else "1")
    answer = metrics_api.get(PATH, {"timeInterval": window_walk.interval, "pageToken": tampered})
    observe("MET-PAG-007", {"status": answer.status, "body": answer.text(300)})
