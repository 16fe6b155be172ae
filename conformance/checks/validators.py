"""Validators API checks: each member of a current validator decided by its own rule."""
from __future__ import annotations

from typing import Any

from conformance.checks import check, independently
from conformance.checks.envelope import result_of
from conformance.checks.members import check_member, properties
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

#: Member of a current validator -> the rule deciding its form.
VALIDATOR_RULES = {"validationID": "RPC-VAL-003", "nodeID": "RPC-VAL-004", "weight": "RPC-VAL-005",
                   "startTimestamp": "RPC-VAL-006", "isActive": "RPC-VAL-007", "isL1Validator": "RPC-VAL-008",
                   "isConnected": "RPC-VAL-009", "uptimeSeconds": "RPC-VAL-010", "uptimePercentage": "RPC-VAL-011"}
METHOD = "validators.getCurrentValidators"


def current_validators(client: JsonRpcClient, params: Any, rule_id: str) -> tuple[list[Any], Exchange]:
    """The validators array of validators.getCurrentValidators with `params`; fails `rule_id` without one."""
    return validators_in(client.call(METHOD, params), rule_id, f"{METHOD} {params}")


def validators_in(exchange: Exchange, rule_id: str, what: str) -> tuple[list[Any], Exchange]:
    """The validators array of a validators.getCurrentValidators answer; fails `rule_id` on an error answer."""
    result = result_of(exchange, rule_id, what)
    check(isinstance(result, dict) and isinstance(result.get("validators"), list), "RPC-VAL-002",
          f"{METHOD} does not return validators as an array", expected="{validators: array}", received=result,
          exchange=exchange)
    return result["validators"], exchange


def check_validator(validator: Any, *, exchange: Exchange, what: str) -> None:
    """Each documented member of a current validator has its documented form, each decided whatever the others."""
    schemas = properties("validators", "CurrentValidator")
    for member, rule in VALIDATOR_RULES.items():
        with independently():
            check_member(rule, validator, member, schemas[member], api="validators", what=what, exchange=exchange)
    if isinstance(validator, dict) and validator.get("isL1Validator") is False:
        check(validator.get("isActive") is True, "RPC-VAL-012", f"{what} is a subnet validator that is not active",
              expected="isActive true for isL1Validator false", received=validator, exchange=exchange)


def node_ids(validators: list[Any]) -> list[str]:
    return [v["nodeID"] for v in validators if isinstance(v, dict) and isinstance(v.get("nodeID"), str)]


def by_node_id(validators: list[Any]) -> dict[str, dict[str, Any]]:
    return {v["nodeID"]: v for v in validators if isinstance(v, dict) and isinstance(v.get("nodeID"), str)}


def _held_between(value: Any, before: Any, after: Any) -> bool:
    """Whether a member read between two reads of the full list is what it was at some moment between them: equal
    to one of them, or a number between them (uptimes move while the lists are read)."""
    if value in (before, after):
        return True
    numbers = [x for x in (value, before, after) if isinstance(x, (int, float)) and not isinstance(x, bool)]
    return len(numbers) == 3 and min(before, after) <= value <= max(before, after)


def entry_differences(found: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Member -> [filtered, listed before, listed after], for the documented members a filtered entry does not share
    with the validator's entry in the full list read around it."""
    return {member: [found.get(member), before.get(member), after.get(member)] for member in VALIDATOR_RULES
            if not _held_between(found.get(member), before.get(member), after.get(member))}



def differing_entries(found: list[Any], before: list[Any], after: list[Any]) -> dict[str, dict[str, Any]]:
    """Node ID -> its differing members, for each validator a nodeIDs filter returned whose entry is not the one
    the full list, read before and after, gives it (validators in only one of the lists are left aside)."""
    listed_before, listed_after = by_node_id(before), by_node_id(after)
    differing = {node: entry_differences(entry, listed_before[node], listed_after[node])
                 for node, entry in by_node_id(found).items() if node in listed_before and node in listed_after}
    return {node: members for node, members in differing.items() if members}


def check_same_entries(differing: dict[str, dict[str, Any]], *, exchange: Exchange) -> None:
    """RPC-VAL-019: each validator a nodeIDs filter returned equals its entry in the full list."""
    check(not differing, "RPC-VAL-019", "a validator returned for its node ID differs from its entry in the full list",
          expected="the members the answer without nodeIDs gives the same validator (read before and after)",
          received={node: {m: f"{v[0]!r} (listed {v[1]!r}, then {v[2]!r})" for m, v in members.items()}
                    for node, members in differing.items()}, exchange=exchange)
