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
