"""Shape checks: a value validated against a schema from specs/, with the fast validator and open shapes."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import jsonschema_rs

from conformance.checks import fail, held
from conformance.clients.http import Exchange
from conformance import specs

#: Members left out of a shape: (component name, member name) pairs.
LeaveOut = tuple[tuple[str, str], ...]


@lru_cache(maxsize=512)
def _validator(document_key: str, schema_json: str, leave_out: LeaveOut = ()) -> Any:
    return compiled(json.loads(schema_json), api=document_key.split(":", 1)[1], leave_out=leave_out)


def compiled(schema: dict[str, Any], *, api: str, leave_out: LeaveOut = ()) -> Any:
    """The validator of `schema` (an OpenRPC or OpenAPI schema of `api`) as every shape check has it: jsonschema-rs
    in its default dialect (so `format` is an annotation), `$ref`s resolved in the document. Built anew each call:
    a caller that judges often keeps what it gets."""
    document = specs.openrpc(api) if api in specs.RPC_APIS else specs.openapi(api)
    # Local references ("#/components/schemas/X") resolve against the schema's own root, so carry the components.
    root = {**schema, "components": _opened(document.get("components", {}), leave_out)}
    return jsonschema_rs.validator_for(root)


def _opened(components: dict[str, Any], leave_out: LeaveOut) -> dict[str, Any]:
    """The components with each (component, member) of `leave_out` open to any value: a member that has a rule of
    its own is decided by that rule alone, so a shape that contains it does not judge it a second time."""
    if not leave_out:
        return components
    schemas = dict(components.get("schemas", {}))
    for name, member in leave_out:
        schema = dict(schemas[name])
        if member not in schema.get("properties", {}):
            raise KeyError(f"{name}.{member} is not a documented member to leave out of a shape")
        schema["properties"] = {**schema["properties"], member: {}}
        schemas[name] = schema
    return {**components, "schemas": schemas}


def schema_errors(instance: Any, schema: dict[str, Any], *, api: str, leave_out: LeaveOut = ()) -> list[str]:
    """Every way `instance` breaks `schema` (an OpenRPC or OpenAPI schema of `api`), as short sentences; members
    named in `leave_out` (component, member) are not judged."""
    kind = "rpc" if api in specs.RPC_APIS else "rest"
    validator = _validator(f"{kind}:{api}", json.dumps(schema, sort_keys=True), tuple(sorted(leave_out)))
    return [f"{'/'.join(map(str, error.instance_path)) or '(top)'}: {error.message}"
            for error in validator.iter_errors(instance)]


def component(api: str, name: str) -> dict[str, Any]:
    """A named schema of `components.schemas`, as a reference (so it validates with its document)."""
    document = specs.openrpc(api) if api in specs.RPC_APIS else specs.openapi(api)
    if name not in document.get("components", {}).get("schemas", {}):
        raise KeyError(f"{name} is not a component schema of the {api} spec")
    return {"$ref": f"#/components/schemas/{name}"}


def assert_shape(rule_id: str, instance: Any, schema: dict[str, Any], *, api: str, what: str,
                 exchange: Exchange | None = None, leave_out: LeaveOut = ()) -> None:
    """Fails `rule_id` when `instance` does not have the documented shape (members in `leave_out` aside)."""
    errors = schema_errors(instance, schema, api=api, leave_out=leave_out)
    if errors:
        fail(rule_id, f"{what} does not have the documented shape", expected=f"{what} matching the spec",
             received="; ".join(errors[:5]) + (f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""),
             exchange=exchange)
    held(rule_id, exchange)
