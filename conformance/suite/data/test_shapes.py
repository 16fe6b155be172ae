"""Every Data API route answers 200 with JSON of the documented shape; documented value formats hold."""
from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks
from conformance.checks.shapes import component
from conformance.suite.data.conftest import DataApi

SHAPE_RULES = checks.SHAPE_RULES
ROUTES = list(SHAPE_RULES)
#: (rule, format, component, members or None, routes) of the documented value formats.
FORMAT_RULES = [
    ("DATA-SHP-016", "decimal-integer", "AssetAmount", ("amount",), ("listUtxos", "listTransactions")),
    ("DATA-SHP-017", "lowercase", "Price", ("currencyCode",), ("getDeployment", "listErc20Balances",
                                                                "getNativeBalance")),
    ("DATA-SHP-018", "decimal", "Price", ("value",), ("getDeployment", "listErc20Balances", "getNativeBalance")),
    ("DATA-SHP-019", "hex", "GenesisData", None, ("listTransactions", "listBlockchains")),
    ("DATA-SHP-020", "hex", "GenesisAccount", None, ("listTransactions", "listBlockchains")),
]
ENUM_LIKE = ("rewardType", "utxoType", "txType", "indexStatus", "internalTxType", "callType", "direction",
             "tokenReputation", "blockType")
HEX_LIKE = re.compile(r"(Hash|hash|address|Address)$")


def _served(data: DataApi, operation_id: str) -> tuple[Any, Any]:
    exchange = data.first(operation_id)
    return exchange, checks.served(exchange, SHAPE_RULES[operation_id], operation_id)


@pytest.mark.rule("DATA-ENV-001")
@pytest.mark.parametrize("operation_id", ROUTES)
def test_status_200_body_is_json(data: DataApi, operation_id: str) -> None:
    """A status 200 answer of the route has a JSON body."""
    exchange = data.first(operation_id)
    if exchange.status != 200:
        pytest.skip(f"{operation_id} did not answer 200 (its shape test reports why)")
    checks.check(checks.is_strict_json(exchange), "DATA-ENV-001", f"the {operation_id} 200 body is not JSON",
                 expected="a JSON body", received=exchange.text(200), exchange=exchange)


@pytest.mark.rule("DATA-ENV-002")
@pytest.mark.parametrize("operation_id", ROUTES)
def test_status_200_declares_json(data: DataApi, operation_id: str) -> None:
    """A status 200 answer of the route declares a JSON Content-Type."""
    exchange = data.first(operation_id)
    if exchange.status != 200:
        pytest.skip(f"{operation_id} did not answer 200 (its shape test reports why)")
    checks.rest.assert_json_content_type("DATA-ENV-002", exchange, what=f"the {operation_id} 200 answer")


@pytest.mark.parametrize("operation_id", [pytest.param(op, marks=pytest.mark.rule(rule), id=op)
                                          for op, rule in SHAPE_RULES.items()])
def test_body_has_documented_shape(data: DataApi, operation_id: str) -> None:
    """The route's 200 body has the documented member types (open shape, no member required but the list)."""
    exchange, body = _served(data, operation_id)
    checks.assert_route_shape(SHAPE_RULES[operation_id], operation_id, body, exchange)


@pytest.mark.parametrize(("rule", "fmt", "within", "members", "operation_id"), [
    pytest.param(rule, fmt, within, members, op, marks=pytest.mark.rule(rule), id=f"{rule}-{op}")
    for rule, fmt, within, members, ops in FORMAT_RULES for op in ops])
def test_documented_value_format(data: DataApi, rule: str, fmt: str, within: str,
                                 members: tuple[str, ...] | None, operation_id: str) -> None:
    """Values of the component have the format the document states."""
    exchange, body = _served(data, operation_id)
    if not checks.assert_format(rule, operation_id, body, fmt=fmt, within=within, exchange=exchange,
                                members=members):
        pytest.skip(f"the {operation_id} answer holds no {within} value to check")


@pytest.mark.rule("DATA-SHP-021")
def test_erc20_token_transfers_are_erc20_records(data: DataApi) -> None:
    """listTokenTransfers for an ERC-20 contract returns ERC-20 transfer records."""
    exchange, body = _served(data, "listTokenTransfers")
    schema = {"type": "array", "items": component("data", "Erc20Transfer")}
    checks.assert_body_shape("DATA-SHP-021", checks.items_of("listTokenTransfers", body), schema,
                             what="the ERC-20 contract's transfers", exchange=exchange)


@pytest.mark.rule("DATA-SHP-022")
@pytest.mark.parametrize("contract", ["erc721_contract", "erc1155_contract"])
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_nft_token_transfer_shape_is_recorded(data: DataApi, observe: Callable[[str, Any], None],
                                              contract: str) -> None:
    """The element members of listTokenTransfers for an NFT contract are recorded."""
    exchange = data.call("listTokenTransfers", address=data.need(contract))
    items = checks.items_of("listTokenTransfers", exchange.json()) if exchange.status == 200 else []
    observe("DATA-SHP-022", {"contract": contract, "status": exchange.status,
                             "members": sorted({k for item in items if isinstance(item, dict) for k in item})})


@pytest.mark.rule("DATA-SHP-023")
@pytest.mark.parametrize("operation_id", ROUTES)
def test_members_present_are_recorded(data: DataApi, observe: Callable[[str, Any], None],
                                      operation_id: str) -> None:
    """Which documented top-level and item members the route carries is recorded."""
    exchange = data.first(operation_id)
    body = exchange.json() if exchange.status == 200 and exchange.is_json() else {}
    items = checks.items_of(operation_id, body)
    observe("DATA-SHP-023", {"route": operation_id, "members": sorted(body) if isinstance(body, dict) else None,
                             "item_members": sorted({k for i in items if isinstance(i, dict) for k in i})})


def _values(node: Any, names: tuple[str, ...] | re.Pattern[str], found: dict[str, set[str]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            wanted = key in names if isinstance(names, tuple) else bool(names.search(key))
            if wanted and isinstance(value, (str, int)):
                found.setdefault(key, set()).add(str(value))
            _values(value, names, found)
    elif isinstance(node, list):
        for value in node:
            _values(value, names, found)


def _values_seen(data: DataApi, operation_ids: tuple[str, ...],
                 names: tuple[str, ...] | re.Pattern[str]) -> dict[str, set[str]]:
    """The values of the named members in the routes' default answers (those served as JSON)."""
    found: dict[str, set[str]] = {}
    for operation_id in operation_ids:
        exchange = data.first(operation_id)
        if exchange.status == 200 and exchange.is_json():
            _values(exchange.json(), names, found)
    return found


@pytest.mark.rule("DATA-SHP-024")
def test_enum_like_values_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """The values seen for members whose allowed values are not shown are recorded."""
    found = _values_seen(data, ("listUtxos", "listTransactions", "getDeployment", "listErc20Balances",
                                "listErc721Balances", "listBlocksByNode"), ENUM_LIKE)
    observe("DATA-SHP-024", {name: sorted(values)[:20] for name, values in found.items()})


@pytest.mark.rule("DATA-SHP-025")
def test_hex_prefixes_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Whether hashes and addresses carry a 0x prefix is recorded."""
    found = _values_seen(data, ("listTransactions", "listBlockchains", "getDeployment", "listErc721Transactions",
                                "listErc1155Transactions", "listTokenTransfers"), HEX_LIKE)
    observe("DATA-SHP-025", {name: {"0x": sum(v.startswith("0x") for v in values), "other": sum(
        not v.startswith("0x") for v in values)} for name, values in found.items()})
