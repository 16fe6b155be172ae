"""Self-tests of the strategies: valid params validate against the spec, invalid ones do not, boundaries are present."""
from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import find, given, settings, strategies as st
from hypothesis.errors import NoSuchExample

from conformance import specs
from conformance.strategies import boundary_values, container_ranges, invalid_params, invalid_values, valid_params

LETTERS = list("abcdefghijklmnopqrstuvwxyz")  # so that drawing "X" for "x" is likely
METHODS = [(api, method["name"]) for api in specs.RPC_APIS for method in specs.openrpc(api)["methods"]]


def params_schema(api: str, method: str) -> dict:
    """A JSON Schema of a method's whole params (object or array), with the document's components."""
    found = specs.rpc_method(api, method)
    params = found["params"]
    components = specs.openrpc(api).get("components", {})
    if found.get("paramStructure") == "by-position":
        return {"type": "array", "prefixItems": [p["schema"] for p in params], "items": False,
                "minItems": sum(p.get("required", False) for p in params), "components": components}
    return {"type": "object", "properties": {p["name"]: p["schema"] for p in params},
            "required": [p["name"] for p in params if p.get("required")], "components": components}


def valid(api: str, method: str, value: object) -> bool:
    return jsonschema.Draft202012Validator(params_schema(api, method)).is_valid(json.loads(json.dumps(value)))


@pytest.mark.parametrize(("api", "method"), METHODS)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_valid_params_validate(api: str, method: str, data: st.DataObject) -> None:
    assert valid(api, method, data.draw(valid_params(method, api=api)))


@pytest.mark.parametrize(("api", "method"), [m for m in METHODS if specs.rpc_method(*m)["params"]])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_invalid_params_do_not_validate(api: str, method: str, data: st.DataObject) -> None:
    case = data.draw(invalid_params(method, api=api))
    assert not valid(api, method, case.params), case


# The strategies are built once per method, and `.example()` draws from a batch a strategy keeps: a search
# (`find`) says whether a case can be drawn at all, whatever other tests drew before.
SEARCH = settings(max_examples=1000, database=None, deadline=None)


@pytest.mark.parametrize(("param", "kind", "rule"), [("numToFetch", "above", "RPC-IDX-004"),
                                                     ("encoding", "enum", "RPC-IDX-015")])
def test_documented_refusals_carry_their_rule(param: str, kind: str, rule: str) -> None:
    case = find(invalid_params("index.getContainerRange", api="index"),
                lambda c: (c.param, c.kind) == (param, kind), settings=SEARCH)
    assert case.rule == rule


@settings(max_examples=300, deadline=None)
@given(case=invalid_params("index.getContainerRange", api="index"))
def test_refusals_the_documents_do_not_name_carry_no_rule(case: object) -> None:
    assert case.kind not in ("type", "missing", "below") or case.rule is None, case  # type: ignore[attr-defined]  # the drawn case


@settings(max_examples=300, deadline=None)
@given(pair=invalid_values({"type": "string", "enum": LETTERS + ["hex"]}, api="index"))
def test_other_enum_values_are_not_another_spelling_of_one(pair: tuple[object, str]) -> None:
    value, kind = pair
    assert kind != "enum" or str(value).casefold() not in LETTERS + ["hex"], value


@pytest.mark.parametrize("method", ["index.getIndex", "index.isAccepted"])
def test_an_encoding_nothing_reads_is_not_a_documented_refusal(method: str) -> None:
    with pytest.raises(NoSuchExample):
        find(invalid_params(method, api="index"), lambda c: c.param == "encoding" and c.rule is not None,
             settings=SEARCH)
    find(invalid_params(method, api="index"), lambda c: c.param == "encoding", settings=SEARCH)


def test_boundaries_are_present() -> None:
    fetch = specs.rpc_method("index", "index.getContainerRange")["params"][1]["schema"]
    assert boundary_values(fetch, api="index") == [(-1, False), (0, True), (1, True), (1023, True), (1024, True),
                                                   (1025, False)]
    alias = specs.rpc_method("admin", "admin.alias")["params"][1]["schema"]
    assert (512, True) in boundary_values(alias, api="admin") and (513, False) in boundary_values(alias, api="admin")


def test_container_ranges_check_their_bounds() -> None:
    with pytest.raises(ValueError):
        container_ranges(last_index=-1, max_fetch=4)
    with pytest.raises(ValueError):
        container_ranges(last_index=3, max_fetch=2, min_fetch=3)


@given(pair=container_ranges(last_index=9, max_fetch=4))
def test_container_ranges_stay_inside(pair: tuple[int, int]) -> None:
    start, count = pair
    assert 0 <= start <= 9 and 0 <= count <= 4
