"""The validators API (/ext/bc/<blockchainID>/validators): the current validators of the EVM chain's L1."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.reference.calls import RpcCall
from conformance.reference.jsonrpc import invalid_params
from conformance.reference.node.params import named
from conformance.reference.node.world import cb58_decode

if TYPE_CHECKING:
    from conformance.reference.node import NodeService


class ValidatorsApi:
    def __init__(self, service: NodeService) -> None:
        self.world = service.world
        self.node = service.world.node

    def methods(self) -> dict[str, Any]:
        return {"validators.getCurrentValidators": self.get_current_validators}

    def get_current_validators(self, call: RpcCall) -> dict:
        node_ids = named(call).get("nodeIDs")
        if node_ids is not None and (not isinstance(node_ids, list) or
                                     not all(isinstance(n, str) and n.startswith("NodeID-")
                                             and cb58_decode(n[len("NodeID-"):]) is not None for n in node_ids)):
            raise invalid_params("nodeIDs must be an array of node IDs of the form NodeID-<cb58>")
        wanted = set(node_ids or ())
        with self.world.lock:
            now = int(self.world.clock.now)
        # not shown: a node ID that is not a current validator is left out, like a filter that matches nothing.
        return {"validators": [self._render(v, now) for v in self.node.validators
                               if not wanted or v["nodeID"] in wanted]}

    @staticmethod
    def _render(validator: dict[str, Any], now: int) -> dict[str, Any]:
        out = {k: v for k, v in validator.items() if k != "uptimeBasis"}
        basis = validator["uptimeBasis"]
        out["uptimeSeconds"] = (now - validator["startTimestamp"]) * basis // 10_000
        out["uptimePercentage"] = basis / 100
        return out
