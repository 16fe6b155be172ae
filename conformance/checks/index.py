"""Index API checks: the Container shape, and range reasoning that tolerates an index growing during the run."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance import specs
from conformance.checks import check, fail, held, independently
from conformance.checks.envelope import is_error, result_of
from conformance.checks.shapes import schema_errors
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

ENCODING = "hex"
#: Container member -> the rule deciding it (RPC-IDX-011, the 0x prefix, is only recorded).
CONTAINER_RULES = {"id": "RPC-IDX-009", "bytes": "RPC-IDX-010", "timestamp": "RPC-IDX-012",
                   "encoding": "RPC-IDX-013", "index": "RPC-IDX-014"}
_DECIMAL = re.compile(r"^(0|[1-9][0-9]*)$")
_TIME_FIELDS = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})")
#: The member nodes wrap a range's containers in, where the document shows the array itself (RPC-IDX-008).
WRAPPER = "containers"
#: How often a check re-reads a growing index before it decides.
REREADS = 3


def index_paths() -> list[str]:
    """The paths of the Index API under the node URL, from the servers of specs/openrpc/index.json."""
    return [urlsplit(server["url"].replace("{node_url}", "http://node")).path
            for server in specs.openrpc("index")["servers"]]


def legacy_paths() -> list[str]:
    return list(replacements())


def replacements() -> dict[str, str]:
    """Legacy (frozen) index path -> the path that replaces it, from specs/openrpc/index.json."""
    return {urlsplit(server["url"].replace("{node_url}", "http://node")).path: server["x-replaced-by"]
            for server in specs.openrpc("index")["servers"] if server.get("x-frozen")}


def max_fetch() -> int:
    """The documented maximum of numToFetch, read from the spec."""
    return int(param_schema("index.getContainerRange", "numToFetch")["maximum"])


def param_schema(method: str, name: str) -> dict[str, Any]:
    for param in specs.rpc_method("index", method)["params"]:
        if param["name"] == name:
            return param["schema"]
    raise KeyError(f"{method} has no param {name}")


def position(container: Any) -> int | None:
    """The index a container carries, when it is a decimal string (or, leniently, an integer)."""
    value = container.get("index") if isinstance(container, dict) else None
    if isinstance(value, str) and _DECIMAL.match(value):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def container_problems(container: Any) -> dict[str, str]:
    """Rule ID -> what is wrong, for every Container member that breaks its documented form."""
    if not isinstance(container, dict):
        return {rule: f"the container is not an object: {container!r}"[:200] for rule in CONTAINER_RULES.values()}
    schema = specs.openrpc("index")["components"]["schemas"]["Container"]
    problems: dict[str, str] = {}
    for member, rule in CONTAINER_RULES.items():
        if member not in container:
            problems[rule] = f"{member} is absent"
            continue
        errors = schema_errors(container[member], schema["properties"][member], api="index")
        if errors:
            problems[rule] = f"{member}={container[member]!r}: {errors[0]}"
    if "RPC-IDX-012" not in problems and not _plausible_time(container["timestamp"]):
        problems["RPC-IDX-012"] = f"timestamp={container['timestamp']!r} is not a valid date and time"
    if "RPC-IDX-010" not in problems and len(container["bytes"].removeprefix("0x")) % 2:
        problems["RPC-IDX-010"] = "bytes has an odd number of hex digits"
    return problems


def _plausible_time(text: str) -> bool:
    match = _TIME_FIELDS.match(text)
    if not match:
        return False
    _, month, day, hour, minute, second = map(int, match.groups())
    return 1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 60


def check_container(container: Any, *, exchange: Exchange, what: str, rules: tuple[str, ...] = ()) -> None:
    """Decides each Container rule (of `rules`, default all) on `container`, each member under its own rule."""
    problems = container_problems(container)
    for rule in rules or tuple(CONTAINER_RULES.values()):
        if rule not in problems:
            held(rule, exchange)
            continue
        with independently():
            fail(rule, f"{what} does not have the documented Container form", expected="the Container shape",
                 received=problems[rule], exchange=exchange)


def same_container(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two answers describe the same container: every documented member is equal."""
    return all(a.get(member) == b.get(member) for member in CONTAINER_RULES)


def differences(a: dict[str, Any], b: dict[str, Any]) -> str:
    return "; ".join(f"{m}: {a.get(m)!r} vs {b.get(m)!r}" for m in CONTAINER_RULES if a.get(m) != b.get(m))


@dataclass
class IndexAt:
    """One Index API path and the calls the checks make on it."""

    path: str
    client: JsonRpcClient

    @property
    def name(self) -> str:
        return self.path.removeprefix("/ext/")

    def last_accepted(self) -> Exchange:
        return self.client.call("index.getLastAccepted", {"encoding": ENCODING})

    def by_index(self, index: int) -> Exchange:
        return self.client.call("index.getContainerByIndex", {"index": index, "encoding": ENCODING})

    def by_id(self, container_id: str) -> Exchange:
        return self.client.call("index.getContainerByID", {"id": container_id, "encoding": ENCODING})

    def range(self, start: int, count: int) -> Exchange:
        return self.client.call("index.getContainerRange",
                                {"startIndex": start, "numToFetch": count, "encoding": ENCODING})

    def get_index(self, container_id: str) -> Exchange:
        return self.client.call("index.getIndex", {"id": container_id, "encoding": ENCODING})

    def is_accepted(self, container_id: str) -> Exchange:
        return self.client.call("index.isAccepted", {"id": container_id, "encoding": ENCODING})

    def last_position(self) -> int | None:
        """The index of the last accepted container now, or None when it cannot be read."""
        exchange = self.last_accepted()
        if is_error(exchange) or not exchange.is_json():
            return None
        return position(exchange.json().get("result")) if isinstance(exchange.json(), dict) else None


