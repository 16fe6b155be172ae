"""Generated requests: schemathesis builds cases from our OpenAPI documents, we send and judge them.

- `operation(api, "GET /path")` loads the API's document with schemathesis (cached) and returns one operation.
- `explicit_cases(...)` gives the cases of the examples and coverage phases (bounded by `limit`);
  `fuzzed_cases(...)` is a hypothesis strategy for the fuzzing phase (use with `@given`).
- `send(client, wire_case(api, case))` sends a case through OUR RestClient/HttpSession, so the run's rate limit,
  request budget, API key and recorded exchanges apply, and the reproducer is our curl line with the real pageToken.
- `rest_check(api)` registers a check `fn(request, exchange)` for one API, both in our registry (used by
  `judge`) and with schemathesis (`schemathesis.check`), so one rule has one implementation.
- `judge` sends one case and applies every registered check of the API to its answer, each deciding its own
  rules.

Only documented schemathesis API is relied on where it exists (`openapi.from_path`, `APIOperation.as_strategy`,
`Case`, `schemathesis.check`); the coverage phase is reached through `schema.iter_coverage_cases`, which
tests/test_rest_support.py pins so that an upgrade that moves it fails loudly.

A case is sent as a `WireCase`: the request as schemathesis would send it, relative to the API's base URL, with
what the checks know of it (`GeneratedRequest`). It is made where the case is drawn (while the test is set up), so
sending and judging it needs none of schemathesis' document machinery; tests/test_rest_support.py compares its
URLs with schemathesis' own.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qs, parse_qsl, quote, unquote, urljoin, urlsplit

import schemathesis
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.transport.prepare import prepare_path
from schemathesis.transport.serialization import quote_all

from conformance import specs
from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient
from conformance.errors import SuiteError

PHASES = ("examples", "coverage", "fuzzing")
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
#: Headers schemathesis adds for its own transport; ours sets its own User-Agent and connection handling.
_TRANSPORT_HEADERS = {"user-agent", "accept-encoding", "connection", "x-schemathesis-testcaseid", "content-length"}


# Loading ----------------------------------------------------------------------------------------------------

@cache
def schema(api: str) -> Any:
    """The API's OpenAPI document loaded by schemathesis (a `schemathesis.BaseSchema`)."""
    return schemathesis.openapi.from_path(specs.openapi_path(api))


def operation(api: str, label: str) -> Any:
    """One operation of `api`'s document, by label "METHOD /path/{template}" (a `schemathesis.APIOperation`)."""
    method, path = label.split(" ", 1)
    return schema(api)[path][method]


# Cases ------------------------------------------------------------------------------------------------------

def explicit_cases(op: Any, *, phases: Iterable[str] = ("examples", "coverage"), limit: int | None = None,
                   modes: Iterable[GenerationMode] = MODES) -> list[Any]:
    """The cases of the examples and coverage phases, in a stable order; with `limit`, an even spread of them
    (always the first and last), so small profiles still see positive and negative cases."""
    from schemathesis.generation.hypothesis.examples import generate_one

    cases: list[Any] = []
    phases = tuple(phases)
    if "examples" in phases:
        cases += [generate_one(strategy) for strategy in op.get_strategies_from_examples()]
    if "coverage" in phases:
        config = op.schema.config.generation_for(operation=op, phase="coverage")
        cases += list(op.schema.iter_coverage_cases(op, generation_modes=list(modes), generation_config=config))
    if limit is not None and len(cases) > limit:
        if limit <= 1:
            return cases[:limit]
        step = (len(cases) - 1) / (limit - 1)
        cases = [cases[round(i * step)] for i in range(limit)]
    return cases


def fuzzed_cases(op: Any, *, modes: Iterable[GenerationMode] = MODES,
                 path_parameters: Iterable[Mapping[str, Any]] = ({},)) -> st.SearchStrategy[Any]:
    """The fuzzing phase as a hypothesis strategy of cases, in every mode; each of `path_parameters` fixes
    some path parameters (e.g. a chain the target serves), the others are generated."""
    return st.one_of([op.as_strategy(generation_mode=mode, path_parameters=dict(fixed) or None)
                      for mode in modes for fixed in path_parameters])


