"""Fixtures of the Metrics API suite: the chain IDs to test, a data point to anchor time windows on, and lenient
reads of series for the tests that relate one answer to another."""
from __future__ import annotations

from typing import Any, NoReturn
from collections.abc import Callable

import pytest

from conformance import evidence
from conformance.checks.metrics import metric_path
from conformance.checks.timeseries import DAY, Series, period_start, series_of, shift_periods
from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient
from conformance.errors import SuiteError
from conformance.pagination import BUDGET, walk_pages
from conformance.rules import load_catalogue

#: The chain most tests read: documented as accepted by every target ("one of total, mainnet, testnet").
CHAIN = "total"
EXHAUSTIVE = pytest.mark.exhaustive
#: A UNIX time above this is in milliseconds (10**11 seconds is the year 5138).
MILLISECONDS = 10**11


def variant(*values: Any, quick: bool, marks: Any = (), id: str | None = None) -> Any:
    """A parameter set; unless `quick`, it runs only in exhaustive profiles."""
    marks = [marks] if isinstance(marks, pytest.MarkDecorator) else list(marks)
    return pytest.param(*values, marks=marks + ([] if quick else [EXHAUSTIVE]), id=id)


def interval_rule(metric: str) -> str:
    """The MET-INT rule whose title names `metric` ("txCount is served at ...")."""
    return next(rule.id for rule in load_catalogue() if rule.id.startswith("MET-INT-")
                and rule.title.split(" ", 1)[0] == metric)


@pytest.fixture(scope="session")
def evm_chain_id(sample: Callable[[str], str]) -> str:
    """A supported EVM chain ID: --sample evm_chain_id=ID, else the one discovery read from the node's EVM chain or
    the Data API's listBlockchains (the Metrics API cannot list the chains it supports)."""
    return sample("evm_chain_id")


@pytest.fixture(scope="session")
def latest_day(metrics_api: RestClient) -> int:
    """00:00 UTC of the latest day with a txCount point of the chain: windows in the past are built from it,
    because a target's clock (and the reference's) need not be the suite's."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": "day", "pageSize": 3})
    body = exchange.json() if exchange.status == 200 and exchange.is_json() else {}
    given = [p.get("timestamp") for p in (body.get("results") or []) if isinstance(p, dict)] \
        if isinstance(body, dict) else []
    stamps = [int(ts) for ts in given if isinstance(ts, (int, float)) and not isinstance(ts, bool)]
    if not stamps:
        raise SuiteError(f"no daily txCount point of chain {CHAIN} to anchor time windows on: {exchange.curl()}")
    if max(stamps) > MILLISECONDS:
        pytest.skip("the latest daily txCount timestamp is not in UNIX seconds (MET-TS-005 reports it): no window "
                    "can be anchored on it")
    return period_start(max(stamps), "day")


# Lenient reads for the relation tests ------------------------------------------------------------------------

def read_pages(exchanges: list[Exchange], metric: str, interval: str) -> Series:
    """The series of answered pages. A page not served, or not a JSON object with a results array, is another
    rule's deviation: the relation cannot be decided, and the test is skipped, blocked by that rule."""
    pages = []
    for exchange in exchanges:
        require_served(exchange, metric, interval)
        body = exchange.json() if exchange.is_json() else None
        if not isinstance(body, dict):
            _blocked("MET-ENV-001", f"the {metric} answer is not a JSON object")
        if not isinstance(body.get("results"), list):
            _blocked("MET-SHP-001", f"the {metric} answer has no results array")
        pages.append(body["results"])
    return series_of(metric, interval, pages, exchanges[0] if exchanges else None)


def require_served(exchange: Exchange, metric: str, interval: str) -> None:
    """Skips the test, blocked by the metric's interval rule, unless `exchange` was answered with a 2XX: the
    request it depends on is not served, which that rule's test reports."""
    if not 200 <= (exchange.status or 0) < 300:
        blocker = interval_rule(metric) if 400 <= (exchange.status or 0) < 500 else None
        _blocked(blocker, f"{metric} at timeInterval {interval} is not served (status {exchange.status})")


def _blocked(rule_id: str | None, reason: str) -> NoReturn:
    if rule_id is not None:
        evidence.blocked_by(rule_id)
    pytest.skip(f"{reason}; its own test reports it" if rule_id else reason)


class SeriesReader:
    """Reads series of one chain for the relation tests, each (metric, interval) once per run.

    A relation compares periods that have ended, read in one request that reaches the present: startTimestamp is
    set one period before the first period compared (whether a point at startTimestamp itself is served is not
    determined) and endTimestamp is left out, so that the newest point of each answer, whose value may still
    change, is the series' newest and no period compared is one.
    """

    def __init__(self, api: RestClient, chain: str, latest_day: int, once: Callable[..., Any]) -> None:
        self.api = api
        self.chain = chain
        self.latest_day = latest_day
        # The run's cache (the `once` fixture): a test run again to see whether a deviation shows again reads afresh.
        self._once = once

    def first_compared(self, interval: str) -> int:
        """The first period compared at `interval`: the days, weeks and month of the latest complete month and
        after, the hours of the day before the latest, and the windows of `window_before`."""
        month = shift_periods(self.latest_day, "month", -1)
        first = {"hour": self.latest_day - DAY, "day": month, "week": period_start(month, "week"),
                 "month": month}[interval]
        return min(first, window_before(self.latest_day, interval)[0])

    def series(self, metric: str, interval: str) -> Series:
        def read() -> Series:
            since = shift_periods(self.first_compared(interval), interval, -1)
            # every period from `since` to the latest day, and room for a target's newest points after it
            room = {"hour": 48, "day": 8, "week": 3, "month": 3}[interval]
            exchange = self.api.get(metric_path(self.chain, metric), {
                "timeInterval": interval, "startTimestamp": since,
                "pageSize": periods_within(since, self.latest_day, interval) + room})
            return read_pages([exchange], metric, interval)
        return self._once(read, self.api.base_url, self.chain, self.latest_day, metric, interval)


def window_before(latest_day: int, interval: str) -> tuple[int, int]:
    """An interval-aligned window that has ended: from five to two periods before the one of the latest day."""
    anchor = period_start(latest_day, interval)
    return shift_periods(anchor, interval, -5), shift_periods(anchor, interval, -2)


@pytest.fixture(scope="session")
def series_reader(metrics_api: RestClient, latest_day: int, once: Any) -> SeriesReader:
    return SeriesReader(metrics_api, CHAIN, latest_day, once)


def read_window(metrics_api: RestClient, metric: str, interval: str, start: int, end: int, *,
                budget: int) -> Series:
    """Every page of a window (endTimestamp given, a page large enough to hold it), walked within `budget` pages;
    skipped, blocked by a pagination rule, when the walk breaks off or does not end."""
    walk = walk_pages(metrics_api, metric_path(CHAIN, metric),
                      {"timeInterval": interval, "startTimestamp": start, "endTimestamp": end,
                       "pageSize": periods_within(start, end, interval) + 10}, budget=budget)
    require_served(walk.exchanges[0], metric, interval)
    if not walk.complete:
        _blocked("MET-PAG-002" if walk.stopped == BUDGET else "MET-PAG-003",
                 f"the window's walk did not end ({walk.stopped} after {len(walk.exchanges)} pages)")
    return read_pages(walk.exchanges, metric, interval)


def periods_within(start: int, end: int, interval: str) -> int:
    """How many periods of `interval` start within [start, end]."""
    count, moment = 0, start
    while moment <= end:
        count, moment = count + 1, shift_periods(moment, interval, 1)
    return count
