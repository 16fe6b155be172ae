"""Documented defaults: an omitted parameter behaves like its documented default value."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, data as checks, live
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import FILTER_PAGE, DataApi

DEFAULT_PAGE_RULES = {
    "listUtxos": "DATA-DEF-001", "listTransactions": "DATA-DEF-002", "listBlockchains": "DATA-DEF-003",
    "listValidators": "DATA-DEF-004", "getValidatorsByNode": "DATA-DEF-005",
    "listErc721Transactions": "DATA-DEF-006", "listErc1155Transactions": "DATA-DEF-007",
    "listTokenTransfers": "DATA-DEF-008", "listErc20Balances": "DATA-DEF-009",
    "listErc1155Balances": "DATA-DEF-010", "listErc721Balances": "DATA-DEF-011",
    "listVerticesByHeight": "DATA-DEF-012", "listBlocksByNode": "DATA-DEF-013",
}
CURRENCY_RULES = {"getDeployment": "DATA-DEF-014", "listErc20Balances": "DATA-DEF-015",
                  "getNativeBalance": "DATA-DEF-016"}
#: (rule, route, parameter, documented default, what to compare).
SAME_AS_DEFAULT = [
    ("DATA-DEF-017", "listUtxos", "minUtxoAmount", "items"),
    ("DATA-DEF-018", "listErc20Balances", "filterSpamTokens", "items"),
    ("DATA-DEF-021", "listValidators", "minUptimePerformance", "items"),
    ("DATA-DEF-022", "listValidators", "maxUptimePerformance", "items"),
]


def documented_default(operation_id: str, parameter: str) -> Any:
    return checks.operation(operation_id).schema_of(parameter)["default"]


def comparable(operation_id: str, body: Any, what: str) -> Any:
    """What two answers must share: the item identities in order, or every balance the body states."""
    if what == "items":
        return [checks.identity(operation_id, item) for item in checks.items_of(operation_id, body)]
    found: list[tuple[str, Any]] = []

    def collect(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "balance":
                    found.append((path, value))
                collect(value, f"{path}/{key}" if key != "balance" else path)
        elif isinstance(node, list):
            for value in node:
                collect(value, f"{path}/{value.get('address') if isinstance(value, dict) else ''}")
    collect(body, "")
    return sorted(found, key=str)


@pytest.mark.parametrize("operation_id", [pytest.param(op, marks=pytest.mark.rule(rule), id=op)
                                          for op, rule in DEFAULT_PAGE_RULES.items()])
def test_omitted_page_size_is_the_default(data: DataApi, operation_id: str) -> None:
    """Without pageSize the route serves the page pageSize=<documented default> serves: the same items, no more."""
    rule, default = DEFAULT_PAGE_RULES[operation_id], checks.page_size_limits(operation_id)[2]

    def items(exchange: Any) -> list[str]:
        body = checks.served(exchange, rule, f"{operation_id} at {exchange.url}")
        return [checks.identity(operation_id, item) for item in checks.items_of(operation_id, body)]
    omitted = data.first(operation_id)   # the route's default request, shared with the shape tests
    check(len(items(omitted)) <= default, rule, f"{operation_id} without pageSize serves more than the default",
          expected=f"at most {default} items", received=f"{len(items(omitted))} items", exchange=omitted)
    # the explicit default page: the first page of the filter tests' walk where their page size is the default
    explicit = data.filtered(operation_id, {"pageSize": default}).walk.exchanges[0] if default == FILTER_PAGE \
        else data.once(operation_id, {"pageSize": default})
    outcome = live.agree_while_live(lambda: data.call(operation_id, {"pageSize": default}),
                                    lambda: data.call(operation_id), items, earlier=(explicit, omitted),
                                    timeline=True)
    check(outcome.agreed, rule, f"{operation_id} without pageSize does not serve the default page",
          expected=f"the items of pageSize={default}: {len(outcome.first)} items, {str(outcome.first[:3])[:200]}",
          received=f"{len(outcome.second)} items, {str(outcome.second[:3])[:200]}", exchange=outcome.exchange)
    # A default holds on every page: the pages a token leads to without pageSize are as large as those with it.
    with_size = data.filtered(operation_id, {"pageSize": default}) if default == FILTER_PAGE \
        else data.walk(operation_id, {"pageSize": default})
    without = data.walk(operation_id)
    for number, ((_, one, more), (exchange, other, further)) in enumerate(
            zip(with_size.pages(), without.pages()), 1):
        if number == 1 or not (more and further):
            continue   # the first page is compared above; a last page holds what is left
        check(len(other) == len(one) and len(other) <= default, rule,
              f"{operation_id} without pageSize serves page {number} of another size",
              expected=f"{len(one)} items, as page {number} of pageSize={default} (at most {default})",
              received=f"{len(other)} items", exchange=exchange)


@pytest.mark.parametrize("operation_id", [pytest.param(op, marks=pytest.mark.rule(rule), id=op)
                                          for op, rule in CURRENCY_RULES.items()])
def test_omitted_currency_is_the_default(data: DataApi, operation_id: str) -> None:
    """Without currency the route states its Price values in the documented default currency."""
    rule, default = CURRENCY_RULES[operation_id], documented_default(operation_id, "currency")
    exchange = data.call(operation_id)
    body = checks.served(exchange, rule, operation_id)
    # A code that is not a string, or not in lower case, is the currencyCode rule's (DATA-SHP-017) deviation alone.
    codes = [(path, value) for path, value in checks.formatted_values(
        body, checks.operation(operation_id).response_schema, fmt="lowercase", within="Price")
        if isinstance(value, str)]
    if not codes:
        pytest.skip(f"the {operation_id} answer holds no Price value")
    wrong = [(path, value) for path, value in codes if value.lower() != default]
    check(not wrong, rule, f"{operation_id} without currency does not use {default}",
          expected=f"currencyCode {default!r}", received="; ".join(f"{p} = {v!r}" for p, v in wrong[:5]),
          exchange=exchange)

    def prices(answer: Exchange) -> Any:
        return checks.unit_prices(checks.served(answer, rule, f"{operation_id} at {answer.url}"))
    # The default is the value, not the label: the prices equal those of currency=<default> (read again when a
    # live price moved between the two reads).
    outcome = live.agree_while_live(lambda: data.call(operation_id, {"currency": default}),
                                    lambda: data.call(operation_id), prices, earlier=(None, exchange))
    check(outcome.agreed, rule, f"{operation_id} without currency states other prices than currency={default}",
          expected=f"the prices of currency={default}: {str(outcome.first)[:300]}", received=str(outcome.second)[:300],
          exchange=outcome.exchange)


@pytest.mark.parametrize(("rule", "operation_id", "parameter", "what"), [
    pytest.param(rule, op, name, what, marks=pytest.mark.rule(rule), id=f"{op}-{name}")
    for rule, op, name, what in SAME_AS_DEFAULT])
def test_omitted_parameter_is_the_default(data: DataApi, rule: str, operation_id: str, parameter: str,
                                          what: str) -> None:
    """Without the parameter the route answers as with its documented default value."""
    default = documented_default(operation_id, parameter)
    page = {"pageSize": checks.plain_page_size(operation_id)} if "pageSize" in \
        checks.operation(operation_id).parameters else {}
    explicit_params = {**page, parameter: default}

    def value(exchange: Exchange) -> Any:
        return comparable(operation_id, checks.served(exchange, rule, operation_id), what)

    # the omitted request is shared with other tests; a live target may move between it and the explicit one
    outcome = live.agree_while_live(lambda: data.call(operation_id, explicit_params),
                                    lambda: data.call(operation_id, page), value, timeline=what == "items",
                                    earlier=(data.call(operation_id, explicit_params), data.once(operation_id, page)))
    check(outcome.agreed, rule, f"{operation_id} without {parameter} differs from {parameter}={default}",
          expected=f"the answer to {parameter}={default}: {str(outcome.first)[:300]}",
          received=str(outcome.second)[:300], exchange=outcome.exchange)


@pytest.mark.rule("DATA-DEF-023")
def test_omitted_fee_filters_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Whether listValidators without fee filters returns subnet validations (null delegationFee) is recorded."""
    exchange = data.once("listValidators", {"pageSize": checks.plain_page_size("listValidators")})
    items = checks.items_of("listValidators", exchange.json()) if exchange.status == 200 else []
    observe("DATA-DEF-023", {"status": exchange.status, "validators": len(items),
                             "null_fee": sum(1 for v in items if isinstance(v, dict) and v.get("delegationFee")
                                             is None)})


