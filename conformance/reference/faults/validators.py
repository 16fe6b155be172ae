"""Faults that break the validators API rules of the node catalogue (RPC-VAL-*, specs/rules/rpc.yaml)."""
from __future__ import annotations

from typing import Any

from conformance.reference import ids
from conformance.reference.calls import RpcCall, RpcHttp
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RpcProceed
from conformance.reference.faults.rpc_shared import _Result, _Unserved, _Validators, _all_but, _ids, _params


@register
class ValidatorsApiNotServed(_Unserved):
    """/ext/bc/<blockchainID>/validators answers 404, as a chain whose VM does not register it."""

    breaks = ("RPC-VAL-001",)
    also = _all_but("RPC-VAL-001")

    def unserved(self, request: RpcHttp) -> bool:
        return request.api == "validators"


@register
class ValidatorsAsMap(_Result):
    """validators.getCurrentValidators returns validators as an object keyed by node ID."""

    breaks = ("RPC-VAL-002",)
    also = _ids("VAL", 16, first=3)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        result["validators"] = {v["nodeID"]: v for v in result["validators"]}
        return result


@register
class SubnetValidationIdNull(_Validators):
    """Subnet validators carry validationID null (only L1 validators get one)."""

    breaks = ("RPC-VAL-003",)

    def validator(self, validator: dict) -> dict:
        if not validator["isL1Validator"]:
            validator["validationID"] = None
        return validator


@register
class NodeIdWithoutPrefix(_Validators):
    """validators.getCurrentValidators writes node IDs without the NodeID- prefix."""

    breaks = ("RPC-VAL-004",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        node_ids = _params(call).get("nodeIDs")
        if call.method in self.methods and isinstance(node_ids, list):
            # the filter keeps working with the IDs the fault hands out
            fixed = [n if not isinstance(n, str) or n.startswith("NodeID-") else "NodeID-" + n for n in node_ids]
            call = call.with_(params={**_params(call), "nodeIDs": fixed})
        return super().rpc(call, proceed)

    def validator(self, validator: dict) -> dict:
        validator["nodeID"] = validator["nodeID"].removeprefix("NodeID-")
        return validator


@register
class WeightAsString(_Validators):
    """Validators carry weight as a decimal string."""

    breaks = ("RPC-VAL-005",)

    def validator(self, validator: dict) -> dict:
        validator["weight"] = str(validator["weight"])
        return validator


@register
class StartTimestampAsRfc3339(_Validators):
    """Validators carry startTimestamp as an RFC 3339 string instead of UNIX seconds."""

    breaks = ("RPC-VAL-006",)

    def validator(self, validator: dict) -> dict:
        validator["startTimestamp"] = ids.rfc3339(validator["startTimestamp"])
        return validator


@register
class L1IsActiveAsNumber(_Validators):
    """L1 validators carry isActive as 0 or 1."""

    breaks = ("RPC-VAL-007",)

    def validator(self, validator: dict) -> dict:
        if validator["isL1Validator"]:
            validator["isActive"] = int(validator["isActive"])
        return validator


@register
class IsL1ValidatorAsString(_Validators):
    """Validators carry isL1Validator as a string."""

    breaks = ("RPC-VAL-008",)
    also = ("RPC-VAL-007", "RPC-VAL-012")

    def validator(self, validator: dict) -> dict:
        validator["isL1Validator"] = str(validator["isL1Validator"]).lower()
        return validator


@register
class IsConnectedAsString(_Validators):
    """Validators carry isConnected as a string."""

    breaks = ("RPC-VAL-009",)

    def validator(self, validator: dict) -> dict:
        validator["isConnected"] = str(validator["isConnected"]).lower()
        return validator


@register
class UptimeSecondsFractional(_Validators):
    """Validators carry uptimeSeconds as a fractional number."""

    breaks = ("RPC-VAL-010",)

    def validator(self, validator: dict) -> dict:
        validator["uptimeSeconds"] = validator["uptimeSeconds"] + 0.5
        return validator


@register
class UptimePercentageAsString(_Validators):
    """Validators carry uptimePercentage as a decimal string."""

    breaks = ("RPC-VAL-011",)

    def validator(self, validator: dict) -> dict:
        validator["uptimePercentage"] = f"{validator['uptimePercentage']:.2f}"
        return validator


@register
class SubnetValidatorsInactive(_Validators):
    """Subnet validators report isActive false, as if judged by an L1 fee balance they do not have."""

    breaks = ("RPC-VAL-012",)

    def validator(self, validator: dict) -> dict:
        if not validator["isL1Validator"]:
            validator["isActive"] = False
        return validator


@register
class NodeIdsFilterIgnored(Fault):
    """validators.getCurrentValidators ignores nodeIDs and returns every validator."""

    breaks = ("RPC-VAL-013",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method == "validators.getCurrentValidators" and _params(call).get("nodeIDs"):
            call = call.with_(params={k: v for k, v in _params(call).items() if k != "nodeIDs"})
        return proceed(call)


@register
class NodeIdsFilterDropsLast(_Result):
    """validators.getCurrentValidators leaves out the validator of the last node ID requested."""

    breaks = ("RPC-VAL-014",)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        node_ids = _params(call).get("nodeIDs")
        if isinstance(node_ids, list) and node_ids:
            result["validators"] = [v for v in result["validators"] if v["nodeID"] != node_ids[-1]]
        return result


@register
class EmptyNodeIdsReturnsNone(_Result):
    """validators.getCurrentValidators with an empty nodeIDs array returns no validators."""

    breaks = ("RPC-VAL-015",)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if _params(call).get("nodeIDs") == []:
            result["validators"] = []
        return result


@register
class OmittedNodeIdsReturnsNone(_Result):
    """validators.getCurrentValidators without nodeIDs returns no validators (a nil filter matches nothing)."""

    breaks = ("RPC-VAL-016",)
    also = _ids("VAL", 15, first=2)
    methods = ("validators.getCurrentValidators",)

    def patch(self, result: Any, call: RpcCall) -> Any:
        if _params(call).get("nodeIDs") is None:
            result["validators"] = []
        return result


# --- Relations: each answer well-formed, what they mean together wrong ---

@register
class NodeIdsFilterMismatchesEntries(Fault):
    """validators.getCurrentValidators with nodeIDs takes the members of each validator from the validator at the
    same position of the full list: the node IDs are those asked for, the rest is another validator's."""

    breaks = ("RPC-VAL-019",)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        if call.method != "validators.getCurrentValidators" or not _params(call).get("nodeIDs") \
                or reply is None or not isinstance(reply.get("result"), dict):
            return reply
        everyone = (proceed(call.with_(params={})) or {}).get("result", {}).get("validators", [])
        found = reply["result"].get("validators", [])
        mixed = [{**everyone[position], "nodeID": validator["nodeID"]} if position < len(everyone) else validator
                 for position, validator in enumerate(found)]
        return {**reply, "result": {**reply["result"], "validators": mixed}}
