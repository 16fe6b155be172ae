"""The node's JSON-RPC APIs: admin, index, EVM chain and validators."""
from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from conformance.reference.jsonrpc import JsonRpcDispatcher

if TYPE_CHECKING:
    from conformance.reference.world import World

INDEX_ENDPOINTS = ("index/C/block", "index/P/block", "index/X/tx", "index/X/block", "index/X/vtx")
#: How many endpoint aliases may be followed in a row (an alias may name another alias).
MAX_ALIAS_HOPS = 8

_request = threading.local()


def requested_path() -> str:
    """The path after /ext/ that the request being served on this thread named, before aliases were resolved.

    Faults that misroute aliases need it: the canonical endpoint a call carries no longer tells it.
    """
    return getattr(_request, "path", "")


def sibling_endpoint(endpoint: str) -> str | None:
    """The same API of the node's other EVM chain, for the request being served on this thread (None elsewhere):
    where faults that mix chains up send a call."""
    service = getattr(_request, "service", None)
    return service.sibling_endpoint(endpoint) if service is not None else None


class NodeService:
    def __init__(self, world: World) -> None:
        from conformance.reference.node.admin import AdminApi
        from conformance.reference.node.evm import EvmApi
        from conformance.reference.node.index import IndexApi
        from conformance.reference.node.validators import ValidatorsApi

        self.world = world
        node = world.node
        # One EVM chain RPC per EVM chain the node runs, told apart by the endpoint a call reached.
        self.evm_apis = {f"bc/{world.evm_blockchain_id}/rpc": EvmApi(self),
                         f"bc/{node.other_evm_blockchain_id}/rpc": EvmApi(self, node.other_evm)}
        self.dispatcher = JsonRpcDispatcher({
            "admin": AdminApi(self).methods(), "index": IndexApi(self).methods(),
            "evm": self._evm_methods(), "validators": ValidatorsApi(self).methods(),
        })

    def _evm_methods(self) -> dict[str, Any]:
        tables = {endpoint: api.methods() for endpoint, api in self.evm_apis.items()}
        default = tables[f"bc/{self.world.evm_blockchain_id}/rpc"]

        def routed(name: str) -> Any:
            return lambda call: tables.get(call.endpoint, default)[name](call)
        return {name: routed(name) for name in default}

    def sibling_endpoint(self, endpoint: str) -> str | None:
        """The same API of the node's other EVM chain: where a route that mixes chains up sends a call."""
        chains = [self.world.evm_blockchain_id, self.world.node.other_evm_blockchain_id]
        parts = endpoint.split("/")
        if len(parts) != 3 or parts[0] != "bc" or parts[1] not in chains:
            return None
        return f"bc/{chains[1 - chains.index(parts[1])]}/{parts[2]}"

    def chain_id(self, name: str) -> str | None:
        """The blockchain ID a blockchain ID or chain alias names, or None."""
        aliases = self.world.node.admin.chain_aliases
        if name in aliases:
            return name
        for chain, names in aliases.items():
            if name in names:
                return chain
        return None

    def resolve(self, path: str) -> tuple[str, str] | None:
        """The canonical endpoint and API of a path after /ext/, aliases resolved; None when not served."""
        _request.path = path
        _request.service = self
        return self.lookup(path)

    def lookup(self, path: str) -> tuple[str, str] | None:
        """`resolve` without recording the path as the one requested."""
        path = path.strip("/")
        with self.world.lock:
            for _ in range(MAX_ALIAS_HOPS):
                found = self._builtin(path)
                if found is not None:
                    return found
                target = self.world.node.admin.endpoint_aliases.get(path)
                if target is None:
                    return None
                path = target
        return None

    def _builtin(self, path: str) -> tuple[str, str] | None:
        if path == "admin":
            return "admin", "admin"
        if path in INDEX_ENDPOINTS:
            return path, "index"
        parts = path.split("/")
        if len(parts) == 3 and parts[0] == "bc" and parts[2] in ("rpc", "validators"):
            # Only the world's EVM chain serves these (and the other EVM chain its RPC); the primary chains' APIs are
            # outside the documents.
            chain = self.chain_id(parts[1])
            if chain == self.world.evm_blockchain_id:
                endpoint = f"bc/{self.world.evm_blockchain_id}/{parts[2]}"
                return endpoint, "evm" if parts[2] == "rpc" else "validators"
            if chain == self.world.node.other_evm_blockchain_id and parts[2] == "rpc":
                return f"bc/{chain}/rpc", "evm"
        return None

    @staticmethod
    def method_names(body: bytes) -> list[str]:
        """The methods a request body calls, for the reference's own accounting."""
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return []
        items = payload if isinstance(payload, list) else [payload]
        return [item["method"] for item in items if isinstance(item, dict) and isinstance(item.get("method"), str)]
