"""GET /v1/avg_tps/{chainId}: the average TPS response (results, status 200, lastRun) and its pagination."""
from __future__ import annotations

import time
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.metrics import AGGREGATE_CHAINS, assert_avg_tps_response, avg_tps_path
from conformance.checks.rest import assert_success
from conformance.checks.timeseries import assert_aligned, iso, period_start
from conformance.clients.rest import RestClient
from conformance.suite.metrics.conftest import MILLISECONDS


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
    """A nextPageToken of the route sent as pageToken gets another average TPS response, which serves none of the
    first page's points again."""
    first = assert_avg_tps_response(_served(metrics_api, evm_chain_id, "MET-TPS-008"))
    token = first.get("nextPageToken")
    if not isinstance(token, str) or not token:
        pytest.skip("the first page carries no nextPageToken to follow")
    following = _served(metrics_api, evm_chain_id, "MET-TPS-008", {"pageToken": token})
    second = assert_avg_tps_response(following)
    again = sorted(set(_stamps(first)) & set(_stamps(second)))
    if again:
        # A series that gained points between the requests may shift a token that counts points by as many: the
        # first page read once more says how many appeared.
        newer = [ts for ts in _stamps(assert_avg_tps_response(_served(metrics_api, evm_chain_id, "MET-TPS-008")))
                 if ts > max(_stamps(first), default=0)]
        again = again[len(newer):]
    check(not again, "MET-TPS-008", "the page after the token serves points of the page before it",
          expected="the data points that follow the first page", received=f"{len(again)} timestamps of the first "
          f"page again: {again[:5]}", exchange=following)


@pytest.mark.rule("MET-TPS-012")
def test_last_run_is_not_before_the_newest_point(metrics_api: RestClient, evm_chain_id: str) -> None:
    """The last data update (lastRun, read in seconds or milliseconds) is no earlier than the newest point's
    period start: a point is computed from data that existed when it was."""
    exchange = _served(metrics_api, evm_chain_id, "MET-TPS-012")
    body = assert_avg_tps_response(exchange)
    last_run, stamps = body.get("lastRun"), _stamps(body)
    if not isinstance(last_run, int) or isinstance(last_run, bool) or not stamps:
        pytest.skip("no integer lastRun, or no point, to compare (the shape test reports a wrong form)")
    seconds = last_run / 1000 if last_run > MILLISECONDS else last_run   # the unit is recorded by MET-TPS-010
    # the start of the newest point's hour: a timestamp off the hour is MET-TPS-009's deviation, not this rule's
    newest = period_start(max(stamps), "hour")
    check(seconds >= newest, "MET-TPS-012", "lastRun is earlier than the newest data point",
          expected=f"lastRun >= {newest} ({iso(newest)}), the start of the newest point's hour",
          received=f"lastRun {last_run} ({iso(int(seconds))})", exchange=exchange)


def _stamps(body: dict[str, Any]) -> list[int]:
    results = body.get("results")
    return [p["timestamp"] for p in results if isinstance(p, dict) and isinstance(p.get("timestamp"), int)
            and not isinstance(p["timestamp"], bool)] if isinstance(results, list) else []


@pytest.mark.rule("MET-TPS-010")
def test_last_run_unit_is_recorded(metrics_api: RestClient, evm_chain_id: str,
                                   observe: Callable[[str, Any], None]) -> None:
    """The unit of lastRun (seconds or milliseconds) and its distance from the current time are recorded."""
    exchange = metrics_api.get(avg_tps_path(evm_chain_id))
    body = exchange.json() if exchange.status == 200 and exchange.is_json() else {}
    last_run = body.get("lastRun") if isinstance(body, dict) else None
    unit, age = None, None
    if isinstance(last_run, (int, float)) and not isinstance(last_run, bool):
        unit = "milliseconds" if last_run > MILLISECONDS else "seconds"
        age = round(time.time() - (last_run / 1000 if unit == "milliseconds" else last_run))
    observe("MET-TPS-010", {"status": exchange.status, "lastRun": last_run, "unit": unit, "age_seconds": age})


@pytest.mark.rule("MET-TPS-011")
@pytest.mark.parametrize("chain", AGGREGATE_CHAINS)
def test_avg_tps_of_aggregate_chain_is_recorded(metrics_api: RestClient, chain: str,
                                                observe: Callable[[str, Any], None]) -> None:
    """What the average TPS route returns for total, mainnet and testnet is recorded."""
    exchange = metrics_api.get(avg_tps_path(chain))
    observe("MET-TPS-011", {"chain": chain, "status": exchange.status, "body": exchange.text(200)})
