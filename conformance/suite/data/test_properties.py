"""Generated requests (schemathesis: examples, coverage and fuzzing phases) get documented answers."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.cases_ahead import OperationPlan, drawn, placeholder, planned
from conformance.checks import data as checks
from conformance.checks.data import API
from conformance.checks.data_generated import rules_of
from conformance.profiles import Profile
from conformance.schemathesis_support import CaseRun
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


def plan(params: dict[str, Any], profile: Profile) -> OperationPlan:
    """What the test draws: the operation's cases, its path values the run discovers drawn as placeholders."""
    spec = checks.operation(params["operation_id"])
    names = [part.split("}")[0] for part in spec.template.split("{")[1:]]
    return OperationPlan.of(API, f"{spec.method} {spec.template}", limit=profile.examples,
                            path_parameters=[{name: placeholder(name) for name in names}])


@pytest.mark.parametrize("operation_id", [variant(op, quick=op == QUICK_ROUTE, marks=pytest.mark.rule(*rules_of(op)),
                                                  id=op) for op in checks.operations()])
@planned(plan)
def test_generated_requests_get_documented_answers(request: pytest.FixtureRequest, data: DataApi, profile: Profile,
                                                   operation_id: str) -> None:
    """Example, coverage and fuzzed requests get documented shapes, error bodies and refusals."""
    run = CaseRun(data.rest, API)
    run.run_all(drawn(request, plan({"operation_id": operation_id}, profile), known_path(data, operation_id)),
                request.config)
    run.finish()
