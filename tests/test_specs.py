"""The OpenRPC and OpenAPI documents are valid and say what the API documents say."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import jsonschema
import pytest
import schemathesis
from openapi_spec_validator import validate as validate_openapi
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7
from schemathesis.core.result import Err, Ok

from conformance import specs
from tests import documents
from tests.prerequisites import missing_from_npm

META_SCHEMA_URL = "https://meta.json-schema.tools"


def _meta_schema_path() -> Path:
    configured = os.environ.get("CONFORMANCE_OPENRPC_META_SCHEMA")
    return Path(configured) if configured else documents.ROOT / ".venv" / "share" / "openrpc-meta-schema.json"


@pytest.fixture(scope="module")
def openrpc_validator() -> jsonschema.Draft7Validator:
    path = _meta_schema_path()
    if not path.is_file():
        missing_from_npm("the OpenRPC meta-schema", f"`make test` fetches it from npm into {path}")
    registry = Registry().with_resource(
        META_SCHEMA_URL, Resource.from_contents(jsonschema.Draft7Validator.META_SCHEMA, default_specification=DRAFT7))
    return jsonschema.Draft7Validator(json.loads(path.read_text()), registry=registry)


@pytest.mark.parametrize("api", specs.RPC_APIS)
def test_openrpc_document_is_valid(api: str, openrpc_validator: jsonschema.Draft7Validator) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in openrpc_validator.iter_errors(specs.openrpc(api))]
    assert errors == []


def _embedded_schemas(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if "schema" in node and isinstance(node["schema"], dict):
            yield path, node["schema"]
        for key, value in node.items():
            yield from _embedded_schemas(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _embedded_schemas(value, f"{path}/{i}")


@pytest.mark.parametrize("api", specs.RPC_APIS)
def test_openrpc_schemas_are_valid_json_schemas_whose_references_resolve(api: str) -> None:
    document = specs.openrpc(api)
    for schema in document.get("components", {}).get("schemas", {}).values():
        jsonschema.Draft202012Validator.check_schema(schema)
    for _, schema in _embedded_schemas(document):
        jsonschema.Draft202012Validator.check_schema(schema)
        # Resolving every reference against the whole document proves none dangles.
        jsonschema.Draft202012Validator({**schema, "components": document.get("components", {})}).is_valid(None)


def test_every_method_of_document_1_is_specified() -> None:
    specified = {method["name"] for api in specs.RPC_APIS for method in specs.openrpc(api)["methods"]}
    assert documents.rpc_methods() - specified == set()


def test_standard_methods_require_what_the_execution_apis_require() -> None:
    """A node may refuse a call that leaves out a parameter the execution-apis specification requires, so the suite
    never treats such a parameter as optional (it may require more: a node may refuse that omission too)."""
    standard = specs.execution_apis()
    ours = {method["name"]: method for method in specs.openrpc("evm")["methods"] if "x-standard" in method}
    assert set(standard) <= set(ours), "a method of the extract is not a standard method of evm.json"
    for name, listed in standard.items():
        params = ours[name].get("params", [])
        assert len(params) == len(listed["params"]), f"{name}: {len(params)} params, execution-apis lists " \
            f"{len(listed['params'])}"
        optional = [param["name"] for param, (_, required) in zip(params, listed["params"])
                    if required and not param.get("required", False)]
        assert optional == [], f"{name}: {optional} optional here, required by the execution-apis"


def test_response_shapes_are_open() -> None:
    texts = [json.dumps(specs.openrpc(api)) for api in specs.RPC_APIS]
    texts += [json.dumps(specs.openapi(api)) for api in specs.REST_APIS]
    assert not any('"additionalProperties": false' in text for text in texts)


@pytest.mark.parametrize("api", specs.REST_APIS)
def test_openapi_document_is_valid(api: str) -> None:
    validate_openapi(specs.openapi(api))


@pytest.mark.parametrize("api", specs.REST_APIS)
def test_schemathesis_loads_every_operation(api: str) -> None:
    schema = schemathesis.openapi.from_path(str(specs.openapi_path(api)))
    results = list(schema.get_all_operations())
    assert [result.err() for result in results if isinstance(result, Err)] == []
    operations = [result.ok() for result in results if isinstance(result, Ok)]
    expected = len(documents.data_routes()) if api == "data" else len(documents.metrics_routes())
    assert len(operations) == expected


def test_every_route_of_document_2_is_specified_with_its_method() -> None:
    paths = specs.openapi("data")["paths"]
    for number, (method, path) in documents.data_routes().items():
        assert path in paths, f"endpoint {number}: {path}"
        assert method.lower() in paths[path], f"endpoint {number}: {method} {path}"


def test_every_route_of_document_3_is_specified() -> None:
    assert documents.metrics_routes() <= set(specs.openapi("metrics")["paths"])


def _page_size(api: str, path: str, method: str) -> dict:
    document = specs.openapi(api)
    operation = document["paths"][path][method]
    for parameter in operation.get("parameters", []) + document["paths"][path].get("parameters", []):
        parameter = specs.resolve(document, parameter)
        if parameter["name"] == "pageSize":
            return specs.resolve(document, parameter["schema"])
    raise AssertionError(f"{method.upper()} {path} has no pageSize")


def test_page_size_bounds_and_defaults_match_document_2() -> None:
    routes = documents.data_routes()
    page_sizes = documents.data_page_sizes()
    assert len(page_sizes) >= 13
    for number, (maximum, default) in page_sizes.items():
        method, path = routes[number]
        schema = _page_size("data", path, method.lower())
        assert (schema.get("minimum"), schema.get("maximum"), schema.get("default")) == (1, maximum, default), number


def test_metric_names_and_intervals_match_document_3() -> None:
    operation = specs.openapi("metrics")["paths"]["/v2/chains/{chainId}/metrics/{metric}"]["get"]
    assert operation["x-metric-intervals"] == documents.metric_intervals()
    assert len(documents.metric_intervals()) == 17


def test_metrics_page_size_bounds_match_document_3() -> None:
    schema = _page_size("metrics", "/v2/chains/{chainId}/metrics/{metric}", "get")
    assert (schema.get("minimum"), schema.get("maximum"), schema.get("default")) == (1, 2160, 100)


def test_error_bodies_differ_between_data_and_metrics_as_documented() -> None:
    def message_type(api: str) -> object:
        document = specs.openapi(api)
        schemas = document["components"]["schemas"]
        bodies = [s for name, s in schemas.items() if "message" in s.get("properties", {})]
        return {json.dumps(specs.resolve(document, body["properties"]["message"]).get("type")) for body in bodies}
    assert message_type("data") == {'"string"'}
    assert message_type("metrics") == {'"array"'}