ORDER_KEYS = {"listUtxos": "blockTimestamp", "listTransactions": "blockTimestamp",
              "listBlockchains": "createBlockTimestamp", "listValidators": "startTimestamp",
              "getValidatorsByNode": "startTimestamp", "listVerticesByHeight": "vertexTimestamp"}


def order_seen(operation_id: str, body: Any, key: str) -> str:
    keys = [checks.number(i.get(key)) for i in checks.items_of(operation_id, body) if isinstance(i, dict)]
    keys = [k for k in keys if k is not None]
    if len(set(keys)) < 2:
        return "undecided"
    if checks.out_of_order(keys, descending=False) is None:
        return "asc"
    return "desc" if checks.out_of_order(keys, descending=True) is None else "unordered"


@pytest.mark.rule("DATA-DEF-024")
@pytest.mark.parametrize("operation_id", list(ORDER_KEYS))
def test_default_sort_order_is_recorded(data: DataApi, observe: Callable[[str, Any], None],
                                        operation_id: str) -> None:
    """The order of the route's items without sortOrder is recorded."""
    exchange = data.first(operation_id)
    body = exchange.json() if exchange.status == 200 else {}
    observe("DATA-DEF-024", {"route": operation_id, "key": ORDER_KEYS[operation_id],
                             "order": order_seen(operation_id, body, ORDER_KEYS[operation_id])})


