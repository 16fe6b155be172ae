"""Error answers: a JSON object {message, statusCode, error} with the documented status and phrase."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import DataApi, variant

ERROR_RULES = ["DATA-ERR-001", "DATA-ERR-002", "DATA-ERR-003", "DATA-ERR-004", "DATA-ERR-005", "DATA-ERR-006",
               "DATA-ERR-007", "DATA-ERR-008"]
#: Requests the documents forbid, on routes of each kind: (route, query, path values). Most are also the requests
#: of the bounds, enumeration and required-parameter tests, so a session sends each once.
FORBIDDEN: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    ("listBlockchains", {"pageSize": checks.page_size_limits("listBlockchains")[1] + 1}, {}),
    ("listValidators", {"validationStatus": "retired"}, {}),
    ("listTransactions", {}, {"network": "undocumented-value"}),
    ("getNativeBalance", {"currency": "xyz"}, {}),
    ("listErc20Balances", {"pageSize": 501}, {}),
    ("listVerticesByHeight", {"vertexHeight": None}, {}),
]
#: Identifiers that name nothing (quick sends the first).
UNKNOWN = [
    ("getDeployment", {"address": "0x000000000000000000000000000000000000dEaD"}),
    ("listTokenTransfers", {"address": "0x000000000000000000000000000000000000dEaD"}),
    ("getValidatorsByNode", {"nodeId": "NodeID-111111111111111111116DBWJs"}),
    ("listBlocksByNode", {"nodeId": "NodeID-111111111111111111116DBWJs"}),
]


@pytest.fixture(scope="module")
def error_answers(data: DataApi) -> list[Exchange]:
    """Answers to forbidden requests that came back as errors (each request sent once per module)."""
    answers = [data.once(op, query, **path) for op, query, path in FORBIDDEN]
    # Identifiers that name nothing: whatever status they bring, an error answer keeps the error body rules.
    answers += [data.once(op, **path) for op, path in (UNKNOWN if data.exhaustive else UNKNOWN[:1])]
    for exchange in answers:
        checks.unavailable(exchange)
    errors = [exchange for exchange in answers if (exchange.status or 0) >= 400]
    if not errors:
        pytest.skip("no forbidden request was answered with an error (the bounds tests report that)")
    return errors


@pytest.mark.parametrize("rule", [pytest.param(rule, marks=pytest.mark.rule(rule), id=rule)
                                  for rule in ERROR_RULES])
def test_error_answer(error_answers: list[Exchange], rule: str) -> None:
    """Every error answer keeps the rule of the documented error body."""
    for exchange in error_answers:
        checks.assert_error_rule(rule, exchange)


@pytest.mark.rule("DATA-ERR-009")
def test_refusal_statuses_are_recorded(error_answers: list[Exchange], observe: Callable[[str, Any], None]) -> None:
    """The status of each refused request is recorded."""
    observe("DATA-ERR-009", [{"url": e.url, "status": e.status} for e in error_answers])


@pytest.mark.rule("DATA-ERR-010")
@pytest.mark.parametrize(("operation_id", "path"), [variant(op, path, quick=index == 0, id=op)
                                                    for index, (op, path) in enumerate(UNKNOWN)])
def test_unknown_identifier_is_recorded(data: DataApi, observe: Callable[[str, Any], None], operation_id: str,
                                        path: dict[str, str]) -> None:
    """What the route answers for an identifier that names nothing is recorded."""
    exchange = data.once(operation_id, **path)
    observe("DATA-ERR-010", {"route": operation_id, "status": exchange.status, "body": exchange.text(200)})
