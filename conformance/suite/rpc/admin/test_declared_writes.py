"""Every declared write of the Admin API as a state diff: the state the documented read methods show, read before
and after the write, differs by exactly what `x-writes` in specs/openrpc/admin.json says; the state is restored
where the API can restore it."""
from __future__ import annotations

import secrets
from typing import Any

import pytest

from conformance.checks import check, effects, independently
from conformance.checks.admin import other_level
from conformance.checks.envelope import is_error
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.meaning import declarations, writes
from conformance.meaning.declarations import Declaration
from conformance.session import Endpoints

WRITES = declarations.of_kind("write", "admin")
#: Identifiers of chains the node may know, read with admin.getChainAliases to see that a write leaves them alone.
CHAIN_SAMPLES = ("blockchain_id", "evm_chain", "data_evm_blockchain_id", "data_p_chain_id", "data_x_chain_id",
                 "data_c_chain_id")


def read(admin: JsonRpcClient, write: Declaration, variables: dict[str, Any]) -> tuple[writes.State, Exchange | None]:
    """The state the write's reads show, flattened (each value of an `each` variable read under its own prefix)."""
    spec = write.get("read")
    state: writes.State = {}
    last = None
    each: list[Any] = list(variables.get(spec["each"]) or []) if spec.get("each") else [None]
    for value in each:
        params = writes.fill(spec.get("params", {}), {**variables, "each": value})
        last = admin.call(spec["method"], params)
        body = last.json() if last.is_json() else None
        if is_error(last) or not isinstance(body, dict) or not isinstance(body.get("result"), dict):
            if value is None:
                pytest.skip(f"{spec['method']} answers no result: its own rules report it")
            continue
        state.update(writes.flatten(body["result"].get(spec["at"]), "" if value is None else str(value)))
    return state, last


def variables_for(write: Declaration, before: writes.State, chain: str | None) -> dict[str, Any]:
    """The values the write is made with: a logger and a level it does not have, or a chain and a new alias."""
    sent = write.get("send")
    out: dict[str, Any] = {}
    if "loggerName" in sent or "logLevel" in sent or "displayLevel" in sent:
        loggers = sorted({path.split(".", 1)[0] for path in before})
        if not loggers:
            pytest.skip("the node reports no loggers")
        out["logger"] = loggers[-1]
        member = "displayLevel" if "displayLevel" in sent else "logLevel"
        out["level"] = other_level(str(before.get(f"{loggers[-1]}.{member}", "")))
    if "chain" in sent:
        if chain is None:
            pytest.skip("no blockchain ID of the node is known (pass --evm-chain or --sample blockchain_id=…)")
        out["chain"] = chain
        out["alias"] = f"conformance-{secrets.token_hex(4)}"
    return out


@pytest.mark.mutating
@pytest.mark.parametrize("write", [pytest.param(w, marks=pytest.mark.rule(w.rule, w.get("leaves")), id=w.id)
                                   for w in WRITES])
def test_a_write_changes_exactly_what_it_says(admin_api: JsonRpcClient, endpoints: Endpoints,
                                              blockchain_id_or_none: str | None, write: Declaration) -> None:
    """The state after the write is the state before it with the declared changes: nothing missing, nothing
    extra (what the documents leave open aside)."""
    chains = [c for c in dict.fromkeys(endpoints.sample(name) for name in CHAIN_SAMPLES) if c]
    variables: dict[str, Any] = {"chains": chains}
    before, _ = read(admin_api, write, variables)
    variables.update(variables_for(write, before, blockchain_id_or_none))
    if "chain" in variables and variables["chain"] not in chains:
        variables["chains"] = [variables["chain"], *chains]
        before, _ = read(admin_api, write, variables)
    try:
        answer = admin_api.call(write.subject, writes.fill(write.get("send"), variables))
        if is_error(answer):
            pytest.skip(f"{write.subject} refused the write: its own rules decide whether it should")
        after, exchange = read(admin_api, write, variables)
        expected = writes.expected_changes(write.get("changes"), before, variables)
        with independently():
            absent = writes.missing(expected, after)
            check(not absent, write.rule, f"{write.subject} with {writes.fill(write.get('send'), variables)} does "
                  f"not change what it must", expected="; ".join(f"{p} = {v!r}" for p, v in expected.items())[:400],
                  received="; ".join(f"{p} = {found!r}" for p, (_, found) in absent.items())[:400], exchange=exchange)
        beyond = writes.extra(writes.diff(before, after), expected, write.get("open", []), variables)
        check(not beyond, write.get("leaves", write.rule), f"{write.subject} with "
              f"{writes.fill(write.get('send'), variables)} also changes what it must leave alone",
              expected="every other value as it was",
              received="; ".join(f"{p}: {was!r} -> {now!r}" for p, (was, now) in sorted(beyond.items()))[:400],
              exchange=exchange)
        effects.verified(write)
    finally:
        restore(admin_api, write, before)


def restore(admin: JsonRpcClient, write: Declaration, before: writes.State) -> None:
    """Sets every logger back to its levels; an alias cannot be removed through the API and stays."""
    if write.subject != "admin.setLoggerLevel":
        return
    loggers: dict[str, dict[str, Any]] = {}
    for path, value in before.items():
        name, _, member = path.rpartition(".")
        loggers.setdefault(name, {})[member] = value
    for name, levels in loggers.items():
        admin.call("admin.setLoggerLevel", {"loggerName": name, **levels})