@pytest.mark.rule("DATA-DEF-025")
def test_default_sort_key_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """The key listUtxos and listValidators sort by without sortBy is recorded."""
    seen = {}
    for operation_id, keys in (("listUtxos", ("blockTimestamp", "amount")),
                               ("listValidators", ("startTimestamp", "endTimestamp", "delegationFee"))):
        exchange = data.first(operation_id)
        body = exchange.json() if exchange.status == 200 else {}
        seen[operation_id] = {key: order_seen(operation_id, body, key) for key in keys}
    observe("DATA-DEF-025", seen)


@pytest.mark.rule("DATA-DEF-026")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_default_include_spent_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """How many UTXOs listUtxos returns without includeSpent, and with it false and true, is recorded."""
    size = checks.plain_page_size("listUtxos")
    counts = {}
    for label, value in (("omitted", None), ("false", False), ("true", True)):
        exchange = data.once("listUtxos", {"pageSize": size, "includeSpent": value})
        counts[label] = len(checks.items_of("listUtxos", exchange.json())) if exchange.status == 200 else None
    observe("DATA-DEF-026", counts)


@pytest.mark.parametrize(("rule", "operation_id"), [
    pytest.param("DATA-DEF-019", "listErc20Balances", marks=pytest.mark.rule("DATA-DEF-019"), id="listErc20Balances"),
    pytest.param("DATA-DEF-020", "getNativeBalance", marks=pytest.mark.rule("DATA-DEF-020"), id="getNativeBalance")])
def test_omitted_block_number_is_the_latest_block(data: DataApi, rule: str, operation_id: str) -> None:
    """Without blockNumber the route answers as with blockNumber=latest, its documented default."""
    def latest() -> Exchange:
        exchange = data.call(operation_id, {"blockNumber": "latest"})
        checks.unavailable(exchange)
        if 400 <= (exchange.status or 0) < 500:
            pytest.skip(f"the target refuses blockNumber=latest (status {exchange.status}); the default cannot be "
                        "compared with it")
        return exchange

    def balances(exchange: Exchange) -> Any:
        return comparable(operation_id, checks.served(exchange, rule, f"{operation_id} with {exchange.url}"),
                          "balances")
    # the omitted request is the route's default request, shared with the shape tests
    outcome = live.agree_while_live(latest, lambda: data.call(operation_id), balances,
                                    earlier=(latest(), data.first(operation_id)))
    check(outcome.agreed, rule, f"{operation_id} without blockNumber does not answer at the latest block",
          expected=f"the balances of blockNumber=latest: {str(outcome.first)[:300]}",
          received=str(outcome.second)[:300], exchange=outcome.exchange)
