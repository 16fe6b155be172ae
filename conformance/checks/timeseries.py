"""Time-series checks of the Metrics API: timestamps aligned to their interval, points inside a time range.

Intervals are UTC periods: an hour starts on the hour, a day at 00:00 UTC, a week on Monday 00:00 UTC and a
month on the first day at 00:00 UTC (3-metrics-api.md, "What the service does").
"""
from __future__ import annotations

import calendar
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from conformance.checks import check, independently
from conformance.clients.http import Exchange

HOUR = 3600
DAY = 24 * HOUR
WEEK = 7 * DAY
#: 1970-01-05 00:00 UTC, the first Monday of the UNIX epoch.
FIRST_MONDAY = 4 * DAY
#: What "aligned" means per interval, as the failure message says it.
ALIGNMENT = {"hour": "on the hour (a multiple of 3600)", "day": "00:00 UTC of a day",
             "week": "00:00 UTC of a Monday", "month": "00:00 UTC of the first day of a month"}


def is_aligned(timestamp: int, interval: str) -> bool:
    """Whether `timestamp` (UNIX seconds) starts a period of `interval`."""
    if interval == "hour":
        return timestamp % HOUR == 0
    if interval == "day":
        return timestamp % DAY == 0
    if interval == "week":
        return (timestamp - FIRST_MONDAY) % WEEK == 0
    if interval == "month":
        return timestamp % DAY == 0 and datetime.fromtimestamp(timestamp, tz=timezone.utc).day == 1
    raise ValueError(f"unknown interval {interval!r}")


def period_start(timestamp: int, interval: str) -> int:
    """The start of the `interval` period that contains `timestamp`."""
    if interval == "hour":
        return timestamp - timestamp % HOUR
    if interval == "day":
        return timestamp - timestamp % DAY
    if interval == "week":
        return timestamp - (timestamp - FIRST_MONDAY) % WEEK
    if interval == "month":
        moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
        return calendar.timegm((moment.year, moment.month, 1, 0, 0, 0))
    raise ValueError(f"unknown interval {interval!r}")


def shift_periods(timestamp: int, interval: str, count: int) -> int:
    """The start of the period `count` periods after (negative: before) the one containing `timestamp`."""
    start = period_start(timestamp, interval)
    if interval == "month":
        moment = datetime.fromtimestamp(start, tz=timezone.utc)
        months = moment.year * 12 + moment.month - 1 + count
        return calendar.timegm((months // 12, months % 12 + 1, 1, 0, 0, 0))
    return start + count * {"hour": HOUR, "day": DAY, "week": WEEK}[interval]


def timestamps(points: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The timestamp of each data point, as given."""
    return [point.get("timestamp") for point in points if isinstance(point, Mapping)]


def _integers(values: Sequence[Any]) -> list[int]:
    return [int(v) for v in values
            if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer()]


def assert_aligned(rule_id: str, points: Sequence[Mapping[str, Any]], interval: str, *,
                   exchange: Exchange | None = None) -> None:
    """Fails `rule_id` when a data point's timestamp does not start a period of `interval`."""
    wrong = [ts for ts in _integers(timestamps(points)) if not is_aligned(ts, interval)]
    check(not wrong, rule_id, f"timeInterval {interval} timestamps are not {ALIGNMENT[interval]}",
          expected=f"every timestamp {ALIGNMENT[interval]}",
          received=", ".join(f"{ts} ({_iso(ts)})" for ts in wrong[:5]), exchange=exchange)


def assert_within(points: Sequence[Mapping[str, Any]], *, start: int | None, end: int | None,
                  start_rule: str, end_rule: str, exchange: Exchange | None = None) -> None:
    """Fails `start_rule` for a point before `start`, `end_rule` for a point after `end` (both inclusive)."""
    stamps = _integers(timestamps(points))
    if start is not None:
        with independently():   # each end of the range is its own rule: a point too early hides no point too late
            early = [ts for ts in stamps if ts < start]
            check(not early, start_rule, "data points lie before startTimestamp",
                  expected=f"timestamps >= startTimestamp {start} ({_iso(start)})",
                  received=", ".join(f"{ts} ({_iso(ts)})" for ts in early[:5]), exchange=exchange)
    if end is not None:
        late = [ts for ts in stamps if ts > end]
        check(not late, end_rule, "data points lie after endTimestamp",
              expected=f"timestamps <= endTimestamp {end} ({_iso(end)})",
              received=", ".join(f"{ts} ({_iso(ts)})" for ts in late[:5]), exchange=exchange)


def assert_distinct_timestamps(rule_id: str, points: Sequence[Mapping[str, Any]], *,
                               exchange: Exchange | None = None, what: str = "one response") -> None:
    """Fails `rule_id` when two data points share a timestamp."""
    seen: set[Any] = set()
    repeated = []
    for ts in timestamps(points):
        if ts in seen:
            repeated.append(ts)
        seen.add(ts)
    check(not repeated, rule_id, f"data points of {what} share a timestamp", expected="each timestamp at most once",
          received=f"repeated: {repeated[:5]}", exchange=exchange)


def assert_not_after(rule_id: str, points: Sequence[Mapping[str, Any]], limit: int, *,
                     exchange: Exchange | None = None) -> None:
    """Fails `rule_id` when a timestamp lies after `limit` (for instance the current time plus a day)."""
    late = [ts for ts in _integers(timestamps(points)) if ts > limit]
    check(not late, rule_id, "data point timestamps lie in the future (not UNIX seconds?)",
          expected=f"UNIX seconds, at most {limit} ({_iso(limit)})", received=late[:5], exchange=exchange)


def order_of(stamps: Sequence[int]) -> str:
    """"ascending", "descending", "single" (fewer than two points) or "unordered"."""
    if len(stamps) < 2:
        return "single"
    if all(a < b for a, b in zip(stamps, stamps[1:])):
        return "ascending"
    if all(a > b for a, b in zip(stamps, stamps[1:])):
        return "descending"
    return "unordered"


def _iso(timestamp: int) -> str:
    try:
        return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ %a")
    except (OverflowError, OSError, ValueError):
        return "out of range"
