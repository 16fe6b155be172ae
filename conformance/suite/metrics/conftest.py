"""Fixtures of the Metrics API suite: the chain IDs to test and a data point to anchor time windows on."""
from __future__ import annotations

from typing import Callable

import pytest

from conformance.checks.metrics import metric_path
from conformance.checks.timeseries import period_start
from conformance.clients.rest import RestClient
from conformance.errors import SuiteError

#: The chain most tests read: documented as accepted by every target ("one of total, mainnet, testnet").
CHAIN = "total"


@pytest.fixture(scope="session")
def evm_chain_id(sample: Callable[[str], str]) -> str:
    """A supported EVM chain ID: --sample evm_chain_id=ID, else the one discovery read from the node's EVM chain or
    the Data API's listBlockchains (the Metrics API cannot list the chains it supports)."""
    return sample("evm_chain_id")


@pytest.fixture(scope="session")
def latest_day(metrics_api: RestClient) -> int:
    """00:00 UTC of the latest day with a txCount point of the chain: windows in the past are built from it,
    because a target's clock (and the reference's) need not be the suite's."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": "day", "pageSize": 3})
    body = exchange.json() if exchange.status == 200 and exchange.is_json() else {}
    stamps = [p.get("timestamp") for p in (body.get("results") or []) if isinstance(p, dict)] \
        if isinstance(body, dict) else []
    stamps = [int(ts) for ts in stamps if isinstance(ts, (int, float)) and not isinstance(ts, bool)]
    if not stamps:
        raise SuiteError(f"no daily txCount point of chain {CHAIN} to anchor time windows on: {exchange.curl()}")
    return period_start(max(stamps), "day")
