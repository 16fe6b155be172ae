"""Enumerated parameters: documented values are accepted, others refused (network, sortOrder, currency, ...)."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks
from conformance.suite.data.conftest import (ALIASES, CURRENCY_ROUTES, QUICK_CURRENCIES, ROUTE_CHAIN, DataApi,
                                              currency_route, variant)

NETWORK_ROUTES = [op for op, o in checks.operations().items() if "{network}" in o.template]
#: Routes whose default request holds no network-specific identifier, so any network can answer them.
NETWORK_FREE = ("listBlockchains", "listValidators", "listTransactions", "listVerticesByHeight")
SORT_ORDER_ROUTES = ["listUtxos", "listTransactions", "listBlockchains", "listValidators", "getValidatorsByNode",
                     "listVerticesByHeight"]
BLOCKCHAIN_ROUTES = [op for op, o in checks.operations().items() if "{blockchainId}" in o.template]
EVM_ROUTES = [op for op, o in checks.operations().items() if "{chainId}" in o.template]
UNDOCUMENTED = "undocumented-value"
CURRENCIES = checks.enum("getNativeBalance", "currency")


def one_route(routes: list[str], quick_route: str, rule: str) -> list[object]:
    """The routes a rule shared by routes is tried on: all in exhaustive profiles, `quick_route` in quick."""
    return [variant(op, quick=op == quick_route, marks=pytest.mark.rule(rule), id=op) for op in routes]


def same_network(a: str, b: str) -> bool:
    """fuji and testnet both denote the test network (document 2, common parameters)."""
    test = {"fuji", "testnet"}
    return a == b or {a, b} <= test


def rejected(data: DataApi, observe: Callable[[str, Any], None], rule: str, operation_id: str,
             params: dict[str, Any] | None = None, **path: str) -> None:
    exchange = data.once(operation_id, params, **path)
    status = checks.refused(exchange, rule, f"{operation_id} with {params or path}")
    observe("DATA-ERR-009", {"route": operation_id, "request": params or path, "status": status})


@pytest.mark.parametrize("operation_id", one_route(NETWORK_ROUTES, "listTransactions", "DATA-ENUM-001"))
def test_unknown_network_is_refused(data: DataApi, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """A network outside the documented values is refused."""
    rejected(data, observe, "DATA-ENUM-001", operation_id, network=UNDOCUMENTED)


@pytest.mark.parametrize("network", checks.operation("listBlockchains").schema_of("network")["enum"])
@pytest.mark.parametrize("operation_id", one_route(NETWORK_ROUTES, "listBlockchains", "DATA-ENUM-002"))
def test_documented_network_is_accepted(data: DataApi, operation_id: str, network: str) -> None:
    """Each documented network is accepted by the route."""
    path = {"network": network}
    if not same_network(network, data.network):
        if operation_id not in NETWORK_FREE:
            pytest.skip(f"the {operation_id} identifiers belong to {data.network}")
        if "{blockchainId}" in checks.operation(operation_id).template:
            path["blockchainId"] = ALIASES[ROUTE_CHAIN[operation_id]]  # chain IDs differ between networks
    checks.served(data.once(operation_id, **path), "DATA-ENUM-002", f"{operation_id} on {network}")


@pytest.mark.parametrize("operation_id", one_route(SORT_ORDER_ROUTES, "listBlockchains", "DATA-ENUM-003"))
def test_unknown_sort_order_is_refused(data: DataApi, observe: Callable[[str, Any], None],
                                       operation_id: str) -> None:
    """A sortOrder outside asc and desc is refused."""
    rejected(data, observe, "DATA-ENUM-003", operation_id, {"sortOrder": "ascending"})


@pytest.mark.parametrize("operation_id", one_route(list(CURRENCY_ROUTES), "getNativeBalance", "DATA-ENUM-004"))
def test_unknown_currency_is_refused(data: DataApi, observe: Callable[[str, Any], None], operation_id: str) -> None:
    """A currency outside the documented codes is refused."""
    rejected(data, observe, "DATA-ENUM-004", operation_id, {"currency": "xyz"})


@pytest.mark.rule("DATA-ENUM-005")
@pytest.mark.parametrize("currency", [variant(code, quick=code in QUICK_CURRENCIES, id=code) for code in CURRENCIES])
def test_documented_currency_is_accepted(data: DataApi, currency: str) -> None:
    """Each documented currency code is accepted (each code on one route, the routes taken in turn)."""
    operation_id = currency_route(currency)
    checks.served(data.once(operation_id, {"currency": currency}), "DATA-ENUM-005",
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
    # the listing the minUtxoAmount filter test reads too
    params = {"sortBy": sort_by, "sortOrder": "desc", "pageSize": 20}
    checks.served(data.once("listUtxos", params), "DATA-ENUM-009", f"listUtxos sortBy={sort_by}")


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
    checks.served(data.once("listValidators", params, **path), "DATA-ENUM-011", f"listValidators sortBy={sort_by}")


@pytest.mark.parametrize("operation_id", one_route(BLOCKCHAIN_ROUTES, "listTransactions", "DATA-ENUM-012"))
def test_unknown_blockchain_is_refused(data: DataApi, observe: Callable[[str, Any], None],
                                       operation_id: str) -> None:
    """A blockchainId that is no primary network chain ID or alias is refused."""
    rejected(data, observe, "DATA-ENUM-012", operation_id, blockchainId="q-chain")


@pytest.mark.rule("DATA-ENUM-013")
@pytest.mark.exhaustive   # an observation that needs requests of its own
@pytest.mark.parametrize("operation_id", EVM_ROUTES)
def test_unsupported_chain_is_recorded(data: DataApi, observe: Callable[[str, Any], None],
                                       operation_id: str) -> None:
    """What an EVM route answers for an unsupported chainId is recorded."""
    exchange = data.once(operation_id, chainId="999999999")
    observe("DATA-ENUM-013", {"route": operation_id, "status": exchange.status})
