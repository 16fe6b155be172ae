"""The node's JSON-RPC APIs: admin, index, EVM chain and validators."""
from __future__ import annotations

import json
import threading

from conformance.reference.jsonrpc import JsonRpcDispatcher
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


class NodeService:
    def __init__(self, world: World) -> None:
        from conformance.reference.node.admin import AdminApi
        from conformance.reference.node.evm import EvmApi
        from conformance.reference.node.index import IndexApi
        from conformance.reference.node.validators import ValidatorsApi

        self.world = world
        self.dispatcher = JsonRpcDispatcher({
            "admin": AdminApi(self).methods(), "index": IndexApi(self).methods(),
            "evm": EvmApi(self).methods(), "validators": ValidatorsApi(self).methods(),
        })

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
            # Only the world's EVM chain serves these; the primary chains' APIs are outside the documents.
            if self.chain_id(parts[1]) == self.world.evm_blockchain_id:
                endpoint = f"bc/{self.world.evm_blockchain_id}/{parts[2]}"
                return endpoint, "evm" if parts[2] == "rpc" else "validators"
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
