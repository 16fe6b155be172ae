"""The extra methods the document lists are served; a node without one is told so once, not by each of its tests."""
from __future__ import annotations

import pytest

from conformance.checks.served import check_served, probe
from conformance.clients.jsonrpc import JsonRpcClient


@pytest.mark.parametrize("method", [
    pytest.param("eth_feeConfig", marks=pytest.mark.rule("RPC-EVM-033")),
    pytest.param("eth_getChainConfig", marks=pytest.mark.rule("RPC-EVM-034")),
    pytest.param("eth_getActiveRulesAt", marks=pytest.mark.rule("RPC-EVM-035")),
])
def test_listed_method_is_served(evm: JsonRpcClient, method: str) -> None:
    """The EVM chain RPC answers a well-formed call of a method the document lists with a result."""
    check_served(probe(evm, method), method)