def first_id(index: IndexAt) -> str | None:
    """The ID of the first container of an index (index 0 never changes), or None when it gives none."""
    exchange = index.by_index(0)
    body = exchange.json() if exchange.is_json() and not is_error(exchange) else None
    found = body.get("result") if isinstance(body, dict) else None
    return found.get("id") if isinstance(found, dict) and isinstance(found.get("id"), str) else None


def holds(index: IndexAt, container_id: str) -> bool:
    """Whether the index shows it holds the container: index.getIndex names a position, and the container at that
    position is the one with that ID. What index.isAccepted says is not taken on trust: that is what it is
    checked against."""
    exchange = index.get_index(container_id)
    body = exchange.json() if exchange.is_json() and not is_error(exchange) else None
    where = position(body.get("result")) if isinstance(body, dict) else None
    if where is None:
        return False
    exchange = index.by_index(where)
    body = exchange.json() if exchange.is_json() and not is_error(exchange) else None
    found = body.get("result") if isinstance(body, dict) else None
    return isinstance(found, dict) and found.get("id") == container_id


def accepted(exchange: Exchange) -> Any:
    """What an index.isAccepted answer says (True, False, something else), or None for an error answer."""
    body = exchange.json() if exchange.is_json() and not is_error(exchange) else None
    result = body.get("result") if isinstance(body, dict) else None
    return result.get("isAccepted") if isinstance(result, dict) else None


def container_to_look_up(index: IndexAt, at: int, rule_id: str) -> dict[str, Any]:
    """The container at index `at`, which must carry a string ID for the lookup a test makes next.

    An error answer fails `rule_id` (the rule of index.getContainerByIndex); a container without a string ID is
    RPC-IDX-009's deviation, which leaves nothing to look up: the test skips rather than charge its own rule.
    """
    container = result_of(index.by_index(at), rule_id, f"index.getContainerByIndex {at}")
    if not (isinstance(container, dict) and isinstance(container.get("id"), str)):
        pytest.skip(f"index.getContainerByIndex {at} gives no string container ID to look up (RPC-IDX-009)")
    return container


def range_items(exchange: Exchange, rule_id: str, what: str) -> list[Any]:
    """The containers of a getContainerRange result (null counts as none); an error answer fails `rule_id`.

    The form of the result is RPC-IDX-008's alone, decided only where a test of that rule asks. A result that wraps
    the array in an object, {"containers": [...]} as nodes answer, is one deviation: the containers it holds are
    read all the same, so order, the end of the index and agreement with single reads are still decided. A result
    of any other form cannot be read, and a test of another rule skips rather than fail its own rule over it.
    """
    result = result_of(exchange, rule_id, what)
    if result is None:
        return []
    wrapped = isinstance(result, dict) and isinstance(result.get(WRAPPER), list)
    if rule_id == "RPC-IDX-008":
        with independently():
            check(isinstance(result, list), "RPC-IDX-008", f"{what} does not return an array",
                  expected="an array of Container", received=f"an object with members {sorted(result)}"
                  if wrapped else result, exchange=exchange)
    if isinstance(result, list):
        return result
    if wrapped:
        return result[WRAPPER]
    pytest.skip(f"{what}: the result is not an array of containers (RPC-IDX-008), so {rule_id} cannot be read")


def check_consecutive(items: list[Any], start: int, exchange: Exchange) -> None:
    """RPC-IDX-001: container i of a range carries index startIndex + i."""
    for offset, container in enumerate(items):
        check(position(container) == start + offset, "RPC-IDX-001",
              f"container {offset} of the range starting at {start} is out of order",
              expected=f'index "{start + offset}"', received=f"index {container.get('index')!r}"
              if isinstance(container, dict) else container, exchange=exchange)


def beyond_last_refused(index: IndexAt, known_last: int, offset: int) -> tuple[bool, Exchange]:
    """Whether a range starting `offset` past the last accepted index is refused, re-reading a growing index.

    A result is only held against the target when the last accepted index, read again afterwards, is still
    below the start: a container accepted meanwhile legitimately moves the boundary.
    """
    last = known_last
    exchange = index.range(last + offset, 1)
    for _ in range(REREADS):
        if is_error(exchange):
            return True, exchange
        # A container that carries the start index shows the index reaches it: the last accepted index is not
        # below it (if index.getLastAccepted said otherwise, that is RPC-IDX-027's to decide).
        body = exchange.json() if exchange.is_json() else None
        found = body.get("result") if isinstance(body, dict) else None
        found = found.get(WRAPPER) if isinstance(found, dict) else found
        reached = isinstance(found, list) and found and position(found[0]) == last + offset
        now = index.last_position()
        if not reached and (now is None or now < last + offset):
            return False, exchange
        last = max(now or 0, last + offset)
        exchange = index.range(last + offset, 1)
    return True, exchange  # the index outran every attempt: nothing can be held against it


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def cb58(data: bytes) -> str:
    """base58 with a 4-byte SHA-256 checksum: the form of container IDs."""
    import hashlib

    raw = data + hashlib.sha256(data).digest()[-4:]
    value, out = int.from_bytes(raw, "big"), ""
    while value:
        value, rem = divmod(value, 58)
        out = _B58[rem] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def unknown_id() -> str:
    """A well-formed container ID that no index holds (32 bytes no chain would produce by chance)."""
    import hashlib

    return cb58(hashlib.sha256(b"conformance suite: an ID that names no container").digest())
