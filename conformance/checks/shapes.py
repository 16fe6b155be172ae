"""Shape checks: a value validated against a schema from specs/, with the fast validator and open shapes."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import jsonschema_rs

from conformance.checks import fail
from conformance.clients.http import Exchange
from conformance import specs


@lru_cache(maxsize=512)
def _validator(document_key: str, schema_json: str) -> Any:
    api_kind, api = document_key.split(":", 1)
    document = specs.openrpc(api) if api_kind == "rpc" else specs.openapi(api)
    schema = json.loads(schema_json)
    # Local references ("#/components/schemas/X") resolve against the schema's own root, so carry the components.
    root = {**schema, "components": document.get("components", {})}
    return jsonschema_rs.validator_for(root)


def schema_errors(instance: Any, schema: dict[str, Any], *, api: str) -> list[str]:
    """Every way `instance` breaks `schema` (an OpenRPC or OpenAPI schema of `api`), as short sentences."""
    kind = "rpc" if api in specs.RPC_APIS else "rest"
    validator = _validator(f"{kind}:{api}", json.dumps(schema, sort_keys=True))
    return [f"{'/'.join(map(str, error.instance_path)) or '(top)'}: {error.message}"
            for error in validator.iter_errors(instance)]


def component(api: str, name: str) -> dict[str, Any]:
    """A named schema of `components.schemas`, as a reference (so it validates with its document)."""
    document = specs.openrpc(api) if api in specs.RPC_APIS else specs.openapi(api)
    if name not in document.get("components", {}).get("schemas", {}):
        raise KeyError(f"{name} is not a component schema of the {api} spec")
    return {"$ref": f"#/components/schemas/{name}"}


def assert_shape(rule_id: str, instance: Any, schema: dict[str, Any], *, api: str, what: str,
                 exchange: Exchange | None = None) -> None:
    """Fails `rule_id` when `instance` does not have the documented shape."""
    errors = schema_errors(instance, schema, api=api)
    if errors:
        fail(rule_id, f"{what} does not have the documented shape", expected=f"{what} matching the spec",
             received="; ".join(errors[:5]) + (f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""),
             exchange=exchange)
