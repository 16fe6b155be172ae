"""What a comparison ignores: answers reduced to their outcome, and the volatile members of volatile.yaml."""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from conformance.clients.http import Exchange

DATA_FILE = Path(__file__).with_name("volatile.yaml")
#: Statuses that say "cannot answer now" (rate limit, gateway, overload): such a request is not compared.
UNAVAILABLE = (429, 502, 503, 504)

Pointer = tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """An answer reduced to what two live endpoints should share: a value, or an error code without its message."""

    code: str                   # "result" or "HTTP 200" for a value; "JSON-RPC error -32602", "HTTP 404", ... else
    value: Any = None
    ok: bool = False            # a value to compare
    unavailable: bool = False   # the endpoint could not answer now: nothing to compare


def rpc_outcome(exchange: Exchange) -> Outcome:
    """A JSON-RPC answer: its result, or its error code (messages differ between implementations)."""
    if exchange.status in UNAVAILABLE:
        return Outcome(f"HTTP {exchange.status}", unavailable=True)
    if not exchange.is_json():
        return Outcome(f"HTTP {exchange.status}, not JSON")
    body = exchange.json()
    if not isinstance(body, dict) or not ({"result", "error"} & set(body)):
        return Outcome(f"HTTP {exchange.status}, not a JSON-RPC response object")
    if body.get("error") is not None:
        error = body["error"]
        code = error.get("code") if isinstance(error, dict) else None
        return Outcome(f"JSON-RPC error {code}" if code is not None else "JSON-RPC error without a code")
    return Outcome("result", body.get("result"), ok=True)


def rest_outcome(exchange: Exchange) -> Outcome:
    """A REST answer: its JSON body on success, else its status (error bodies carry free-text messages)."""
    status = exchange.status or 0
    if status in UNAVAILABLE:
        return Outcome(f"HTTP {status}", unavailable=True)
    if 200 <= status < 300:
        if not exchange.is_json():
            return Outcome(f"HTTP {status}, not JSON")
        return Outcome(f"HTTP {status}", exchange.json(), ok=True)
    return Outcome(f"HTTP {status}")


def latest_pages(baseline: Any, candidate: Any) -> tuple[Any, Any]:
    """Two first pages of a list that grows at its head: whether a next page exists may differ by an item."""
    pages = (baseline, candidate)
    if not all(isinstance(page, dict) for page in pages) or \
            len({page.get("nextPageToken") is None for page in pages}) == 1:
        return baseline, candidate  # both carry a token (its type is still compared), or neither does
    cut = [{k: v for k, v in page.items() if k != "nextPageToken"} for page in pages]
    return cut[0], cut[1]


def open_ended(baseline: Any, candidate: Any, member: str) -> tuple[Any, Any]:
    """Two pages of a list read oldest first, cut to what both must hold.

    Items the chain adds while the comparison runs join the end of such a list, so once either side reaches
    its last page (no nextPageToken), only the items both pages hold can be compared, and whether a next
    page exists is not a difference.
    """
    if not (isinstance(baseline, dict) and isinstance(candidate, dict)):
        return baseline, candidate
    first, second = baseline.get(member), candidate.get(member)
    ended = any(not isinstance(page.get("nextPageToken"), str) for page in (baseline, candidate))
    if not ended or not (isinstance(first, list) and isinstance(second, list)):
        return baseline, candidate
    common = min(len(first), len(second))
    cut = [{k: v for k, v in page.items() if k != "nextPageToken"} | {member: page[member][:common]}
           for page in (baseline, candidate)]
    return cut[0], cut[1]


# Volatile members, keyed lists and maps, read from volatile.yaml ----------------------------------------------

def split(pointer: str) -> Pointer:
    """The steps of a JSON pointer ("" is the whole value)."""
    if pointer in ("", "/"):
        return ()
    return tuple(step.replace("~1", "/").replace("~0", "~") for step in pointer.lstrip("/").split("/"))


def join(steps: Pointer) -> str:
    return "".join("/" + step.replace("~", "~0").replace("/", "~1") for step in steps)


def matches(pattern: Pointer, steps: Pointer) -> bool:
    """Whether a pointer matches a pattern whose `*` is one step and `**` any number of steps."""
    if not pattern:
        return not steps
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(matches(rest, steps[i:]) for i in range(len(steps) + 1))
    return bool(steps) and (head == "*" or head == steps[0]) and matches(rest, steps[1:])


@dataclass(frozen=True)
class Entry:
    """One entry of volatile.yaml."""

    kind: str                       # volatile | keys | maps
    operations: tuple[str, ...]
    members: tuple[Pointer, ...]
    key: tuple[str, ...] = ()       # keys: the members naming an item
    ordered: bool = False           # keys: the documents give the list an order

    def applies_to(self, operation: str) -> bool:
        return any(fnmatch.fnmatchcase(operation, pattern) for pattern in self.operations)


@cache
def entries() -> tuple[Entry, ...]:
    """Every entry of volatile.yaml; each must cite its document and say why."""
    data = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
    out = []
    for kind in ("volatile", "keys", "maps"):
        for item in data.get(kind, []):
            members = item.get("members") or [item["member"]]
            key = item.get("key") or ()
            out.append(Entry(kind, tuple(item["operations"]), tuple(split(m) for m in members),
                             (key,) if isinstance(key, str) else tuple(key), bool(item.get("ordered"))))
    return tuple(out)


class PathRules:
    """The entries of volatile.yaml that apply to one operation, asked by pointer."""

    def __init__(self, operation: str, *, everything_volatile: bool = False) -> None:
        self.entries = [entry for entry in entries() if entry.applies_to(operation)]
        self.everything_volatile = everything_volatile

    def _find(self, kind: str, steps: Pointer) -> Entry | None:
        for entry in self.entries:
            if entry.kind == kind and any(matches(pattern, steps) for pattern in entry.members):
                return entry
        return None

    def volatile(self, steps: Pointer) -> bool:
        return self.everything_volatile or self._find("volatile", steps) is not None

    def key(self, steps: Pointer) -> Entry | None:
        """The keys entry of a list whose items are matched by identity rather than by position."""
        return self._find("keys", steps)

    def is_map(self, steps: Pointer) -> bool:
        return self._find("maps", steps) is not None
