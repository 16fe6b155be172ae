"""GET /v1/avg_tps/{chainId}: the average TPS response (results, status 200, lastRun) and its pagination."""
from __future__ import annotations

import time
from typing import Any, Callable

import pytest

from conformance.checks.metrics import AGGREGATE_CHAINS, assert_avg_tps_response, avg_tps_path
from conformance.checks.rest import assert_success
from conformance.checks.timeseries import assert_aligned
from conformance.clients.rest import RestClient


def _served(metrics_api: RestClient, chain: str, rule: str, params: dict[str, Any] | None = None) -> Any:
    exchange = metrics_api.get(avg_tps_path(chain), params)
    assert_success(exchange, rule_id=rule, what=f"the average TPS of chain {chain}")
    return exchange


@pytest.mark.rule("MET-TPS-001", "MET-TPS-002", "MET-TPS-003", "MET-TPS-004", "MET-TPS-005", "MET-TPS-006",
                  "MET-TPS-007")
def test_avg_tps_response_has_the_documented_shape(metrics_api: RestClient, evm_chain_id: str) -> None:
    """The route serves an EVM chain with results, status 200, an integer lastRun and a string token if any."""
    assert_avg_tps_response(_served(metrics_api, evm_chain_id, "MET-TPS-001"))


@pytest.mark.rule("MET-TPS-009")
def test_avg_tps_timestamps_are_on_the_hour(metrics_api: RestClient, evm_chain_id: str) -> None:
    """Every average TPS timestamp is a multiple of 3600."""
    exchange = _served(metrics_api, evm_chain_id, "MET-TPS-009")
    assert_aligned("MET-TPS-009", assert_avg_tps_response(exchange)["results"], "hour", exchange=exchange)


@pytest.mark.rule("MET-TPS-008")
def test_avg_tps_token_gets_the_next_page(metrics_api: RestClient, evm_chain_id: str) -> None:
    """A nextPageToken of the route sent as pageToken gets another average TPS response."""
    token = assert_avg_tps_response(_served(metrics_api, evm_chain_id, "MET-TPS-008")).get("nextPageToken")
    if not isinstance(token, str) or not token:
        pytest.skip("the first page carries no nextPageToken to follow")
    assert_avg_tps_response(_served(metrics_api, evm_chain_id, "MET-TPS-008", {"pageToken": token}))


@pytest.mark.rule("MET-TPS-010")
def test_last_run_unit_is_recorded(metrics_api: RestClient, evm_chain_id: str,
                                   observe: Callable[[str, Any], None]) -> None:
    """The unit of lastRun (seconds or milliseconds) and its distance from the current time are recorded."""
    exchange = metrics_api.get(avg_tps_path(evm_chain_id))
    body = exchange.json() if exchange.status == 200 and exchange.is_json() else {}
    last_run = body.get("lastRun") if isinstance(body, dict) else None
    unit, age = None, None
    if isinstance(last_run, (int, float)) and not isinstance(last_run, bool):
        unit = "milliseconds" if last_run > 10**11 else "seconds"
        age = round(time.time() - (last_run / 1000 if unit == "milliseconds" else last_run))
    observe("MET-TPS-010", {"status": exchange.status, "lastRun": last_run, "unit": unit, "age_seconds": age})


@pytest.mark.rule("MET-TPS-011")
@pytest.mark.parametrize("chain", AGGREGATE_CHAINS)
def test_avg_tps_of_aggregate_chain_is_recorded(metrics_api: RestClient, chain: str,
                                                observe: Callable[[str, Any], None]) -> None:
    """What the average TPS route returns for total, mainnet and testnet is recorded."""
    exchange = metrics_api.get(avg_tps_path(chain))
    observe("MET-TPS-011", {"chain": chain, "status": exchange.status, "body": exchange.text(200)})
