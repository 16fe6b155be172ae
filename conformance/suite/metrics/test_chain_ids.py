"""chainId: a supported EVM chain ID and each of total, mainnet and testnet are accepted; how they relate is
recorded."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks.metrics import (AGGREGATE_CHAINS, assert_metric_response, metric_path, small_page_size,
                                       value_of)
from conformance.checks.rest import assert_success
from conformance.checks.timeseries import shift_periods
from conformance.clients.rest import RestClient

AGGREGATE_RULES = {"total": "MET-CHN-001", "mainnet": "MET-CHN-002", "testnet": "MET-CHN-003"}


def _assert_accepted(metrics_api: RestClient, chain: str, rule: str) -> None:
    exchange = metrics_api.get(metric_path(chain, "txCount"), {"timeInterval": "day", "pageSize": small_page_size()})
    assert_success(exchange, rule_id=rule, what=f"chainId {chain}")
    assert_metric_response(exchange)


@pytest.mark.parametrize("chain", [pytest.param(c, marks=pytest.mark.rule(AGGREGATE_RULES[c]), id=c)
                                   for c in AGGREGATE_CHAINS])
def test_aggregate_chain_id_is_accepted(metrics_api: RestClient, chain: str) -> None:
    """txCount of the aggregate chain ID is served."""
    _assert_accepted(metrics_api, chain, AGGREGATE_RULES[chain])


@pytest.mark.rule("MET-CHN-004")
def test_evm_chain_id_is_accepted(metrics_api: RestClient, evm_chain_id: str) -> None:
    """txCount of a supported EVM chain ID is served."""
    _assert_accepted(metrics_api, evm_chain_id, "MET-CHN-004")


@pytest.mark.rule("MET-CHN-005")
def test_unsupported_chain_id_is_recorded(metrics_api: RestClient, observe: Callable[[str, Any], None]) -> None:
    """The status and body returned for a chain ID no EVM chain uses are recorded."""
    exchange = metrics_api.get(metric_path("999999999999", "txCount"), {"timeInterval": "day",
                                                                        "pageSize": small_page_size()})
    observe("MET-CHN-005", {"status": exchange.status, "body": exchange.text(300)})


@pytest.mark.rule("MET-CHN-006")
def test_aggregate_chains_relation_is_recorded(metrics_api: RestClient, evm_chain_id: str, latest_day: int,
                                               observe: Callable[[str, Any], None]) -> None:
    """How the txCount of an ended day of total, mainnet, testnet and the EVM chain relate is recorded: the document
    does not say what total covers."""
    day = shift_periods(latest_day, "day", -1)
    counts: dict[str, Any] = {}
    for chain in (*AGGREGATE_CHAINS, evm_chain_id):
        exchange = metrics_api.get(metric_path(chain, "txCount"), {"timeInterval": "day", "startTimestamp": day,
                                                                   "endTimestamp": day, "pageSize": 2})
        body = exchange.json() if exchange.status == 200 and exchange.is_json() else None
        points = body.get("results") if isinstance(body, dict) else None
        counts[chain] = next((value_of(p) for p in points or [] if isinstance(p, dict) and p.get("timestamp") == day),
                             f"status {exchange.status}, no point")
    numbers = {chain: value for chain, value in counts.items() if isinstance(value, float)}
    relation = {}
    if {"total", "mainnet", "testnet"} <= set(numbers):
        relation["total_is_mainnet_plus_testnet"] = numbers["total"] == numbers["mainnet"] + numbers["testnet"]
    if {"total", evm_chain_id} <= set(numbers):
        relation["evm_chain_at_most_total"] = numbers[evm_chain_id] <= numbers["total"]
    observe("MET-CHN-006", {"day": day, "txCount": counts, **relation})
