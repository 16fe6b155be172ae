"""The Index API (/ext/index/{C/block, P/block, X/tx, X/block, X/vtx}): accepted containers by index and ID."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.reference.calls import RpcCall
from conformance.reference.jsonrpc import SERVER_ERROR, RpcError, invalid_params
from conformance.reference.node.params import named, required_string, string, uint64
from conformance.reference.node.world import Index

if TYPE_CHECKING:
    from conformance.reference.node import NodeService

MAX_FETCH = 1024


class IndexApi:
    def __init__(self, service: NodeService) -> None:
        self.world = service.world
        self.indexes = service.world.node.indexes

    def methods(self) -> dict[str, Any]:
        return {
            "index.getContainerByID": self.get_container_by_id,
            "index.getContainerByIndex": self.get_container_by_index,
            "index.getContainerRange": self.get_container_range,
            "index.getIndex": self.get_index,
            "index.getLastAccepted": self.get_last_accepted,
            "index.isAccepted": self.is_accepted,
        }

    def _open(self, call: RpcCall, *, required: tuple[str, ...] = ()) -> tuple[Index, dict[str, Any], int]:
        """The call's index, params and the number of containers accepted so far."""
        params = named(call, required=required)
        # not shown what an omitted encoding means: the only documented encoding is assumed.
        encoding = string(params, "encoding", default="hex")
        if encoding != "hex":
            raise invalid_params(f"unsupported encoding {encoding!r}: the only encoding is \"hex\"")
        with self.world.lock:
            now = self.world.clock.now
        index = self.indexes[call.endpoint]
        return index, params, index.count(now)

    def _position(self, index: Index, params: dict[str, Any], count: int) -> int:
        container_id = required_string(params, "id")
        i = index.position(container_id, self.world.clock.now)
        # not shown: an ID this index does not hold is an error, as a lookup of a missing key is.
        if i is None or i >= count:
            raise RpcError(SERVER_ERROR, f"container {container_id} not found in this index")
        return i

    def get_container_by_id(self, call: RpcCall) -> dict:
        index, params, count = self._open(call, required=("id",))
        return index.container(self._position(index, params, count))

    def get_container_by_index(self, call: RpcCall) -> dict:
        index, params, count = self._open(call, required=("index",))
        i = uint64(params, "index")
        if i >= count:
            raise RpcError(SERVER_ERROR, f"no container at index {i}: the last accepted index is {count - 1}")
        return index.container(i)

    def get_container_range(self, call: RpcCall) -> list[dict] | None:
        index, params, count = self._open(call, required=("startIndex", "numToFetch"))
        start, wanted = uint64(params, "startIndex"), uint64(params, "numToFetch")
        if wanted > MAX_FETCH:
            raise invalid_params(f"numToFetch {wanted} exceeds the maximum of {MAX_FETCH}")
        if wanted == 0:
            return None  # the document's example of an empty response; [] would do as well
        if start >= count:
            raise RpcError(SERVER_ERROR, f"startIndex {start} is beyond the last accepted index {count - 1}")
        return [index.container(i) for i in range(start, min(start + wanted, count))]

    def get_index(self, call: RpcCall) -> dict:
        index, params, count = self._open(call, required=("id",))
        return {"index": str(self._position(index, params, count))}

    def get_last_accepted(self, call: RpcCall) -> dict:
        index, _, count = self._open(call)
        if count == 0:
            raise RpcError(SERVER_ERROR, "no container has been accepted yet")
        return index.container(count - 1)

    def is_accepted(self, call: RpcCall) -> dict:
        index, params, count = self._open(call, required=("id",))
        container_id = required_string(params, "id")
        i = index.position(container_id, self.world.clock.now)
        return {"isAccepted": i is not None and i < count}
