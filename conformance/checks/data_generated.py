"""Checks of generated Data API requests (schemathesis cases): documented shapes, error bodies and refusals.

Registered for the "data" API with `rest_check`, so they judge every case `judge` sends (and schemathesis, when
it runs them itself). Each check decides only what a generated request can decide: a 2XX answer has the route's
documented shape; a 4XX error body is the documented one; a query value outside its documented bound or
enumeration is refused. Generated path values name nothing the target serves, so nothing requires a 2XX.
"""
from __future__ import annotations

import re
from conformance.checks import data as checks
from conformance.checks.data import API
from conformance.checks.rest import assert_error_body, assert_refused, documented_phrases
from conformance.clients.http import Exchange
from conformance.schemathesis_support import GeneratedRequest, invalid_query_parameters, rest_check, sent_query

#: Rules the generated requests of every route decide (the JSON answer and the error body).
COMMON_RULES = ("DATA-ENV-001", "DATA-ENV-002", "DATA-ERR-001", "DATA-ERR-002", "DATA-ERR-003", "DATA-ERR-004",
                "DATA-ERR-005", "DATA-ERR-006", "DATA-ERR-007")
#: (route or "*", query parameter) -> the rule that requires a value outside the parameter's schema to be refused.
REFUSAL_RULES = {
    **{(op, "pageSize"): rule for op, rule in (
        ("listUtxos", "DATA-LIM-001"), ("listTransactions", "DATA-LIM-002"), ("listBlockchains", "DATA-LIM-003"),
        ("listValidators", "DATA-LIM-004"), ("getValidatorsByNode", "DATA-LIM-005"),
        ("listErc721Transactions", "DATA-LIM-006"), ("listErc1155Transactions", "DATA-LIM-007"),
        ("listTokenTransfers", "DATA-LIM-008"), ("listErc20Balances", "DATA-LIM-009"),
        ("listErc1155Balances", "DATA-LIM-010"), ("listErc721Balances", "DATA-LIM-011"),
        ("listVerticesByHeight", "DATA-LIM-012"), ("listBlocksByNode", "DATA-LIM-013"))},
    ("listTransactions", "startTimestamp"): "DATA-LIM-014", ("listTransactions", "endTimestamp"): "DATA-LIM-015",
    ("listBlocksByNode", "startTimestamp"): "DATA-LIM-016", ("listBlocksByNode", "endTimestamp"): "DATA-LIM-016",
    ("listVerticesByHeight", "vertexHeight"): "DATA-LIM-017", ("listUtxos", "minUtxoAmount"): "DATA-LIM-018",
    ("listValidators", "minTimeRemaining"): "DATA-LIM-020", ("listValidators", "maxTimeRemaining"): "DATA-LIM-020",
    ("listValidators", "minFeePercentage"): "DATA-LIM-021", ("listValidators", "maxFeePercentage"): "DATA-LIM-022",
    ("listValidators", "minUptimePerformance"): "DATA-LIM-023",
    ("listValidators", "maxUptimePerformance"): "DATA-LIM-024",
    ("*", "sortOrder"): "DATA-ENUM-003", ("*", "currency"): "DATA-ENUM-004",
    ("listValidators", "validationStatus"): "DATA-ENUM-006",
    ("getValidatorsByNode", "validationStatus"): "DATA-ENUM-007",
    ("listUtxos", "sortBy"): "DATA-ENUM-008", ("listValidators", "sortBy"): "DATA-ENUM-010",
}
#: Filters the document calls unsupported without addresses: without them a value is not judged (DATA-SEM-007).
NEEDS_ADDRESSES = {("listTransactions", "startTimestamp"), ("listTransactions", "endTimestamp")}
_PLAIN = re.compile(r"^[A-Za-z0-9._~-]+$")


def operation_id(request: GeneratedRequest) -> str | None:
    method, template = request.label.split(" ", 1)
    found = [op.id for op in checks.operations().values() if op.method == method and op.template == template]
    return found[0] if found else None


def refusal_rule(op: str, parameter: str) -> str | None:
    return REFUSAL_RULES.get((op, parameter)) or REFUSAL_RULES.get(("*", parameter))


def rules_of(op: str) -> tuple[str, ...]:
    """Every rule the generated requests of route `op` can fail."""
    own = {rule for name in checks.operation(op).parameters if (rule := refusal_rule(op, name)) is not None}
    return (*COMMON_RULES, checks.SHAPE_RULES[op], *sorted(own))


def _plain_path(request: GeneratedRequest) -> bool:
    """Path values a gateway routes as they are; others may be answered before the service sees them."""
    return all(_PLAIN.match(value) for value in request.path_parameters.values())


@rest_check(API)
def success_has_documented_shape(request: GeneratedRequest, exchange: Exchange) -> None:
    """A 2XX answer is JSON, declares JSON, and has the route's documented shape."""
    op = operation_id(request)
    if op is None or not 200 <= (exchange.status or 0) < 300:
        return
    checks.assert_json_success(exchange)
    checks.assert_route_shape(checks.SHAPE_RULES[op], op, exchange.json(), exchange)


@rest_check(API)
def error_has_documented_body(request: GeneratedRequest, exchange: Exchange) -> None:
    """A documented 4XX status (other than 429) to a request with plain path values carries the error body."""
    status = exchange.status or 0
    if 400 <= status < 500 and status != 429 and status in documented_phrases(API) and _plain_path(request):
        assert_error_body(exchange, api=API)


@rest_check(API)
def value_outside_its_schema_is_refused(request: GeneratedRequest, exchange: Exchange) -> None:
    """A query value outside its documented bound or enumeration is refused with a 4XX status."""
    op = operation_id(request)
    if op is None or exchange.status == 429:
        return
    # Judged as sent, and only where decidable: an empty value may mean "absent", a repeated one is not documented.
    sent = sent_query(exchange)
    query = {name: values[0] for name, values in sent.items() if len(values) == 1 and values[0]}
    for name in invalid_query_parameters(API, request.label, query):
        rule = refusal_rule(op, name)
        if rule is None or ((op, name) in NEEDS_ADDRESSES and not query.get("addresses")):
            continue
        assert_refused(exchange, rule_id=rule, api=API, body=False, what=f"{op} with {name}={query[name]!r}")
        return