def path_segment(value: Any) -> str:
    """A fixed path value as it stands in a `WireCase`'s path: encoded as schemathesis encodes the fixed path
    values a strategy is given, then quoted with the rest of the path."""
    return quote(str(quote_all({"value": value})["value"]))


def mode_of(case: Any) -> str:
    """"positive" or "negative": what schemathesis meant the case to be (the checks decide for themselves)."""
    meta = getattr(case, "meta", None)
    return str(meta.generation.mode.value) if meta is not None else "positive"


@dataclass(frozen=True)
class GeneratedRequest:
    """What a check needs to know about a generated request: its API, operation and decoded parameters."""

    api: str
    label: str                       # "GET /v2/chains/{chainId}/metrics/{metric}"
    path_parameters: dict[str, str]  # values decoded from their percent-encoding
    query: dict[str, Any]
    mode: str

    @classmethod
    def of(cls, api: str, case: Any) -> GeneratedRequest:
        path = {name: unquote(str(value)) for name, value in (case.path_parameters or {}).items()}
        # A value schemathesis pre-encodes (a delimited array) is a str subclass of its own; a plain copy travels
        # to another process with the case.
        query = {name: _plain(value) for name, value in (case.query or {}).items()}
        return cls(api, f"{case.method.upper()} {case.path}", path, query, mode_of(case))


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class WireCase:
    """A generated case as it goes on the wire, and what the checks know of it (`request`)."""

    method: str
    path: str                      # the operation's path with its values, percent-encoded, relative to the base URL
    params: dict[str, Any]         # query parameters as our client takes them
    headers: dict[str, str]
    body: bytes | None
    request: GeneratedRequest

    def url(self, base_url: str) -> str:
        """The URL the case goes to under `base_url`: schemathesis' `build_request_url` in two halves, the
        path quoted where the case is drawn (`wire_case`), joined here."""
        base = base_url.replace("%", "%25")
        return unquote(urljoin(base if base.endswith("/") else base + "/", self.path))


def wire_case(api: str, case: Any) -> WireCase:
    """The request schemathesis would send for `case`, as our client sends it."""
    kwargs = case.as_transport_kwargs(base_url="http://conformance.invalid")
    headers = {name: str(value) for name, value in (kwargs.get("headers") or {}).items()
               if name.lower() not in _TRANSPORT_HEADERS}
    body: bytes | None = None
    if "json" in kwargs and kwargs["json"] is not None:
        body = json.dumps(kwargs["json"]).encode()
        headers.setdefault("content-type", "application/json")
    elif isinstance(kwargs.get("data"), (bytes, str)):
        body = kwargs["data"].encode() if isinstance(kwargs["data"], str) else kwargs["data"]
    raw = kwargs.get("params") or {}
    if isinstance(raw, str):   # schemathesis pre-encodes the query of non-exploded array parameters
        pairs: dict[str, list[str]] = {}
        for name, value in parse_qsl(raw, keep_blank_values=True):
            pairs.setdefault(name, []).append(value)
        raw = {name: values[0] if len(values) == 1 else values for name, values in pairs.items()}
    params = {name: _wire(value) for name, value in raw.items()}
    return WireCase(kwargs["method"], quote(prepare_path(case.path, case.path_parameters).lstrip("/")), params,
                    headers, body, GeneratedRequest.of(api, case))


def send(client: RestClient, wire: WireCase) -> Exchange:
    """Sends a generated case through our client (rate limit, budget, API key and reproducer apply)."""
    return client.http.request(wire.method, wire.url(client.base_url), params=wire.params, headers=wire.headers,
                               body=wire.body, secret=client.send_key)


def _wire(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_wire(item) for item in value]
    return value


# Parameters against the document ----------------------------------------------------------------------------

def sent_query(exchange: Exchange) -> dict[str, list[str]]:
    """The query parameters as they travelled (generated values of any type end up as strings, or vanish)."""
    return parse_qs(urlsplit(exchange.url).query, keep_blank_values=True)


