"""Which read-only requests a comparison sends, read from the specs, with identifiers discovered as it goes.

A chain that advances between the two calls must not show as a difference, so answers about the latest
items ("heads") are compared by shape only, and each head's answers anchor the requests that follow it:
a container by an index below both heights, transfers below both head blocks, metrics in a window that
ended before either endpoint's latest point. Those anchored answers are compared value by value.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeGuard
from collections.abc import Callable, Mapping
from urllib.parse import urlencode

from conformance import specs
from conformance.checks import data as data_spec
from conformance.compare.normalize import Outcome

#: Admin methods that only read; every other method of specs/openrpc/admin.json changes node state
#: (aliases, logger levels, profiler files, loaded VMs) and is never sent.
READ_ONLY_ADMIN = ("admin.getChainAliases", "admin.getLoggerLevel")
STATE_CHANGING_ADMIN = ("admin.alias", "admin.aliasChain", "admin.setLoggerLevel", "admin.loadVMs",
                        "admin.lockProfile", "admin.memoryProfile", "admin.startCPUProfiler", "admin.stopCPUProfiler")

Then = Callable[[Outcome, Outcome], "list[Request]"]


@dataclass(frozen=True)
class Request:
    """One read-only request sent alike to both endpoints."""

    api: str
    operation: str                 # JSON-RPC method, or the OpenAPI operationId
    path: str                      # under the endpoint's base URL
    params: Any = None             # JSON-RPC params, or the query of a REST request
    body: Any = None               # JSON body of a REST POST
    method: str = "POST"
    head: bool = False             # about the latest items: compared by shape only
    page_tokens: tuple[str, str] | None = None  # the next page: each endpoint's own token
    open_end: str | None = None    # list member of a list read oldest first, whose end grows with the chain
    then: Then | None = field(default=None, compare=False, repr=False)

    @property
    def rpc(self) -> bool:
        return self.api in specs.RPC_APIS

    def describe(self) -> str:
        """The request as one line, e.g. `POST /ext/index/X/tx index.getIndex {"id":"…"}`."""
        if self.rpc:
            where = self.path or "<EVM RPC URL>"   # each endpoint's own --…-evm-rpc-url
            return f"POST {where} {self.operation} {json.dumps(self.params, separators=(',', ':'))}"
        query = urlencode({k: _wire(v) for k, v in (self.params or {}).items()})
        text = f"{self.method} {self.path}{'?' + query if query else ''}"
        if self.page_tokens:
            text += f"{'&' if query else '?'}pageToken=<each endpoint's own>"
        return text + (f" {json.dumps(self.body, separators=(',', ':'))}" if self.body is not None else "")

    def as_dict(self) -> dict[str, Any]:
        out = {"api": self.api, "operation": self.operation, "method": self.method, "path": self.path,
               "params": self.params, "head": self.head}
        if self.body is not None:
            out["body"] = self.body
        if self.page_tokens:
            out["next_page"] = True
        return out


def _wire(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value


@dataclass(frozen=True)
class PlanContext:
    """What the plan needs besides the specs: the EVM chain, the identifiers (given or discovered), the seed."""

    apis: tuple[str, ...]
    evm_chain: str | None = None
    samples: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0
    #: every endpoint has an EVM RPC URL of its own: the evm API is asked there, with or without a chain
    evm_rpc_urls: bool = False
    #: why an identifier is not known (what discovery searched), for the notes of what is not compared
    missing: Callable[[str], str] | None = field(default=None, compare=False, repr=False)

    def sample(self, name: str) -> str | None:
        return self.samples.get(name)

    def why(self, name: str, otherwise: str) -> str:
        """Why the plan has no `name`: what discovery searched when it ran, else `otherwise`."""
        return self.missing(name) if self.missing is not None else otherwise


@dataclass
class Plan:
    requests: list[Request]
    notes: list[str]               # what is not compared, and why


def rpc(api: str, path: str, method: str, params: Any, *, head: bool = False, then: Then | None = None) -> Request:
    """A JSON-RPC request; refuses, whatever the caller, a method that changes node state."""
    if api == "admin" and method not in READ_ONLY_ADMIN:
        raise ValueError(f"{method} changes node state; a comparison sends read-only requests only")
    return Request(api, method, path, params, head=head, then=then)


def next_page(request: Request, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """The following page of a list, each endpoint with the token it issued; none when either list ended."""
    first, second = [o.value.get("nextPageToken") if o.ok and isinstance(o.value, dict) else None
                     for o in (baseline, candidate)]
    if not (isinstance(first, str) and first and isinstance(second, str) and second):
        return []
    return [replace(request, page_tokens=(first, second), then=None)]


def paged(request: Request) -> Request:
    """`request`, followed by one more page."""
    return replace(request, then=partial(next_page, request))


def oldest_first(request: Request) -> Request:
    """`request` for a list read oldest first (stable except at its end), followed by one more page."""
    return paged(replace(request, open_end=data_spec.operation(request.operation).list_member))


def uint(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
