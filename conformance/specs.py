"""Locates and loads the hand-written specifications: OpenRPC, OpenAPI and the rule catalogue."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

RPC_APIS = ("admin", "index", "evm", "validators")
REST_APIS = ("data", "metrics")
ALL_APIS = RPC_APIS + REST_APIS
OPENAPI_FILES = {"data": "data-api.yaml", "metrics": "metrics-api.yaml"}


@cache
def specs_dir() -> Path:
    """The `specs/` folder: packaged inside a wheel, or at the top of a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_specs", here.parent / "specs"):
        if (candidate / "rules").is_dir():
            return candidate
    raise FileNotFoundError("the specs/ folder is missing from this installation")


@cache
def openrpc(api: str) -> dict[str, Any]:
    """The OpenRPC document of one node API (admin, index, evm, validators)."""
    return json.loads((specs_dir() / "openrpc" / f"{api}.json").read_text(encoding="utf-8"))


@cache
def openapi(api: str) -> dict[str, Any]:
    """The OpenAPI document of one REST API (data, metrics)."""
    return yaml_data((specs_dir() / "openapi" / OPENAPI_FILES[api]).read_text(encoding="utf-8"))


def yaml_data(text: str) -> Any:
    """YAML read safely, by libyaml when PyYAML was built with it: the same data, ten times faster (every run and
    every worker reads the catalogue and the documents at its start)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def openapi_path(api: str) -> Path:
    return specs_dir() / "openapi" / OPENAPI_FILES[api]


@cache
def execution_apis() -> dict[str, Any]:
    """The parameters of the standard eth methods as the Ethereum execution-apis specification lists them:
    method -> {file, params: [[name, required], …]} (specs/openrpc/execution-apis.json)."""
    return json.loads((specs_dir() / "openrpc" / "execution-apis.json").read_text(encoding="utf-8"))["methods"]


def rpc_method(api: str, name: str) -> dict[str, Any]:
    """One method object of an OpenRPC document, by name."""
    for method in openrpc(api)["methods"]:
        if method["name"] == name:
            return method
    raise KeyError(f"{name} is not in specs/openrpc/{api}.json")


def resolve(document: dict[str, Any], node: Any) -> Any:
    """Follows a local `$ref` (one level at a time) inside `document`."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"only local references are supported, got {ref}")
        node = document
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node
