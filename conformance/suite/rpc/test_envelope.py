"""The JSON-RPC 2.0 envelope on every node API: version, echoed ids, one outcome, error objects, bad bodies."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import (check_body_object, check_content_type, check_envelope, error_of, is_error,
                                         is_response_object, record_error, result_of)
from conformance.checks.index import index_paths
from conformance.checks.served import ServedMethods, not_served
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

UNKNOWN = {"admin": "admin.conformanceNoSuchMethod", "index": "index.conformanceNoSuchMethod",
           "evm": "eth_conformanceNoSuchMethod", "validators": "validators.conformanceNoSuchMethod"}


@dataclass(frozen=True)
class Api:
    """One node API and a read-only call it answers with a result."""

    name: str
    client: JsonRpcClient
    method: str
    params: Any


@pytest.fixture(params=["admin", "index", "evm", "validators"])
def api(request: pytest.FixtureRequest, rpc_at: Callable[[str], JsonRpcClient], once: Any,
        served_methods: ServedMethods) -> Api:
    """Each node API in turn, skipped when the node does not serve it."""
    name = request.param
    if name == "admin":
        found = Api(name, rpc_at("/ext/admin"), "admin.getLoggerLevel", {})
    elif name == "index":
        found = Api(name, rpc_at(index_paths()[0]), "index.getLastAccepted", {"encoding": "hex"})
    elif name == "evm":
        found = Api(name, request.getfixturevalue("evm"), "eth_chainId", [])
        served_methods.require_evm_rpc(request.node, found.client)
        return found
    else:
        found = Api(name, request.getfixturevalue("validators"), "validators.getCurrentValidators", {})
        served_methods.require(request.node, found.method, found.client)
        return found
    # Only a clear "not here" skips an API: any other odd answer (JSON of another kind) is for these tests to judge.
    # Whether each node API is enabled is asked once per run: every envelope test of that API needs to know.
    if once(lambda: disabled(found.client.call(found.method, found.params)), found.client.url):
        pytest.skip(f"the {name} API is not enabled on this node")
    return found


def disabled(exchange: Exchange) -> bool:
    """Whether an optional node API says it is not enabled: HTTP 404, an answer that is not JSON, or an error
    object where its lightest read has a result."""
    return exchange.status == 404 or not exchange.is_json() or is_response_object(exchange) and not_served(exchange)


@pytest.mark.rule("RPC-ENV-001", "RPC-ENV-005", "RPC-ENV-012", "RPC-ENV-013")
def test_success_response_envelope(api: Api) -> None:
    """A successful call is answered by a JSON object with jsonrpc "2.0", exactly one outcome, as JSON."""
    exchange = api.client.call(api.method, api.params)
    check_body_object(exchange)
    check_content_type(exchange)
    check_envelope(exchange, None)


@pytest.mark.rule("RPC-ENV-002")
@pytest.mark.parametrize("request_id", [1, 0, 2**31 + 5], ids=["1", "0", "2^31+5"])
def test_numeric_id_is_echoed(api: Api, request_id: int) -> None:
    """A success response echoes the numeric request id."""
    exchange = api.client.call(api.method, api.params, request_id=request_id)
    if is_error(exchange):  # what the call answers is for the API's own tests; here only a success can show the echo
        pytest.skip(f"{api.method} answers with an error, so no success response shows the id")
    result_of(exchange, "RPC-ENV-002", api.method)
    check_envelope(exchange, request_id)


@pytest.mark.rule("RPC-ENV-003")
@pytest.mark.parametrize("request_id", ["conformance-1", "", "7"], ids=["text", "empty", "digits"])
def test_string_id_is_echoed(api: Api, request_id: str) -> None:
    """A string request id is echoed unchanged, still a string."""
    exchange = api.client.call(api.method, api.params, request_id=request_id)
    check_envelope(exchange, request_id)


@pytest.mark.rule("RPC-ENV-004", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007", "RPC-ENV-008",
                  "RPC-ENV-015", "RPC-ENV-016", "RPC-ENV-017")
@pytest.mark.parametrize("request_id", [41, "conformance-41"], ids=["number", "string"])
def test_unknown_method_is_an_error_object(api: Api, request_id: Any, observe: Callable[[str, Any], None]) -> None:
    """A call to an unknown method is answered with an error object carrying the request id."""
    exchange = api.client.call(UNKNOWN[api.name], {} if api.name != "evm" else [], request_id=request_id)
    error_of(exchange, "RPC-ENV-008", "a call to an unknown method")
    check_envelope(exchange, request_id)
    record_error(observe, exchange)


@pytest.mark.rule("RPC-ENV-009", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007")
@pytest.mark.parametrize("body", [b'{"jsonrpc":"2.0","id":1,"method":', b"not json"], ids=["truncated", "text"])
def test_malformed_json_is_an_error_object(api: Api, body: bytes, observe: Callable[[str, Any], None]) -> None:
    """A request body that is not valid JSON is answered with an error object."""
    exchange = api.client.post_raw(body)
    error_of(exchange, "RPC-ENV-009", "a body that is not JSON")
    check_envelope(exchange, None)
    record_error(observe, exchange)


@pytest.mark.rule("RPC-ENV-010")
@pytest.mark.parametrize("body", [7, "admin.getLoggerLevel"], ids=["number", "string"])
def test_non_object_body_is_an_error_object(api: Api, body: Any, observe: Callable[[str, Any], None]) -> None:
    """A request body that is a JSON number or string is answered with an error object."""
    exchange = api.client.send(body)
    error_of(exchange, "RPC-ENV-010", f"a body that is the JSON {type(body).__name__}")
    record_error(observe, exchange)


@pytest.mark.rule("RPC-ENV-011")
def test_empty_batch_is_an_error_object(api: Api, observe: Callable[[str, Any], None]) -> None:
    """A request body that is an empty JSON array is answered with an error object."""
    exchange = api.client.send([])
    error_of(exchange, "RPC-ENV-011", "an empty array")
    record_error(observe, exchange)


@pytest.mark.rule("RPC-ENV-018", "RPC-ENV-019")
def test_calls_without_credentials_are_recorded(api: Api, observe: Callable[[str, Any], None]) -> None:
    """Whether a call without credentials is answered, and any rate limiting, is recorded."""
    exchange = api.client.call(api.method, api.params)
    observe("RPC-ENV-018", {"api": api.name, "status": exchange.status})
    observe("RPC-ENV-019", {"api": api.name, "status": exchange.status,
                            "retry-after": exchange.response_headers.get("retry-after"),
                            "ratelimit": {k: v for k, v in exchange.response_headers.items() if "ratelimit" in k}})


@pytest.fixture
def chain_config_served(require_served: Callable[[str], None]) -> None:
    """Skips the test when eth_getChainConfig is not served (RPC-EVM-034 reports that)."""
    require_served("eth_getChainConfig")


@pytest.mark.rule("RPC-ENV-014")
@pytest.mark.usefixtures("chain_config_served")
def test_eth_get_chain_config_without_params(evm: JsonRpcClient) -> None:
    """eth_getChainConfig, a method without parameters, answers a request that omits params."""
    exchange = evm.call("eth_getChainConfig")
    result = result_of(exchange, "RPC-ENV-014", "eth_getChainConfig without params")
    check(isinstance(result, dict), "RPC-ENV-014", "eth_getChainConfig without params gives no chain config",
          expected="a chain config object", received=result, exchange=exchange)
