"""The EVM chain's extra methods (document 1): results read member by member, each member under its own rule."""
from __future__ import annotations

from typing import Any

from conformance import specs
from conformance.checks import independently
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
