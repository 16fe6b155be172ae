"""Generated requests (schemathesis: examples, coverage and fuzzing phases) get documented answers."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from conformance.checks import data as checks
from conformance.checks.data import API
from conformance.checks.data_generated import rules_of
from conformance.profiles import Profile
from conformance.schemathesis_support import CaseRun, explicit_cases, fuzzed_cases, operation
from conformance.suite.data.conftest import DataApi, variant

# Each generated request is judged by every check registered for the API: importing conformance.checks.data_generated
# registers them.
#: The route quick generates requests for: the one with the most documented bounds and enumerations.
QUICK_ROUTE = "listValidators"


def known_path(data: DataApi, operation_id: str) -> dict[str, str]:
    """Path values the target serves (discovered or given), so that fuzzing reaches the query's checks."""
    values = {}
    for name in checks.operation(operation_id).template.split("{")[1:]:
        name = name.split("}")[0]
        try:
            values[name] = data.path_value(operation_id, name)
        except pytest.skip.Exception:   # an identifier neither given nor discoverable: generated instead
            continue
    return values


@pytest.mark.parametrize("operation_id", [variant(op, quick=op == QUICK_ROUTE, marks=pytest.mark.rule(*rules_of(op)),
                                                  id=op) for op in checks.operations()])
def test_generated_requests_get_documented_answers(data: DataApi, profile: Profile, operation_id: str) -> None:
    """Example, coverage and fuzzed requests get documented shapes, error bodies and refusals."""
    op = operation(API, f"{checks.operation(operation_id).method} {checks.operation(operation_id).template}")
    run = CaseRun(data.rest, API)
    for case in explicit_cases(op, limit=profile.examples):
        run.run(case)

    @given(case=fuzzed_cases(op, path_parameters=[known_path(data, operation_id)]))
    def fuzz(case: Any) -> None:
        run.run(case)

    fuzz()
    run.finish()
