"""Enumerated parameters: documented values are accepted, others refused (network, sortOrder, currency, ...)."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks import data as checks
from conformance.suite.data.conftest import ALIASES, ROUTE_CHAIN, DataApi

NETWORK_ROUTES = [op for op, o in checks.operations().items() if "{network}" in o.template]
#: Routes whose default request holds no network-specific identifier, so any network can answer them.
NETWORK_FREE = ("listBlockchains", "listValidators", "listTransactions", "listVerticesByHeight")
SORT_ORDER_ROUTES = ["listUtxos", "listTransactions", "listBlockchains", "listValidators", "getValidatorsByNode",
                     "listVerticesByHeight"]
CURRENCY_ROUTES = ["getDeployment", "listErc20Balances", "getNativeBalance"]
BLOCKCHAIN_ROUTES = [op for op, o in checks.operations().items() if "{blockchainId}" in o.template]
EVM_ROUTES = [op for op, o in checks.operations().items() if "{chainId}" in o.template]
UNDOCUMENTED = "undocumented-value"


def same_network(a: str, b: str) -> bool:
    """fuji and testnet both denote the test network (document 2, common parameters)."""
    test = {"fuji", "testnet"}
    return a == b or {a, b} <= test


def rejected(data: DataApi, observe: Callable[[str, Any], None], rule: str, operation_id: str,
             params: dict[str, Any] | None = None, **path: str) -> None:
    exchange = data.call(operation_id, params, **path)
    status = checks.refused(exchange, rule, f"{operation_id} with {params or path}")
    observe("DATA-ERR-009", {"route": operation_id, "request": params or path, "status": status})


@pytest.mark.rule("DATA-ENUM-001")
@pytest.mark.parametrize("operation_id", NETWORK_ROUTES)
def test_unknown_network_is_refused(data: DataApi, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """A network outside the documented values is refused."""
    rejected(data, observe, "DATA-ENUM-001", operation_id, network=UNDOCUMENTED)


@pytest.mark.rule("DATA-ENUM-002")
@pytest.mark.parametrize("network", checks.operation("listBlockchains").schema_of("network")["enum"])
@pytest.mark.parametrize("operation_id", NETWORK_ROUTES)
def test_documented_network_is_accepted(data: DataApi, operation_id: str, network: str) -> None:
    """Each documented network is accepted by the route."""
    path = {"network": network}
    if not same_network(network, data.network):
        if operation_id not in NETWORK_FREE:
            pytest.skip(f"the {operation_id} identifiers belong to {data.network}")
        if "{blockchainId}" in checks.operation(operation_id).template:
            path["blockchainId"] = ALIASES[ROUTE_CHAIN[operation_id]]  # chain IDs differ between networks
    checks.served(data.call(operation_id, **path), "DATA-ENUM-002", f"{operation_id} on {network}")


@pytest.mark.rule("DATA-ENUM-003")
@pytest.mark.parametrize("operation_id", SORT_ORDER_ROUTES)
def test_unknown_sort_order_is_refused(data: DataApi, observe: Callable[[str, Any], None],
                                       operation_id: str) -> None:
    """A sortOrder outside asc and desc is refused."""
    rejected(data, observe, "DATA-ENUM-003", operation_id, {"sortOrder": "ascending"})


@pytest.mark.rule("DATA-ENUM-004")
@pytest.mark.parametrize("operation_id", CURRENCY_ROUTES)
def test_unknown_currency_is_refused(data: DataApi, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """A currency outside the documented codes is refused."""
    rejected(data, observe, "DATA-ENUM-004", operation_id, {"currency": "xyz"})


@pytest.mark.rule("DATA-ENUM-005")
@pytest.mark.parametrize("index", range(len(checks.enum("getNativeBalance", "currency"))),
                         ids=checks.enum("getNativeBalance", "currency"))
def test_documented_currency_is_accepted(data: DataApi, index: int) -> None:
    """Each documented currency code is accepted (each code on one route, the routes taken in turn)."""
    currency = checks.enum("getNativeBalance", "currency")[index]
    operation_id = CURRENCY_ROUTES[index % len(CURRENCY_ROUTES)]
    checks.served(data.call(operation_id, {"currency": currency}), "DATA-ENUM-005",
                  f"{operation_id} with currency={currency}")


@pytest.mark.rule("DATA-ENUM-006")
def test_list_validators_refuses_unknown_status(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """listValidators refuses a validationStatus outside the documented values."""
    rejected(data, observe, "DATA-ENUM-006", "listValidators", {"validationStatus": "retired"})


@pytest.mark.rule("DATA-ENUM-007")
def test_validators_by_node_refuses_unknown_status(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """getValidatorsByNode refuses a validationStatus outside the documented values."""
    rejected(data, observe, "DATA-ENUM-007", "getValidatorsByNode", {"validationStatus": "retired"})


@pytest.mark.rule("DATA-ENUM-008")
def test_list_utxos_refuses_unknown_sort_by(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """listUtxos refuses a sortBy outside timestamp and amount."""
    rejected(data, observe, "DATA-ENUM-008", "listUtxos", {"sortBy": "size"})


@pytest.mark.rule("DATA-ENUM-009")
@pytest.mark.parametrize("sort_by", checks.enum("listUtxos", "sortBy"))
def test_list_utxos_accepts_sort_by(data: DataApi, sort_by: str) -> None:
    """listUtxos accepts each documented sortBy."""
    checks.served(data.call("listUtxos", {"sortBy": sort_by}), "DATA-ENUM-009", f"listUtxos sortBy={sort_by}")


@pytest.mark.rule("DATA-ENUM-010")
def test_list_validators_refuses_unknown_sort_by(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """listValidators refuses a sortBy outside the documented keys."""
    rejected(data, observe, "DATA-ENUM-010", "listValidators", {"sortBy": "nodeId"})


@pytest.mark.rule("DATA-ENUM-011")
@pytest.mark.parametrize("sort_by", checks.enum("listValidators", "sortBy"))
def test_list_validators_accepts_sort_by(data: DataApi, sort_by: str) -> None:
    """listValidators accepts each documented sortBy (delegationFee on mainnet with the primary network subnet)."""
    params: dict[str, Any] = {"sortBy": sort_by}
    path = {}
    if sort_by == "delegationFee":
        params["subnetId"] = data.need("primary_subnet_id")
        path["network"] = "mainnet"
    checks.served(data.call("listValidators", params, **path), "DATA-ENUM-011", f"listValidators sortBy={sort_by}")


@pytest.mark.rule("DATA-ENUM-012")
@pytest.mark.parametrize("operation_id", BLOCKCHAIN_ROUTES)
def test_unknown_blockchain_is_refused(data: DataApi, observe: Callable[[str, Any], None],
                                       operation_id: str) -> None:
    """A blockchainId that is no primary network chain ID or alias is refused."""
    rejected(data, observe, "DATA-ENUM-012", operation_id, blockchainId="q-chain")


@pytest.mark.rule("DATA-ENUM-013")
@pytest.mark.parametrize("operation_id", EVM_ROUTES)
def test_unsupported_chain_is_recorded(data: DataApi, observe: Callable[[str, Any], None],
                                       operation_id: str) -> None:
    """What an EVM route answers for an unsupported chainId is recorded."""
    exchange = data.call(operation_id, chainId="999999999")
    observe("DATA-ENUM-013", {"route": operation_id, "status": exchange.status})
