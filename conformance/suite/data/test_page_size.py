"""Documented bounds: pageSize per route, non-negative timestamps and heights, the validator filter ranges."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks
from conformance.suite.data.conftest import DataApi

PAGE_SIZE_RULES = {
    "listUtxos": "DATA-LIM-001", "listTransactions": "DATA-LIM-002", "listBlockchains": "DATA-LIM-003",
    "listValidators": "DATA-LIM-004", "getValidatorsByNode": "DATA-LIM-005",
    "listErc721Transactions": "DATA-LIM-006", "listErc1155Transactions": "DATA-LIM-007",
    "listTokenTransfers": "DATA-LIM-008", "listErc20Balances": "DATA-LIM-009",
    "listErc1155Balances": "DATA-LIM-010", "listErc721Balances": "DATA-LIM-011",
    "listVerticesByHeight": "DATA-LIM-012", "listBlocksByNode": "DATA-LIM-013",
}
#: (rule, route, parameter, extra query) of the bounds "≥ 0": a negative value is refused, 0 accepted.
NON_NEGATIVE = [
    ("DATA-LIM-014", "listTransactions", "startTimestamp", "addresses"),
    ("DATA-LIM-015", "listTransactions", "endTimestamp", "addresses"),
    ("DATA-LIM-016", "listBlocksByNode", "startTimestamp", None),
    ("DATA-LIM-016", "listBlocksByNode", "endTimestamp", None),
    ("DATA-LIM-017", "listVerticesByHeight", "vertexHeight", None),
    ("DATA-LIM-018", "listUtxos", "minUtxoAmount", None),
]
#: (rule, parameter, partner): validator filter ranges; the partner end is set so that min <= max always holds.
VALIDATOR_RANGES = [
    ("DATA-LIM-019", "minDelegationCapacity", "maxDelegationCapacity"),
    ("DATA-LIM-019", "maxDelegationCapacity", "minDelegationCapacity"),
    ("DATA-LIM-020", "minTimeRemaining", "maxTimeRemaining"),
    ("DATA-LIM-020", "maxTimeRemaining", "minTimeRemaining"),
    ("DATA-LIM-021", "minFeePercentage", "maxFeePercentage"),
    ("DATA-LIM-022", "maxFeePercentage", "minFeePercentage"),
    ("DATA-LIM-023", "minUptimePerformance", "maxUptimePerformance"),
    ("DATA-LIM-024", "maxUptimePerformance", "minUptimePerformance"),
]


def bounds(operation_id: str, parameter: str) -> tuple[int, int | None]:
    """(minimum, maximum or None) of a numeric parameter, from its schema or its x-minimum/x-maximum."""
    spec = checks.operation(operation_id).parameters[parameter]
    schema = spec["schema"]
    low = schema.get("minimum", spec.get("x-minimum"))
    high = schema.get("maximum", spec.get("x-maximum"))
    return int(low), (int(high) if high is not None else None)


def around(low: int, high: int | None) -> list[tuple[int, bool]]:
    """The values a documented range is tried at, in every profile: each bound itself, one inside it and one
    beyond it (value, accepted). A bound tried near but not at it proves nothing about the bound."""
    values = [(low - 1, False), (low, True), (low + 1, True)]
    if high is not None:
        values += [(high - 1, True), (high, True), (high + 1, False)]
    return list(dict.fromkeys(values))


def _page_size_cases() -> list[Any]:
    """Each end of the route's pageSize range, one inside and one beyond each (a route that refuses its documented
    maximum fails here, and only here)."""
    cases = []
    for operation_id, rule in PAGE_SIZE_RULES.items():
        low, high, _ = checks.page_size_limits(operation_id)
        for size, accepted in around(low, high):
            cases.append(pytest.param(operation_id, size, accepted, marks=pytest.mark.rule(rule),
                                      id=f"{operation_id}-{size}"))
    return cases


def assert_bound(data: DataApi, rule: str, operation_id: str, params: dict[str, Any], accepted: bool,
                 observe: Callable[[str, Any], None]) -> None:
    exchange = data.once(operation_id, params)   # refused requests are shared with the error body tests
    what = f"{operation_id} with {params}"
    if accepted:
        checks.served(exchange, rule, what)
    else:
        status = checks.refused(exchange, rule, what)
        observe("DATA-ERR-009", {"request": what, "status": status})


@pytest.mark.parametrize(("operation_id", "page_size", "accepted"), _page_size_cases())
def test_page_size_bounds(data: DataApi, observe: Callable[[str, Any], None], operation_id: str,
                          page_size: int, accepted: bool) -> None:
    """The route accepts pageSize at its documented minimum and maximum and refuses one beyond either."""
    assert_bound(data, PAGE_SIZE_RULES[operation_id], operation_id, {"pageSize": page_size}, accepted, observe)


@pytest.mark.parametrize(("rule", "operation_id", "parameter", "needs", "value", "accepted"), [
    pytest.param(rule, op, name, needs, value, accepted, marks=pytest.mark.rule(rule), id=f"{op}-{name}={value}")
    for rule, op, name, needs in NON_NEGATIVE for value, accepted in around(0, None)])
def test_non_negative_parameter(data: DataApi, observe: Callable[[str, Any], None], rule: str,
                                operation_id: str, parameter: str, needs: str | None, value: int,
                                accepted: bool) -> None:
    """The parameter documented as >= 0 accepts 0 and 1 and refuses -1."""
    params: dict[str, Any] = {parameter: value}
    if needs == "addresses":  # without addresses the timestamp filters are unsupported (document 2, rule 1)
        params["addresses"] = data.need("p_chain_address")
    assert_bound(data, rule, operation_id, params, accepted, observe)


def _range_cases() -> list[Any]:
    """Each end of the filter's range, one inside and one beyond each."""
    cases = []
    for rule, name, partner in VALIDATOR_RANGES:
        low, high = bounds("listValidators", name)
        for value, accepted in around(low, high):
            cases.append(pytest.param(rule, name, partner, value, accepted, marks=pytest.mark.rule(rule),
                                      id=f"{name}={value}"))
    return cases


@pytest.mark.parametrize(("rule", "parameter", "partner", "value", "accepted"), _range_cases())
def test_validator_filter_range(data: DataApi, observe: Callable[[str, Any], None], rule: str, parameter: str,
                                partner: str, value: int, accepted: bool) -> None:
    """listValidators accepts the filter at both ends of its documented range and refuses one beyond either."""
    low, high = bounds("listValidators", partner)
    # Keep min <= max whatever the value, so that only the bound itself is on trial.
    params: dict[str, Any] = {parameter: value, partner: low if parameter.startswith("max") else high}
    if "DelegationCapacity" in parameter:
        params = {k: str(v) for k, v in params.items()}
    assert_bound(data, rule, "listValidators", params, accepted, observe)


@pytest.mark.rule("DATA-LIM-025")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_utxo_address_limit_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """The status listUtxos answers for bodies of 1, 16 and 64 addresses (16 only in quick) is recorded."""
    address = data.need("p_chain_address")
    seen = {}
    for count in (1, 16, 64) if data.exhaustive else (16,):
        exchange = data.call("listUtxos", {"pageSize": 1}, body={"addresses": ",".join([address] * count)})
        seen[count] = exchange.status
    observe("DATA-LIM-025", seen)


@pytest.mark.rule("DATA-LIM-026")
def test_rate_limit_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What is known of the target's rate limit is recorded without provoking it."""
    observe("DATA-LIM-026", {"probed": False, "reason": "rate values are not shown; the suite sends no burst",
                             "requests_so_far": data.rest.http.requests_sent})
