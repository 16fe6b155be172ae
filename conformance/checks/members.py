"""Member-by-member shape checks: each documented member of an object decided by its own rule."""
from __future__ import annotations

import re
from typing import Any

from conformance import specs
from conformance.checks import check
from conformance.checks.shapes import schema_errors
from conformance.clients.http import Exchange


def properties(api: str, schema_name: str) -> dict[str, Any]:
    """The property schemas of a components schema of an OpenRPC document."""
    return specs.openrpc(api)["components"]["schemas"][schema_name]["properties"]


def required(api: str, schema_name: str) -> frozenset[str]:
    """The members a components schema of an OpenRPC document requires; the others are checked when present."""
    return frozenset(specs.openrpc(api)["components"]["schemas"][schema_name].get("required", ()))


def with_neutral_names(value: Any, api: str, schema_name: str) -> Any:
    """`value` with each member the documents name neutrally (`x-neutral-name`) also under the documented name.

    The documents put a neutral word where a network's brand stands in some identifiers; a node that answers
    with its brand's word keeps the same contract, so its one member matching the pattern is read as the
    documented one.
    """
    if not isinstance(value, dict):
        return value
    props = properties(api, schema_name)
    out = dict(value)
    for name, schema in props.items():
        pattern = schema.get("x-neutral-name")
        if pattern and name not in value:
            branded = [key for key in value if key not in props and re.fullmatch(pattern, key)]
            if len(branded) == 1:
                out[name] = value[branded[0]]
    return out


def check_member(rule_id: str, obj: Any, name: str, schema: dict[str, Any], *, api: str, what: str,
                 exchange: Exchange | None = None, optional: bool = False) -> None:
    """Fails `rule_id` when `obj` lacks member `name` (unless optional) or its value breaks `schema`."""
    check(isinstance(obj, dict), rule_id, f"{what} is not an object", expected="an object", received=obj,
          exchange=exchange)
    if name not in obj:
        check(optional, rule_id, f"{what} lacks {name}", expected=f"a member {name}", received=sorted(obj),
              exchange=exchange)
        return
    errors = schema_errors(obj[name], schema, api=api)
    check(not errors, rule_id, f"{what} carries {name} in the wrong form", expected=f"{name} as documented",
          received=f"{name}={obj[name]!r}: {errors[0] if errors else ''}", exchange=exchange)


def check_members(rule_id: str, obj: Any, names: list[str] | tuple[str, ...], api: str, schema_name: str, *,
                  what: str, exchange: Exchange | None = None, optional: bool = False) -> None:
    """Each of `names`, with the property schema `schema_name` gives it, decided by `rule_id`."""
    props = properties(api, schema_name)
    for name in names:
        check_member(rule_id, obj, name, props[name], api=api, what=what, exchange=exchange, optional=optional)
