"""The Metrics API relation checks decide what the document makes certain and nothing more: they compare only
settled periods, leave undecided what a read does not cover, and pass the answers the document allows."""
from __future__ import annotations

from collections.abc import Sequence

import pytest

from conformance.checks.timeseries import (DAY, HOUR, WEEK, Series, assert_accumulates, assert_at_most,
                                           assert_between_its_parts, assert_holds_between, assert_same_values,
                                           assert_sums_its_parts)
from conformance.errors import Violation

MONDAY = 1777852800          # 2026-05-04T00:00:00Z


def series(metric: str, interval: str, values: dict[int, float], newest: tuple[int, ...] = ()) -> Series:
    return Series(metric, interval, values, frozenset(newest or (max(values),)))


def days(first: int, values: Sequence[float]) -> dict[int, float]:
    return {first + n * DAY: value for n, value in enumerate(values)}


WEEK_DAYS = days(MONDAY, [10, 20, 30, 40, 50, 60, 70]) | {MONDAY + 7 * DAY: 5}


def test_a_week_is_the_sum_of_its_days_and_only_settled_weeks_are_compared() -> None:
    week = series("txCount", "week", {MONDAY: 280, MONDAY + WEEK: 1})      # the newest week may still change
    assert assert_sums_its_parts("MET-AGG-001", week, series("txCount", "day", WEEK_DAYS)) == 1
    with pytest.raises(Violation, match="MET-AGG-001"):
        assert_sums_its_parts("MET-AGG-001", series("txCount", "week", {MONDAY: 40, MONDAY + WEEK: 1}),
                              series("txCount", "day", WEEK_DAYS))


def test_a_period_with_a_part_missing_or_off_its_interval_is_not_decided() -> None:
    missing = {ts: value for ts, value in WEEK_DAYS.items() if ts != MONDAY + 3 * DAY}
    week = series("txCount", "week", {MONDAY: 1, MONDAY + WEEK: 1})
    assert assert_sums_its_parts("MET-AGG-001", week, series("txCount", "day", missing)) == 0
    sunday = series("txCount", "week", {MONDAY - DAY: 1, MONDAY + WEEK: 1})
    assert assert_sums_its_parts("MET-AGG-001", sunday, series("txCount", "day", WEEK_DAYS)) == 0


def test_a_distinct_count_lies_between_its_largest_part_and_their_sum() -> None:
    day_series = series("activeAddresses", "day", WEEK_DAYS)
    for value in (70, 150, 280):
        week = series("activeAddresses", "week", {MONDAY: value, MONDAY + WEEK: 1})
        assert assert_between_its_parts("MET-AGG-002", week, day_series) == 1
    for value in (69, 281):
        with pytest.raises(Violation, match="MET-AGG-002"):
            assert_between_its_parts("MET-AGG-002", series("activeAddresses", "week", {MONDAY: value,
                                                                                      MONDAY + WEEK: 1}), day_series)


def test_a_day_is_the_sum_of_its_hours() -> None:
    hours = {MONDAY + h * HOUR: 1.0 for h in range(25)}
    assert assert_sums_its_parts("MET-AGG-001", series("gasUsed", "day", {MONDAY: 24, MONDAY + DAY: 0}),
                                 series("gasUsed", "hour", hours)) == 1


@pytest.mark.parametrize(("through", "cumulative"), [("end", [10, 30, 60, 100]), ("start", [0, 10, 30, 60])])
def test_a_cumulative_sum_counts_up_to_the_end_or_the_start_of_its_day(through: str,
                                                                       cumulative: list[float]) -> None:
    per_day = series("txCount", "day", days(MONDAY, [10, 20, 30, 40, 50]))
    total = series("cumulativeTxCount", "day", days(MONDAY, cumulative))
    assert assert_accumulates("MET-CUM-001", total, per_day, through=through, count="sum") == 2
    other = "start" if through == "end" else "end"
    with pytest.raises(Violation, match="MET-CUM-001"):
        assert_accumulates("MET-CUM-001", total, per_day, through=other, count="sum")


def test_a_cumulative_distinct_count_grows_by_at_most_its_day_and_is_never_below_it() -> None:
    per_day = series("deployers", "day", days(MONDAY, [5, 5, 5, 5]))
    kept = series("cumulativeDeployers", "day", days(MONDAY, [100, 103, 108, 200]))
    assert assert_accumulates("MET-CUM-004", kept, per_day, through="end", count="distinct") == 2
    for broken in ([100, 106, 108, 200], [1, 2, 3, 200]):
        with pytest.raises(Violation, match="MET-CUM-004"):
            assert_accumulates("MET-CUM-004", series("cumulativeDeployers", "day", days(MONDAY, broken)), per_day,
                               through="end", count="distinct")


def test_at_most_and_window_checks_leave_the_newest_point_and_the_edges_alone() -> None:
    low, high = days(MONDAY, [1, 2, 9]), days(MONDAY, [1, 3, 4])        # the newest day, 9 > 4, may change
    senders, addresses = series("activeSenders", "day", low), series("activeAddresses", "day", high)
    assert assert_at_most("MET-REL-001", senders, addresses) == 2
    wider = series("txCount", "day", days(MONDAY, [1, 2, 3, 4, 5]))
    window = series("txCount", "day", days(MONDAY + DAY, [2, 3]))       # both edges left out
    assert assert_holds_between("MET-TS-010", window, wider, MONDAY, MONDAY + 3 * DAY) == 2
    assert assert_same_values("MET-TS-011", series("txCount", "day", days(MONDAY, [1, 2, 7])), wider) == 2
    with pytest.raises(Violation, match="MET-TS-011"):
        assert_same_values("MET-TS-011", series("txCount", "day", days(MONDAY, [1, 7, 3])), wider)


def test_every_metrics_declaration_is_on_an_object_the_suite_reads() -> None:
    """Each declared relation of the Metrics API is on an object a test of the suite reads (its data points, or
    the average TPS answer), so the watch sees every declaration's objects."""
    from conformance.suite.metrics.test_declared_relations import RELATIONS
    assert {d.subject for d in RELATIONS} <= {"DataPoint", "AvgTpsResponse"}
