"""chainId: a supported EVM chain ID and each of total, mainnet and testnet are accepted."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks.metrics import AGGREGATE_CHAINS, assert_metric_response, metric_path, small_page_size
from conformance.checks.rest import assert_success
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
