"""Time-series checks of the Metrics API: timestamps aligned to their interval, points inside a time range, and
the relations the document makes certain between series (a period and the shorter periods it covers, a cumulative
metric and its per-day metric, two metrics of one period, a window and a wider read of the same series).

Intervals are UTC periods: an hour starts on the hour, a day at 00:00 UTC, a week on Monday 00:00 UTC and a
month on the first day at 00:00 UTC (3-metrics-api.md, "What the service does").
"""
from __future__ import annotations

import calendar
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, UTC
from typing import Any

from conformance.checks import check, independently
from conformance.checks.metrics import value_of
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
        try:
            return timestamp % DAY == 0 and datetime.fromtimestamp(timestamp, tz=UTC).day == 1
        except (OverflowError, OSError, ValueError):   # beyond the calendar (milliseconds read as seconds)
            return False
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
        moment = datetime.fromtimestamp(timestamp, tz=UTC)
        return calendar.timegm((moment.year, moment.month, 1, 0, 0, 0))
    raise ValueError(f"unknown interval {interval!r}")


def shift_periods(timestamp: int, interval: str, count: int) -> int:
    """The start of the period `count` periods after (negative: before) the one containing `timestamp`."""
    start = period_start(timestamp, interval)
    if interval == "month":
        moment = datetime.fromtimestamp(start, tz=UTC)
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
          received=", ".join(f"{ts} ({iso(ts)})" for ts in wrong[:5]), exchange=exchange)


def assert_within(points: Sequence[Mapping[str, Any]], *, start: int | None, end: int | None,
                  start_rule: str, end_rule: str, exchange: Exchange | None = None) -> None:
    """Fails `start_rule` for a point before `start`, `end_rule` for a point after `end` (both inclusive)."""
    stamps = _integers(timestamps(points))
    if start is not None:
        with independently():   # each end of the range is its own rule: a point too early hides no point too late
            early = [ts for ts in stamps if ts < start]
            check(not early, start_rule, "data points lie before startTimestamp",
                  expected=f"timestamps >= startTimestamp {start} ({iso(start)})",
                  received=", ".join(f"{ts} ({iso(ts)})" for ts in early[:5]), exchange=exchange)
    if end is not None:
        late = [ts for ts in stamps if ts > end]
        check(not late, end_rule, "data points lie after endTimestamp",
              expected=f"timestamps <= endTimestamp {end} ({iso(end)})",
              received=", ".join(f"{ts} ({iso(ts)})" for ts in late[:5]), exchange=exchange)


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
          expected=f"UNIX seconds, at most {limit} ({iso(limit)})", received=late[:5], exchange=exchange)


def order_of(stamps: Sequence[int]) -> str:
    """"ascending", "descending", "single" (fewer than two points) or "unordered"."""
    if len(stamps) < 2:
        return "single"
    if all(a < b for a, b in zip(stamps, stamps[1:])):
        return "ascending"
    if all(a > b for a, b in zip(stamps, stamps[1:])):
        return "descending"
    return "unordered"


