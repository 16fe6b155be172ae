"""Each of the 17 metrics is served at the intervals the document lists for it and refused at the others."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import (API, assert_metric_response, intervals, metric_intervals, metric_path,
                                       small_page_size)
from conformance.checks.rest import assert_refused, assert_success
from conformance.clients.rest import RestClient
from conformance.suite.metrics.conftest import CHAIN, interval_rule

METRICS = [pytest.param(metric, marks=pytest.mark.rule(interval_rule(metric)), id=metric)
           for metric in metric_intervals()]


@pytest.mark.parametrize("metric", METRICS)
def test_metric_is_served_only_at_its_intervals(metrics_api: RestClient, metric: str) -> None:
    """The metric answers each interval of x-metric-intervals and refuses every other interval."""
    rule = interval_rule(metric)
    for interval in intervals():
        exchange = metrics_api.get(metric_path(CHAIN, metric),
                                   {"timeInterval": interval, "pageSize": small_page_size()})
        if interval in metric_intervals()[metric]:
            assert_success(exchange, rule_id=rule, what=f"{metric} at timeInterval {interval}")
            assert_metric_response(exchange)
        else:
            assert_refused(exchange, rule_id=rule, api=API, what=f"{metric} at timeInterval {interval}")
