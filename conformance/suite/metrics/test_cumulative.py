"""Cumulative metrics against their per-day metrics: each accumulates its day metric from genesis, to the
timestamp (cumulativeContracts) or to 24 hours after it (the others), as a sum or as distinct addresses."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import cumulative_metrics
from conformance.checks.timeseries import assert_accumulates
from conformance.suite.metrics.conftest import SeriesReader

#: The rule deciding each cumulative metric's relation to its per-day metric.
RULES = {"cumulativeTxCount": "MET-CUM-001", "cumulativeContracts": "MET-CUM-002",
         "cumulativeAddresses": "MET-CUM-003", "cumulativeDeployers": "MET-CUM-004"}


@pytest.mark.parametrize("metric", [pytest.param(metric, marks=pytest.mark.rule(RULES[metric]), id=metric)
                                    for metric in cumulative_metrics()])
def test_cumulative_metric_accumulates_its_day_metric(series_reader: SeriesReader, metric: str) -> None:
    """From one ended day to the next, the cumulative value grows by the day metric of the day it adds (at most
    by it, for distinct addresses, and never below it)."""
    relation = cumulative_metrics()[metric]
    compared = assert_accumulates(RULES[metric], series_reader.series(metric, "day"),
                                  series_reader.series(relation["per"], "day"), through=relation["through"],
                                  count=relation["count"])
    if not compared:
        pytest.skip(f"no two settled {metric} days with the {relation['per']} of the days between them settled")