def invalid_query_parameters(api: str, label: str, query: Mapping[str, Any]) -> list[str]:
    """Names of the query parameters whose value breaks the parameter's documented schema (type, bounds, enum).

    Values are judged as they travel (strings): an integer parameter must hold a whole number.
    """
    method, path = label.split(" ", 1)
    document = specs.openapi(api)
    item = document["paths"][path]
    declared = [specs.resolve(document, p)
                for p in item.get("parameters", []) + item[method.lower()].get("parameters", [])]
    schemas = {p["name"]: specs.resolve(document, p.get("schema", {})) for p in declared if p.get("in") == "query"}
    return [name for name, value in query.items() if name in schemas and not _fits(value, schemas[name])]


def _fits(value: Any, schema: Mapping[str, Any]) -> bool:
    values = value if isinstance(value, list) else [value]
    for one in values:
        text = ("true" if one else "false") if isinstance(one, bool) else str(one)
        kind = schema.get("type")
        if kind == "integer":
            # Lenient on spelling ("+5", " 5", "1e3" read as integers by many servers), strict on value.
            try:
                number: float = float(text)
            except ValueError:
                return False
            if not number.is_integer():
                return False
        elif kind == "number":
            try:
                number = float(text)
            except ValueError:
                return False
            if number != number or number in (float("inf"), float("-inf")):
                return False
        else:
            number = 0
        if kind in ("integer", "number"):
            if "minimum" in schema and number < schema["minimum"]:
                return False
            if "maximum" in schema and number > schema["maximum"]:
                return False
        if kind == "boolean" and text not in ("true", "false"):
            return False
        if "enum" in schema and text not in [str(v) for v in schema["enum"]]:
            return False
    return True


# Checks shared with schemathesis ----------------------------------------------------------------------------

RestCheck = Callable[[GeneratedRequest, Exchange], None]
CHECKS: dict[str, list[RestCheck]] = {}
_REGISTERED_WITH_SCHEMATHESIS: set[str] = set()


def rest_check(api: str) -> Callable[[RestCheck], RestCheck]:
    """Decorator: registers `fn(request, exchange)` (raising a Violation) as a check of generated `api` requests,
    in our registry and with schemathesis under the name `conformance_<api>_<fn name>`."""
    def register(fn: RestCheck) -> RestCheck:
        CHECKS.setdefault(api, [])
        if fn not in CHECKS[api]:
            CHECKS[api].append(fn)
        name = f"conformance_{api}_{fn.__name__}"
        if name not in _REGISTERED_WITH_SCHEMATHESIS:
            schemathesis.check(_for_schemathesis(api, fn, name))
            _REGISTERED_WITH_SCHEMATHESIS.add(name)
        return fn
    return register


def _for_schemathesis(api: str, fn: RestCheck, name: str) -> Callable[..., None]:
    def adapter(ctx: Any, response: Any, case: Any) -> None:
        try:
            fn(GeneratedRequest.of(api, case), exchange_of(response))
        except SuiteError:
            return None   # no verdict (rate limited, not decidable): never a failure
    adapter.__name__ = adapter.__qualname__ = name
    adapter.__doc__ = fn.__doc__
    return adapter


def exchange_of(response: Any) -> Exchange:
    """A schemathesis Response as our Exchange, so a registered check sees what our client would record."""
    request = response.request
    body = request.body.encode() if isinstance(request.body, str) else request.body
    headers = {name.lower(): ", ".join(values) if isinstance(values, list) else str(values)
               for name, values in response.headers.items()}
    return Exchange(method=request.method or "GET", url=request.url or "",
                    request_headers={k: v for k, v in request.headers.items() if k.lower() not in _TRANSPORT_HEADERS},
                    request_body=body, status=response.status_code, response_headers=headers,
                    body=response.content or b"", elapsed=response.elapsed)


# Running cases ----------------------------------------------------------------------------------------------

def judge(client: RestClient, api: str, case: Any, checks: list[RestCheck] | None = None) -> Exchange:
    """Sends one generated case (a schemathesis `Case` or a `WireCase`) and applies every check registered for
    `api` (or `checks`): each decides its own rules, and the violation one finds hides none of the others, which
    still judge the answer; the test fails at its end with all of them."""
    from conformance.checks import independently

    wire = case if isinstance(case, WireCase) else wire_case(api, case)
    exchange = send(client, wire)
    for check in checks if checks is not None else CHECKS.get(api, []):
        with independently():
            check(wire.request, exchange)
    return exchange
