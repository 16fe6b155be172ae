"""Reading JSON-RPC params the way a careful node does: named (objects) or positional (arrays), types checked."""
from __future__ import annotations

from typing import Any

from conformance.reference.calls import RpcCall
from conformance.reference.jsonrpc import invalid_params

MAX_UINT64 = (1 << 64) - 1


def named(call: RpcCall, *, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The params object of a call; omitted params count as {} when nothing is required.

    Unknown members are ignored, as the node's JSON decoding does: a newer client may send more.
    """
    params = call.params
    if params is None:
        params = {}
    if isinstance(params, list):
        # A one-element array holding the object is how some JSON-RPC 2.0 clients send named params.
        if len(params) == 1 and isinstance(params[0], dict):
            params = params[0]
        elif not params:
            params = {}
        else:
            raise invalid_params(f"{call.method} takes its params as an object")
    missing = [name for name in required if params.get(name) is None]
    if missing:
        raise invalid_params(f"missing required param {missing[0]!r}")
    return params


def positional(call: RpcCall, *, most: int) -> list[Any]:
    params = call.params
    if params is None:
        return []
    if not isinstance(params, list):
        raise invalid_params(f"{call.method} takes its params as an array")
    if len(params) > most:
        raise invalid_params(f"too many arguments, want at most {most}")
    return params


def string(params: dict[str, Any], name: str, *, default: str | None = None) -> str | None:
    value = params.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise invalid_params(f"{name} must be a string")
    return value


def required_string(params: dict[str, Any], name: str) -> str:
    """A string param that named(call, required=...) has already found present."""
    value = string(params, name)
    if value is None:
        raise invalid_params(f"missing required param {name!r}")
    return value


def uint64(params: dict[str, Any], name: str) -> int:
    """A uint64 given as a JSON number or as a decimal string (the node's JSON accepts both)."""
    value = params.get(name)
    if isinstance(value, bool) or value is None:
        raise invalid_params(f"{name} must be an unsigned integer")
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 0 <= value <= MAX_UINT64:
        raise invalid_params(f"{name} must be an unsigned integer")
    return value


def quantity(value: Any, what: str) -> int:
    """An unsigned integer given as a JSON number or a 0x hex quantity."""
    if isinstance(value, bool):
        raise invalid_params(f"{what} must be an unsigned integer")
    if isinstance(value, str) and value[:2] in ("0x", "0X") and len(value) > 2:
        try:
            value = int(value[2:], 16)
        except ValueError:
            raise invalid_params(f"{what} is not a hex quantity") from None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 0 <= value <= MAX_UINT64:
        raise invalid_params(f"{what} must be an unsigned integer")
    return value
