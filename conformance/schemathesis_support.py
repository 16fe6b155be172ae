"""Generated requests: schemathesis builds cases from our OpenAPI documents, we send and judge them.

- `operation(api, "GET /path")` loads the API's document with schemathesis (cached) and returns one operation.
- `explicit_cases(...)` gives the cases of the examples and coverage phases (bounded by `limit`);
  `fuzzed_cases(...)` is a hypothesis strategy for the fuzzing phase (use with `@given`).
- `send(client, case)` sends a case through OUR RestClient/HttpSession, so the run's rate limit, request budget,
  API key and recorded exchanges apply, and the reproducer is our curl line with the real pageToken.
- `rest_check(api)` registers a check `fn(request, exchange)` for one API, both in our registry (used by
  `CaseRun`) and with schemathesis (`schemathesis.check`), so one rule has one implementation.
- `CaseRun` sends cases, applies every registered check of the API to each and keeps going after a failure;
  `finish()` raises the first Violation, saying how many others there were and under which rules.

Only documented schemathesis API is relied on where it exists (`openapi.from_path`, `APIOperation.as_strategy`,
`Case`, `schemathesis.check`); the coverage phase is reached through `schema.iter_coverage_cases`, which
tests/test_rest_support.py pins so that an upgrade that moves it fails loudly. Cases drawn in a helper process
(conformance.cases_ahead) travel through `CasePickler`, which rebuilds a `Case` through its constructor and encodes a
fixed path value as schemathesis does (`quote_all`); tests/test_cases_ahead.py fails if either changes.
"""
from __future__ import annotations

import json
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import parse_qs, parse_qsl, unquote, urlsplit

import schemathesis
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core import NOT_SET
from schemathesis.core.parameters import DelimitedValue
from schemathesis.generation.case import Case
from schemathesis.schemas import APIOperation, BaseSchema
from schemathesis.transport.serialization import quote_all

from conformance import specs
from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient
from conformance.errors import SuiteError, Violation

PHASES = ("examples", "coverage", "fuzzing")
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
#: Headers schemathesis adds for its own transport; ours sets its own User-Agent and connection handling.
_TRANSPORT_HEADERS = {"user-agent", "accept-encoding", "connection", "x-schemathesis-testcaseid", "content-length"}


# Loading ----------------------------------------------------------------------------------------------------

#: The API of each document `schema` loaded, by the loaded object's id (they stay loaded for the process's life).
_API_OF: dict[int, str] = {}


@cache
def schema(api: str) -> Any:
    """The API's OpenAPI document loaded by schemathesis (a `schemathesis.BaseSchema`)."""
    loaded = schemathesis.openapi.from_path(specs.openapi_path(api))
    _API_OF[id(loaded)] = api
    return loaded


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


def is_case(value: Any) -> bool:
    return type(value) is Case


def path_encoded(values: Mapping[str, Any]) -> dict[str, Any]:
    """Path parameter values encoded as schemathesis encodes the fixed ones a strategy is given."""
    return quote_all(dict(values))


def copy_case(case: Any, **changes: Any) -> Any:
    """A new schemathesis Case like `case` but for `changes` (of its constructor's arguments)."""
    return Case(case.operation, **(_constructor_arguments(case) | changes))


def _constructor_arguments(case: Any) -> dict[str, Any]:
    return dict(method=case.method, path=case.path, id=case.id, path_parameters=case.path_parameters,
                headers=case.headers, cookies=case.cookies, query=case.query, body=case.body,
                media_type=case.media_type, multipart_content_types=case.multipart_content_types, meta=case.meta)


class CasePickler(pickle.Pickler):
    """Pickles drawn cases for another process of the same run: the operation and schema of a case are sent by
    name (the other process loads the same documents), a Case through its constructor."""

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, APIOperation):
            return ("operation", _api_of(obj.schema), obj.label)
        if isinstance(obj, BaseSchema):
            return ("schema", _api_of(obj))
        if obj is NOT_SET:
            return ("not-set",)
        return None

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Case:
            return _rebuilt_case, (obj.operation, _constructor_arguments(obj))
        if type(obj) is DelimitedValue:   # its constructor takes the wire form too, which pickle leaves out
            return DelimitedValue, (str(obj), obj.encoded)
        return NotImplemented


class CaseUnpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "operation":
            return operation(pid[1], pid[2])
        if pid[0] == "schema":
            return schema(pid[1])
        if pid[0] == "not-set":
            return NOT_SET
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def _rebuilt_case(op: Any, fields: dict[str, Any]) -> Any:
    return Case(op, **fields)


def _api_of(loaded: Any) -> str:
    try:
        return _API_OF[id(loaded)]
    except KeyError:
        raise pickle.PicklingError("a case of a document this module did not load") from None


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
        return cls(api, f"{case.method.upper()} {case.path}", path, dict(case.query or {}), mode_of(case))


def send(client: RestClient, case: Any) -> Exchange:
    """Sends a generated case through our client (rate limit, budget, API key and reproducer apply)."""
    kwargs = case.as_transport_kwargs(base_url=client.base_url)
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
    return client.http.request(kwargs["method"], kwargs["url"], params=params, headers=headers, body=body,
                               secret=client.send_key)


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
    declared = [specs.resolve(document, p) for p in item.get("parameters", []) + item[method.lower()].get("parameters", [])]
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

@dataclass
class CaseRun:
    """Sends generated cases of one API and applies its registered checks, continuing after failures."""

    client: RestClient
    api: str
    checks: list[RestCheck] | None = None        # default: every check registered for `api`
    violations: list[Violation] = field(default_factory=list)
    sent: int = 0

    def run(self, case: Any) -> Exchange:
        """Sends one case and applies the checks; a Violation is kept, not raised."""
        return self.judge(case, send(self.client, case))

    def run_all(self, cases: Sequence[Any], config: Any) -> None:
        """Sends the cases, several at once where the run keeps tests in flight, then judges each answer in
        order, here, where the test's evidence is recorded."""
        from conformance.concurrency import sent_each

        for case, exchange in zip(cases, sent_each(config, lambda case: send(self.client, case), cases)):
            self.judge(case, exchange)

    def judge(self, case: Any, exchange: Exchange) -> Exchange:
        """Applies the checks to the answer to one case; a Violation is kept, not raised."""
        self.sent += 1
        request = GeneratedRequest.of(self.api, case)
        for check in self.checks if self.checks is not None else CHECKS.get(self.api, []):
            try:
                check(request, exchange)
            except Violation as violation:
                # Each registered check decides its own rules (shape, error body, refusal): one that broke hides
                # none of the others, which still judge this case.
                self.violations.append(violation)
        return exchange

    def finish(self) -> None:
        """Raises the first Violation, naming how many others the cases gave and which rules they broke."""
        if not self.violations:
            return
        first = self.violations[0]
        if len(self.violations) == 1:
            raise first
        others = sorted({v.rule.id for v in self.violations[1:]})
        summary = (f"{first.summary} (1 of {len(self.violations)} violations in {self.sent} generated cases; "
                   f"the others broke {', '.join(others)})")
        combined = Violation(first.rule, summary, expected=first.expected, received=first.received)
        combined.reproducer = first.reproducer
        combined.args = (combined.render(),)
        raise combined
