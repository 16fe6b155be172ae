"""What the reference's handlers and faults see of a request, and what they answer."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class RpcHttp:
    """A POST to a JSON-RPC endpoint, before the body is parsed."""

    endpoint: str          # canonical endpoint after alias resolution, e.g. "index/X/tx", "bc/<id>/rpc"
    api: str               # admin | index | evm | validators
    body: bytes

    def with_(self, **changes: Any) -> RpcHttp:
        return replace(self, **changes)


@dataclass(frozen=True)
class RpcCall:
    """One JSON-RPC call of a request (a batch holds several)."""

    endpoint: str
    api: str
    method: str
    params: Any            # dict, list, or None when the member is absent
    id: Any
    has_params: bool = True

    def with_(self, **changes: Any) -> RpcCall:
        return replace(self, **changes)


@dataclass
class HttpReply:
    """An HTTP answer; `body` is JSON-serialisable unless `raw` is set."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None


@dataclass(frozen=True)
class RestCall:
    """A request to a REST route, matched against its path template."""

    api: str                       # data | metrics
    method: str                    # GET | POST
    route: str                     # the documented path template, e.g. "/v1/networks/{network}/blockchains"
    path: str
    path_params: dict[str, str]
    query: dict[str, list[str]]    # every value given for each name, in order
    headers: dict[str, str]        # lower-case names
    body: Any = None               # parsed JSON body, or None

    def first(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def with_query(self, **changes: str | None) -> RestCall:
        query = dict(self.query)
        for name, value in changes.items():
            if value is None:
                query.pop(name, None)
            else:
                query[name] = [value]
        return replace(self, query=query)

    def with_(self, **changes: Any) -> RestCall:
        return replace(self, **changes)
