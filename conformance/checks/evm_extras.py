"""The EVM chain's extra methods (document 1): results read member by member, each member under its own rule."""
from __future__ import annotations

from typing import Any

from conformance import specs
from conformance.checks import check, independently
from conformance.checks.members import check_member, with_neutral_names
from conformance.clients.http import Exchange

#: Each member of an eth_getActiveRulesAt result and the rule that decides it.
ACTIVE_RULES_MEMBERS = (("ethRules", "RPC-EVM-022"), ("networkRules", "RPC-EVM-023"), ("precompiles", "RPC-EVM-024"))


def check_active_rules(result: Any, *, what: str, exchange: Exchange) -> dict[str, Any]:
    """Checks an eth_getActiveRulesAt result and returns it with its members under their documented names."""
    result = with_neutral_names(result, "evm", "ActiveRules")
    members = specs.openrpc("evm")["components"]["schemas"]["ActiveRules"]["properties"]
    for member, rule in ACTIVE_RULES_MEMBERS:
        with independently():  # each member is its own rule, decided whatever the others hold
            check_member(rule, result, member, members[member], api="evm", what=what, exchange=exchange)
    return result


# --- what a block or a timestamp selects ----------------------------------------------------------------------

def fee_config_read(exchange: Exchange) -> dict[str, Any] | None:
    """An eth_feeConfig result in its documented form (a feeConfig object and an integer lastChangedAt), else None:
    a result in another form is RPC-EVM-001's and RPC-EVM-002's to decide, and tells nothing about blocks."""
    body = exchange.json() if exchange.is_json() else None
    result = body.get("result") if isinstance(body, dict) and "error" not in body else None
    changed = result.get("lastChangedAt") if isinstance(result, dict) else None
    if not isinstance(result.get("feeConfig") if isinstance(result, dict) else None, dict) \
            or not isinstance(changed, int) or isinstance(changed, bool):
        return None
    return result


def check_fee_config_at(block: int, answer: dict[str, Any], latest: tuple[dict[str, Any], dict[str, Any]], *,
                        exchange: Exchange) -> None:
    """RPC-EVM-036: the fee config at a block is the one in force then.

    lastChangedAt of the latest answer is the block the config in force last changed at: from it on, every block's
    config is the latest one (read before and after, so a change meanwhile is no failure); a block before it
    cannot name a later change as its last.
    """
    before, after = latest
    if block >= before["lastChangedAt"]:
        check(answer in (before, after), "RPC-EVM-036", f"eth_feeConfig at block {block} is not the fee config in "
              f"force since block {before['lastChangedAt']}", expected=f"the latest answer: {before}",
              received=answer, exchange=exchange)
        return
    check(answer["lastChangedAt"] <= block, "RPC-EVM-036", f"eth_feeConfig at block {block} names a change after "
          "that block as its last", expected=f"lastChangedAt at most {block} (the config in force at block {block}, "
          f"before the change at block {before['lastChangedAt']})", received=answer, exchange=exchange)


def precompile_times(result: Any) -> dict[str, int]:
    """Precompile config name -> activation timestamp, for the entries of an eth_getActiveRulesAt result in their
    documented form ({timestamp: integer}); others are RPC-EVM-024's to decide."""
    listed = result.get("precompiles") if isinstance(result, dict) else None
    if not isinstance(listed, dict):
        return {}
    return {name: value["timestamp"] for name, value in listed.items()
            if isinstance(value, dict) and isinstance(value.get("timestamp"), int)
            and not isinstance(value.get("timestamp"), bool)}


def check_none_before(at: int, result: Any, *, exchange: Exchange) -> None:
    """RPC-EVM-037: no precompile listed at a timestamp activates after it."""
    early = {name: stamp for name, stamp in precompile_times(result).items() if stamp > at}
    check(not early, "RPC-EVM-037", f"eth_getActiveRulesAt at {at} lists precompiles that activate later",
          expected=f"only precompiles with timestamp at most {at}", received=early, exchange=exchange)


def check_active_at(name: str, stamp: int, result: Any, *, exchange: Exchange) -> None:
    """RPC-EVM-037: a precompile is listed, with its activation timestamp, at that very timestamp."""
    listed = precompile_times(result)
    check(listed.get(name) == stamp, "RPC-EVM-037", f"eth_getActiveRulesAt at {stamp} does not list {name}, "
          f"which the latest rules say activated at {stamp}", expected=f"{name}: {{timestamp: {stamp}}}",
          received=listed, exchange=exchange)