def iso(timestamp: int) -> str:
    """A UNIX time as UTC date, time and weekday, for failure messages."""
    try:
        return datetime.fromtimestamp(timestamp, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ %a")
    except (OverflowError, OSError, ValueError):
        return "out of range"


# Relations: one series against another, or against itself read another way -------------------------------------
#
# "The latest data point of any response may change on each refresh": a relation compares only settled points,
# those that are not the newest point of the response that gave them. Every other point covers a period that
# has ended, and a period's value depends on the period alone, whatever request reads it.

@dataclass(frozen=True)
class Series:
    """The readable points of one metric at one interval (timestamp -> value), from one or more responses."""

    metric: str
    interval: str
    values: Mapping[int, float]
    newest: frozenset[int]            # the newest timestamp of each response read: its value may still change
    exchange: Exchange | None = None  # the (first) response, to reproduce a failure with

    def settled(self) -> dict[int, float]:
        return {ts: value for ts, value in self.values.items() if ts not in self.newest}

    def describe(self, timestamp: int) -> str:
        return f"{self.metric} {self.interval} {iso(timestamp)}: {_number(self.values.get(timestamp))}"


def series_of(metric: str, interval: str, pages: Sequence[Sequence[Any]],
              exchange: Exchange | None = None) -> Series:
    """The series of the points of `pages` (one list of points per response) that have an integer timestamp and a
    numeric value (read also from a decimal string: its form is a shape rule's question, not a relation's)."""
    values: dict[int, float] = {}
    newest: set[int] = set()
    for points in pages:
        read = [(ts, value) for point in points if isinstance(point, Mapping)
                for ts in _integers([point.get("timestamp")]) if (value := value_of(point)) is not None]
        values.update(read)
        if read:
            newest.add(max(ts for ts, _ in read))
    return Series(metric, interval, values, frozenset(newest), exchange)


def parts_of(timestamp: int, longer: str, shorter: str) -> list[int]:
    """The starts of the `shorter` periods that make up the `longer` period starting at `timestamp`."""
    end = shift_periods(timestamp, longer, 1)
    parts, moment = [], timestamp
    while moment < end:
        parts.append(moment)
        moment = shift_periods(moment, shorter, 1)
    return parts


def covered(longer: Series, shorter: Series) -> list[tuple[int, float, list[float]]]:
    """(timestamp, value, values of its parts) of each settled `longer` period that starts a period of its interval
    and whose `shorter` parts are all settled. A period with a part missing is not decided: a target may leave out
    a period without activity, and a timestamp off its interval is the alignment rules' deviation."""
    parts_read = shorter.settled()
    rows = []
    for ts, value in sorted(longer.settled().items()):
        if not is_aligned(ts, longer.interval):
            continue
        parts = parts_of(ts, longer.interval, shorter.interval)
        if all(part in parts_read for part in parts):
            rows.append((ts, value, [parts_read[part] for part in parts]))
    return rows


def assert_sums_its_parts(rule_id: str, longer: Series, shorter: Series) -> int:
    """Fails `rule_id` when a `longer` period's value is not the sum of its `shorter` parts; returns how many
    periods were compared (0: nothing decided)."""
    rows = covered(longer, shorter)
    wrong = [(ts, value, sum(parts)) for ts, value, parts in rows if not _same(value, sum(parts))]
    if rows:
        check(not wrong, rule_id, f"the {longer.metric} of a {longer.interval} is not the sum of its "
              f"{shorter.interval}s", expected=f"each {longer.interval} value equal to the sum of the "
              f"{shorter.interval} values it covers", received="; ".join(
                  f"{iso(ts)}: {_number(value)}, its {shorter.interval}s sum to {_number(total)}"
                  for ts, value, total in wrong[:3]), exchange=longer.exchange)
    return len(rows)


def assert_between_its_parts(rule_id: str, longer: Series, shorter: Series) -> int:
    """Fails `rule_id` when a distinct count of a `longer` period is below its largest `shorter` part or above
    their sum (every address of a part is one of the period's, and each of the period's is in some part)."""
    rows = covered(longer, shorter)
    wrong = [(ts, value, max(parts), sum(parts)) for ts, value, parts in rows
             if not _at_most(max(parts), value) or not _at_most(value, sum(parts))]
    if rows:
        check(not wrong, rule_id, f"the {longer.metric} of a {longer.interval} lies outside the bounds its "
              f"{shorter.interval}s set", expected=f"largest {shorter.interval} value <= {longer.interval} value "
              f"<= sum of the {shorter.interval} values", received="; ".join(
                  f"{iso(ts)}: {_number(value)}, its {shorter.interval}s from {_number(top)} (largest) to "
                  f"{_number(total)} (sum)" for ts, value, top, total in wrong[:3]), exchange=longer.exchange)
    return len(rows)


def assert_accumulates(rule_id: str, cumulative: Series, per_day: Series, *, through: str, count: str) -> int:
    """Fails `rule_id` when daily `cumulative` values do not accumulate `per_day`, counted from genesis up to the
    timestamp (`through` "start") or to 24 hours after it ("end"): between two settled cumulative days the value
    grows by the sum of the days in between (`count` "sum"), or by at most that sum while never being below the
    last of those days (`count` "distinct": an address counted once however many days it is active)."""
    days = per_day.settled()
    reach = (lambda ts: ts) if through == "start" else (lambda ts: ts + DAY)   # the instant a value counts up to
    stamps = sorted(ts for ts in cumulative.settled() if is_aligned(ts, "day"))
    values = cumulative.values
    wrong: list[str] = []
    compared = 0
    for before, after in zip(stamps, stamps[1:]):
        between = list(range(reach(before), reach(after), DAY))
        if not all(day in days for day in between):
            continue
        compared += 1
        growth, total = values[after] - values[before], sum(days[day] for day in between)
        if count == "sum" and not _same(growth, total):
            wrong.append(f"{iso(before)} -> {iso(after)}: grows by {_number(growth)}, the {per_day.metric} "
                         f"of {iso(between[0])}{'…' if len(between) > 1 else ''} is {_number(total)}")
        elif count == "distinct" and not (_at_most(growth, total) and _at_most(days[between[-1]], values[after])):
            wrong.append(f"{iso(before)} -> {iso(after)}: {_number(values[before])} -> {_number(values[after])}, "
                         f"the {per_day.metric} of {iso(between[-1])} is {_number(days[between[-1]])}")
    if compared:
        bound = "to the timestamp" if through == "start" else "to 24 hours after the timestamp"
        expected = (f"each day's growth equal to the {per_day.metric} of the day it adds ({bound})"
                    if count == "sum" else f"each day's growth at most that day's {per_day.metric}, and the value "
                    f"at least that day's {per_day.metric} ({bound})")
        check(not wrong, rule_id, f"{cumulative.metric} does not accumulate {per_day.metric}", expected=expected,
              received="; ".join(wrong[:3]), exchange=cumulative.exchange)
    return compared


def assert_at_most(rule_id: str, smaller: Series, larger: Series) -> int:
    """Fails `rule_id` when `smaller` exceeds `larger` for a period settled in both; returns how many compared."""
    low, high = smaller.settled(), larger.settled()
    common = sorted(set(low) & set(high))
    wrong = [ts for ts in common if not _at_most(low[ts], high[ts])]
    if common:
        check(not wrong, rule_id, f"{smaller.metric} exceeds {larger.metric} of the same {smaller.interval}",
              expected=f"{smaller.metric} <= {larger.metric} for every {smaller.interval}",
              received="; ".join(f"{iso(ts)}: {_number(low[ts])} > {_number(high[ts])}" for ts in wrong[:3]),
              exchange=smaller.exchange)
    return len(common)


def assert_holds_between(rule_id: str, window: Series, wider: Series, start: int, end: int) -> int:
    """Fails `rule_id` when a point of `wider` strictly between `start` and `end` is missing from `window`;
    returns how many points were looked for (the edges themselves are not determined: "after", "before")."""
    inside = sorted(ts for ts in wider.values if start < ts < end)
    missing = [ts for ts in inside if ts not in window.values]
    if inside:
        check(not missing, rule_id, "the window leaves out data points that lie inside it",
              expected=f"every point strictly between startTimestamp {start} ({iso(start)}) and endTimestamp {end} "
              f"({iso(end)}): {len(inside)} in a wider read", received=f"{len(missing)} missing: "
              + ", ".join(f"{ts} ({iso(ts)})" for ts in missing[:5]), exchange=window.exchange)
    return len(inside)


def assert_same_values(rule_id: str, window: Series, wider: Series) -> int:
    """Fails `rule_id` when a timestamp settled in both reads has two values; returns how many compared."""
    mine, theirs = window.settled(), wider.settled()
    common = sorted(set(mine) & set(theirs))
    wrong = [ts for ts in common if not _same(mine[ts], theirs[ts])]
    if common:
        check(not wrong, rule_id, f"{window.metric} values of a window in the past differ from the same timestamps "
              "read up to the present", expected="the value each timestamp has in a read that reaches the present",
              received="; ".join(f"{iso(ts)}: {_number(mine[ts])} in the window, {_number(theirs[ts])} up to the "
                                 "present" for ts in wrong[:3]), exchange=window.exchange)
    return len(common)


#: Values of a period are compared as the numbers they are: counts are exact; the margin only absorbs the
#: rounding of binary floating point when a target writes large counts as floats.
_RELATIVE = 1e-9


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_RELATIVE, abs_tol=1e-9)


def _at_most(a: float, b: float) -> bool:
    return a <= b or _same(a, b)


def _number(value: float | None) -> str:
    if value is None:
        return "none"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
