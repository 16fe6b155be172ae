"""Two metrics of the same period: senders are addresses of the from field, each deployer creates a contract,
and a day's average gas price never exceeds its maximum."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks.metrics import at_most_pairs, metric_intervals
from conformance.checks.timeseries import assert_at_most
from conformance.suite.metrics.conftest import SeriesReader, variant

#: The rule deciding each (smaller, larger) pair of x-metric-relations' at-most.
RULES = {("activeSenders", "activeAddresses"): "MET-REL-001", ("deployers", "contracts"): "MET-REL-002",
         ("avgGasPrice", "maxGasPrice"): "MET-REL-003"}


def _cases() -> list:
    # a day decides each pair in every profile; the pair's other intervals are further variants of its rule
    return [variant(smaller, larger, interval, quick=interval == "day", marks=pytest.mark.rule(RULES[smaller, larger]),
                    id=f"{smaller}-{larger}-{interval}")
            for smaller, larger in at_most_pairs() for interval in metric_intervals()[smaller]]


@pytest.mark.parametrize(("smaller", "larger", "interval"), _cases())
def test_one_metric_never_exceeds_another_of_the_same_period(series_reader: SeriesReader, smaller: str, larger: str,
                                                             interval: str) -> None:
    """For every ended period read, the first metric is at most the second."""
    compared = assert_at_most(RULES[smaller, larger], series_reader.series(smaller, interval),
                              series_reader.series(larger, interval))
    if not compared:
        pytest.skip(f"no {interval} settled in both {smaller} and {larger}")


@pytest.mark.rule("MET-REL-004")
@pytest.mark.parametrize(("average", "maximum"), at_most_pairs(recorded=True))
def test_average_against_maximum_per_second_is_recorded(series_reader: SeriesReader, average: str, maximum: str,
                                                        observe: Callable[[str, Any], None]) -> None:
    """Whether a day's average per-second rate is at most its maximum is recorded: both are per block timing,
    which a target may compute apart (blocks within one second have no time since the previous one)."""
    low, high = series_reader.series(average, "day").settled(), series_reader.series(maximum, "day").settled()
    common = sorted(set(low) & set(high))
    above = [ts for ts in common if low[ts] > high[ts]]
    observe("MET-REL-004", {"average": average, "maximum": maximum, "days": len(common),
                            "average_above_maximum": [{"timestamp": ts, average: low[ts], maximum: high[ts]}
                                                      for ts in above[:5]]})
