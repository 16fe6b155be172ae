"""A longer period against the shorter periods it covers: "Each value covers the period starting at its timestamp
and lasting the requested timeInterval", so a week, a month or a day counts what its days or hours count."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import additive_metrics, distinct_metrics
from conformance.checks.timeseries import assert_between_its_parts, assert_sums_its_parts
from conformance.suite.metrics.conftest import SeriesReader

#: (longer, shorter): each longer period is made of whole shorter periods.
COVERS = (("week", "day"), ("month", "day"), ("day", "hour"))


def _cases(metrics: tuple[str, ...], rule: str) -> list:
    return [pytest.param(metric, longer, shorter, marks=pytest.mark.rule(rule), id=f"{metric}-{longer}-{shorter}")
            for metric in metrics for longer, shorter in COVERS]


def _nothing_compared(longer: str, shorter: str) -> None:
    pytest.skip(f"no settled {longer} with all its {shorter}s settled in the reads (a target may leave out periods "
                "without activity)")


@pytest.mark.parametrize(("metric", "longer", "shorter"), _cases(additive_metrics(), "MET-AGG-001"))
def test_a_period_counts_the_sum_of_its_parts(series_reader: SeriesReader, metric: str, longer: str,
                                              shorter: str) -> None:
    """Each ended week, month or day of a count of events equals the sum of its days or hours."""
    compared = assert_sums_its_parts("MET-AGG-001", series_reader.series(metric, longer),
                                     series_reader.series(metric, shorter))
    if not compared:
        _nothing_compared(longer, shorter)


@pytest.mark.parametrize(("metric", "longer", "shorter"), _cases(distinct_metrics(), "MET-AGG-002"))
def test_a_period_counts_between_its_largest_part_and_their_sum(series_reader: SeriesReader, metric: str,
                                                                longer: str, shorter: str) -> None:
    """Each ended week, month or day of a count of distinct addresses lies between its largest day or hour and the
    sum of its days or hours."""
    compared = assert_between_its_parts("MET-AGG-002", series_reader.series(metric, longer),
                                        series_reader.series(metric, shorter))
    if not compared:
        _nothing_compared(longer, shorter)
