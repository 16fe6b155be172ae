"""Which requests may be sent again after the way to the target failed: those that change nothing there.

A request whose connection was reset or whose answer was cut off may have been carried out already; sent again, a
write would be carried out twice (one whose connection was refused never reached the target, and is always sent
again). What writes is read from the specs, never listed here: a JSON-RPC method writes when it declares `x-writes`,
and so does every other method of a document that declares writes, except the methods those writes are read back
through (in specs/openrpc/admin.json: admin.getChainAliases and admin.getLoggerLevel read, every other admin method
writes, as admin.alias, admin.loadVMs or the profilers do). Every operation of the REST documents reads (listUtxos is
a POST that reads); a request sent by a test marked `mutating` is never sent again, whatever it calls.
"""
from __future__ import annotations

import json
from functools import cache
from typing import Any

from conformance import evidence, specs

#: Methods of HTTP that change nothing on the server (RFC 9110 §9.2.1) among those the suite sends.
_SAFE_METHODS = frozenset({"GET", "HEAD"})


@cache
def writing_methods() -> frozenset[str]:
    """The JSON-RPC methods that change the node's state, derived from the `x-writes` declarations of the specs."""
    writing: set[str] = set()
    for api in specs.RPC_APIS:
        methods = specs.openrpc(api)["methods"]
        writes = [write for method in methods for write in method.get("x-writes", [])]
        if not writes:
            continue
        # A document that declares writes is an API that changes the node: only what its writes are read back
        # through is known to read, and a method it adds later is a write until the specs say otherwise.
        reads = {write["read"]["method"] for write in writes if isinstance(write.get("read"), dict)}
        writing |= {method["name"] for method in methods if method["name"] not in reads}
    return frozenset(writing)


def may_resend(method: str, body: bytes | None) -> bool:
    """Whether a request (its HTTP method and body) may be sent again: it changes nothing on the target."""
    ledger = evidence.current()
    if ledger is not None and ledger.changes_state:
        return False
    if method in _SAFE_METHODS:
        return True
    if method != "POST":
        return False
    return not (_called(body) & writing_methods())


def _called(body: bytes | None) -> set[str]:
    """The JSON-RPC methods a body calls (each call of a batch); none for a body that calls no method (a REST
    body, or one no server can read as a call)."""
    if not body:
        return set()
    try:
        value: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return set()
    calls = value if isinstance(value, list) else [value]
    return {call["method"] for call in calls if isinstance(call, dict) and isinstance(call.get("method"), str)}
