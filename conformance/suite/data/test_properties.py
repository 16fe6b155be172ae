"""Generated requests (schemathesis: examples, coverage and fuzzing phases) get documented answers."""
from __future__ import annotations


import pytest

from conformance.checks import data as checks
from conformance.checks.data import API
from conformance.checks.data_generated import rules_of
from conformance.generated import OperationRequests, cases, operation_requests
from conformance.schemathesis_support import WireCase, judge
from conformance.suite.data.conftest import DataApi, variant

# Each generated request is judged by every check registered for the API: importing conformance.checks.data_generated
# registers them.
#: The route quick generates requests for: the one with the most documented bounds and enumerations.
QUICK_ROUTE = "listValidators"


def requests_of(data: DataApi, operation_id: str) -> OperationRequests:
    """The operation's generated requests, each path value one the target serves (discovered or given), so that
    fuzzing reaches the query's checks; a value neither given nor discoverable is generated."""
    values = {}
    for name in checks.operation(operation_id).template.split("{")[1:]:
        name = name.split("}")[0]
        try:
            values[name] = data.path_value(operation_id, name)
        except pytest.skip.Exception:
            continue
    spec = checks.operation(operation_id)
    return operation_requests(API, f"{spec.method} {spec.template}", path=values)


@pytest.mark.parametrize("operation_id", [variant(op, quick=op == QUICK_ROUTE, marks=pytest.mark.rule(*rules_of(op)),
                                                  id=op) for op in checks.operations()])
@cases(case=requests_of)
def test_generated_requests_get_documented_answers(data: DataApi, case: WireCase) -> None:
    """Example, coverage and fuzzed requests get documented shapes, error bodies and refusals."""
    judge(data.rest, API, case)
