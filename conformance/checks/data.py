"""Checks of the Data API (document 2): routes read from the spec, served and refused answers, error bodies, formats."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from collections.abc import Iterator

import pytest

from conformance import specs
from conformance.checks import check, fail, held, independently, rest
from conformance.checks.shapes import assert_shape
from conformance.clients.http import Exchange
from conformance.errors import SuiteError

API = "data"
#: The rule of each route's 200 body shape.
SHAPE_RULES = {
    "listUtxos": "DATA-SHP-001", "listTransactions": "DATA-SHP-002", "getDeployment": "DATA-SHP-003",
    "listBlockchains": "DATA-SHP-004", "listValidators": "DATA-SHP-005", "getValidatorsByNode": "DATA-SHP-006",
    "listErc721Transactions": "DATA-SHP-007", "listErc1155Transactions": "DATA-SHP-008",
    "listTokenTransfers": "DATA-SHP-009", "listErc20Balances": "DATA-SHP-010",
    "listErc1155Balances": "DATA-SHP-011", "listErc721Balances": "DATA-SHP-012",
    "getNativeBalance": "DATA-SHP-013", "listVerticesByHeight": "DATA-SHP-014", "listBlocksByNode": "DATA-SHP-015",
}
#: Statuses that say "the target could not answer now" rather than "the target answered wrongly".
UNAVAILABLE = (429, 502, 503)


@dataclass(frozen=True)
class Operation:
    """One route of the Data API as the spec documents it."""

    id: str
    method: str
    template: str
    spec: dict[str, Any]

    @property
    def response_schema(self) -> dict[str, Any]:
        return self.spec["responses"]["200"]["content"]["application/json"]["schema"]

    @property
    def list_member(self) -> str | None:
        """The member holding a list route's items (the one required member of its response)."""
        if "pageSize" not in self.parameters:
            return None
        schema = specs.resolve(specs.openapi(API), self.response_schema)
        return schema["required"][0]

    @property
    def parameters(self) -> dict[str, dict[str, Any]]:
        document = specs.openapi(API)
        resolved = (specs.resolve(document, p) for p in self.spec.get("parameters", []))
        return {p["name"]: p for p in resolved}

    def schema_of(self, parameter: str) -> dict[str, Any]:
        return self.parameters[parameter]["schema"]

    @property
    def title(self) -> str:
        return f"{self.method} {self.template}"


@cache
def operations() -> dict[str, Operation]:
    out = {}
    for template, item in specs.openapi(API)["paths"].items():
        for method, spec in item.items():
            out[spec["operationId"]] = Operation(spec["operationId"], method.upper(), template, spec)
    return out


def operation(operation_id: str) -> Operation:
    return operations()[operation_id]


def list_operations() -> list[str]:
    """Every paginated route (the routes with a pageSize parameter), in spec order."""
    return [op.id for op in operations().values() if "pageSize" in op.parameters]


def page_size_limits(operation_id: str) -> tuple[int, int, int]:
    """(minimum, maximum, default) of a route's pageSize, from the spec."""
    schema = operation(operation_id).schema_of("pageSize")
    return schema["minimum"], schema["maximum"], schema["default"]


#: The page size of tests whose subject is not a bound: well inside every route's documented maximum and inside
#: the tighter bounds services are seen to keep, so that a route capped below its documented maximum fails the
#: rule of that bound (DATA-LIM-*) and no rule whose test merely needed a page.
PLAIN_PAGE_SIZE = 50


def plain_page_size(operation_id: str) -> int:
    """The page size a test whose subject is not the bound asks `operation_id` for (never the documented maximum
    of a route whose maximum is larger)."""
    return min(page_size_limits(operation_id)[1], PLAIN_PAGE_SIZE)


def enum(operation_id: str, parameter: str) -> list[str]:
    return list(operation(operation_id).schema_of(parameter)["enum"])


#: The network each network path segment denotes (fuji and testnet both denote the test network).
NETWORKS = {"mainnet": "mainnet", "fuji": "testnet", "testnet": "testnet"}


def same_network(a: str, b: str) -> bool:
    """Whether two network names denote the same network ("fuji and testnet both denote the test network")."""
    return NETWORKS.get(a, a) == NETWORKS.get(b, b)


def well_known_chain_ids(network: str) -> dict[str, str]:
    """Alias -> the well-known blockchain ID it stands for on `network` (from the spec; {} for another network)."""
    spec = specs.resolve(specs.openapi(API), {"$ref": "#/components/parameters/BlockchainId"})
    return dict(spec.get("x-well-known-ids", {}).get(NETWORKS.get(network, network), {}))


def unit_prices(body: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, currencyCode, value) of every Price in a body but balanceValue, which moves with a live balance: the
    prices a currency states for one unit (of a token, of the native token)."""
    found: list[tuple[str, Any, Any]] = []
    if isinstance(body, dict):
        if "currencyCode" in body and "value" in body:
            found.append((path or "(top)", body.get("currencyCode"), body.get("value")))
        for name, member in body.items():
            if name != "balanceValue":
                found += unit_prices(member, f"{path}/{name}")
    elif isinstance(body, list):
        for index, member in enumerate(body):
            found += unit_prices(member, f"{path}/{index}")
    return found


def bare_address(address: str) -> str:
    """A primary network address without its optional chain letter prefix (P-, X-, C-)."""
    return address[2:] if len(address) > 2 and address[1] == "-" and address[0] in "PXCpxc" else address


def mentions(value: Any, wanted: str) -> bool:
    """Whether a JSON value holds `wanted` as a string or inside one (0x addresses compared without case): how an
    item "names" an address or an ID, wherever the document lets it stand."""
    if isinstance(value, str):
        if wanted.lower().startswith("0x"):
            return wanted.lower() in value.lower()
        return wanted in value
    if isinstance(value, dict):
        return any(mentions(member, wanted) for member in value.values())
    if isinstance(value, list):
        return any(mentions(member, wanted) for member in value)
    return False


# Item identity: what makes two list items the same resource ------------------------------------------------

_IDENTITY = {
    "listUtxos": ("utxoId",),
    "listTransactions": ("txHash",),
    "listBlockchains": ("blockchainId",),
    "listValidators": ("txHash", "nodeId", "subnetId", "startTimestamp", "endTimestamp"),
    "getValidatorsByNode": ("txHash", "nodeId", "subnetId", "startTimestamp", "endTimestamp"),
    "listErc721Transactions": ("txHash", "logIndex"),
    "listErc1155Transactions": ("txHash", "logIndex"),
    "listTokenTransfers": ("txHash", "logIndex"),
    "listErc20Balances": ("address",),
    "listErc1155Balances": ("address", "tokenId"),
    "listErc721Balances": ("address", "tokenId"),
    "listVerticesByHeight": ("vertexHash",),
    "listBlocksByNode": ("blockHash",),
}


def identity(operation_id: str, item: Any) -> str:
    """A key naming the resource an item of a list route stands for."""
    if not isinstance(item, dict):
        return json.dumps(item, sort_keys=True, default=str)
    return json.dumps([item.get(name) for name in _IDENTITY[operation_id]], default=str)


# Served and refused ---------------------------------------------------------------------------------------

def unavailable(exchange: Exchange) -> None:
    """A rate-limited or unavailable answer means the target could not be tested now: a suite error."""
    if exchange.status in UNAVAILABLE:
        raise SuiteError(f"{exchange.method} {exchange.url} answered {exchange.status}; the target could not "
                         f"be tested now (retry later or lower --rate-limit)")


def served(exchange: Exchange, rule_id: str, what: str) -> Any:
    """The JSON body of a request the documents allow; any status but 200 fails `rule_id`."""
    unavailable(exchange)
    check(exchange.status == 200, rule_id, f"{what} is not served", expected="status 200",
          received=f"status {exchange.status}: {exchange.text(300)}", exchange=exchange)
    return exchange.json()


def refused(exchange: Exchange, rule_id: str, what: str) -> int:
    """Fails `rule_id` unless the request is correctly refused: a documented 4XX with the documented error body."""
    unavailable(exchange)
    rest.assert_refused(exchange, rule_id=rule_id, api=API, what=what)
    return int(exchange.status or 0)


def answered(exchange: Exchange) -> Any:
    """The JSON body of a status 200 answer, else None: for answers read as the input of another rule's check."""
    return exchange.json() if exchange.status == 200 and exchange.is_json() else None


def input_of(exchange: Exchange, what: str) -> Any:
    """The JSON body of an answer a relation reads as its input; skips when it is not served (the route's own rules
    report that: a relation is not charged with another route's refusal)."""
    unavailable(exchange)
    body = answered(exchange)
    if body is None:
        pytest.skip(f"{what} is not served (status {exchange.status}): its own rules report it")
    return body


def items_of(operation_id: str, body: Any) -> list[Any]:
    """The items of a list route's 200 body ([] when the list member is missing or not a list)."""
    member = operation(operation_id).list_member
    items = body.get(member) if isinstance(body, dict) and member else None
    return items if isinstance(items, list) else []


def next_token(body: Any) -> Any:
    return body.get("nextPageToken") if isinstance(body, dict) else None


# Success envelope and shapes ------------------------------------------------------------------------------

def is_strict_json(exchange: Exchange) -> bool:
    """Whether the body is JSON as RFC 8259 defines it (no NaN or Infinity, which Python's parser lets through)."""
    if exchange.is_json():   # parsed once for every check, UTF-8 alone; the other encodings JSON had are read below
        return True

    def refuse(constant: str) -> Any:
        raise ValueError(constant)
    try:
        json.loads(exchange.body, parse_constant=refuse)
    except (ValueError, UnicodeDecodeError):
        return False
    return True


def assert_json_success(exchange: Exchange) -> None:
    """A 200 answer's body is JSON (DATA-ENV-001) and declares a JSON Content-Type (DATA-ENV-002)."""
    check(is_strict_json(exchange), "DATA-ENV-001", "a status 200 body is not JSON", expected="a JSON body",
          received=exchange.text(200), exchange=exchange)
    with independently():   # the declared Content-Type says nothing of the body: its shape is still judged
        check(rest.is_json_media_type(exchange.content_type), "DATA-ENV-002",
              "a status 200 response does not declare JSON", expected="Content-Type application/json",
              received=exchange.content_type or "(no Content-Type)", exchange=exchange)


def assert_route_shape(rule_id: str, operation_id: str, body: Any, exchange: Exchange) -> None:
    """The 200 body has the route's documented shape, a member that is null counting as one left out.

    The document leaves open which members are always present; a service that writes null for a value it
    does not have, rather than leaving the member out, says the same thing. A list member the route promises
    is still required, so null there fails as missing. Members with a rule of their own (a Price value, an
    asset amount, genesis hex strings) are that rule's alone: the whole-body rule leaves them out.
    """
    op = operation(operation_id)
    assert_body_shape(rule_id, body, op.response_schema, what=f"the {operation_id} 200 body", exchange=exchange)


def assert_body_shape(rule_id: str, body: Any, schema: dict[str, Any], *, what: str, exchange: Exchange) -> None:
    """`body` has the shape of `schema`, nulls read as left out and the members of their own rules left out."""
    if exchange.may_hold_null():  # a page of 10000 items is copied only when it can hold a null
        body = without_nulls(body)
    assert_shape(rule_id, body, schema, api=API, what=what, exchange=exchange, leave_out=own_rule_members())


@cache
def own_rule_members() -> tuple[tuple[str, str], ...]:
    """(component, member) of every member whose form a rule of its own decides: the members the spec gives a
    `format` (decimal-integer amounts, lowercase currency codes, decimal Price values, genesis hex strings), each
    the subject of one DATA-SHP rule whose sentence names its type too ("value string (decimal)")."""
    schemas = specs.openapi(API)["components"]["schemas"]
    return tuple(sorted((name, member) for name, schema in schemas.items()
                        for member, prop in schema.get("properties", {}).items() if "format" in prop))


def without_nulls(value: Any) -> Any:
    """`value` with every object member whose value is null left out, at any depth (array items are kept)."""
    if isinstance(value, dict):
        return {name: without_nulls(member) for name, member in value.items() if member is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


# Value formats (the spec's `format` annotations) ------------------------------------------------------------

FORMATS = {
    "decimal-integer": re.compile(r"^[0-9]+$"),
    "decimal": re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"),
    "hex": re.compile(r"^(0[xX])?[0-9a-fA-F]*$"),
}


def format_holds(fmt: str, value: Any) -> bool:
    """Whether a value of a member documented with `fmt` is a string of that format (null reads as left out)."""
    if value is None:
        return True
    if not isinstance(value, str):
        return False   # the rule's sentence names the type too ("value string (decimal)"); shapes leave it out
    if fmt == "lowercase":
        return value == value.lower()
    return bool(FORMATS[fmt].match(value))


def formatted_values(instance: Any, schema: Any, *, fmt: str, within: str | None = None,
                     path: str = "", inside: bool = False) -> Iterator[tuple[str, Any]]:
    """(path, value) of every value of `instance` whose schema carries `format: fmt`.

    With `within` (a component name), only values of that component's own members count: another component
    nested in it (a genesis account inside genesis data) has members of its own rule.
    """
    document = specs.openapi(API)
    if isinstance(schema, dict) and "$ref" in schema:
        inside = within is None or schema["$ref"].endswith(f"/{within}")
        schema = specs.resolve(document, schema)
    if not isinstance(schema, dict):
        return
    inside = inside or within is None
    if inside and schema.get("format") == fmt:
        yield path or "(top)", instance
        return
    for part in schema.get("allOf", []):
        yield from formatted_values(instance, part, fmt=fmt, within=within, path=path, inside=inside)
    if isinstance(instance, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for name, value in instance.items():
            sub = properties.get(name, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from formatted_values(value, sub, fmt=fmt, within=within, path=f"{path}/{name}",
                                            inside=inside)
    elif isinstance(instance, list) and isinstance(schema.get("items"), dict):
        for index, value in enumerate(instance):
            yield from formatted_values(value, schema["items"], fmt=fmt, within=within, path=f"{path}/{index}",
                                        inside=inside)


def assert_format(rule_id: str, operation_id: str, body: Any, *, fmt: str, within: str,
                  exchange: Exchange, members: tuple[str, ...] | None = None) -> int:
    """Fails `rule_id` when a value of component `within` breaks `fmt`; returns how many values were checked."""
    schema = operation(operation_id).response_schema
    found = [(p, v) for p, v in formatted_values(body, schema, fmt=fmt, within=within)
             if members is None or p.rsplit("/", 1)[-1] in members]
    wrong = [(p, v) for p, v in found if not format_holds(fmt, v)]
    if wrong:
        fail(rule_id, f"{within} values are not {fmt} strings", expected=f"{fmt} strings",
             received="; ".join(f"{p} = {v!r}" for p, v in wrong[:5]), exchange=exchange)
    present = [v for _, v in found if v is not None]
    if present:
        held(rule_id, exchange)
    return len(present)


# Order ----------------------------------------------------------------------------------------------------

def out_of_order(keys: list[Any], *, descending: bool) -> int | None:
    """The index of the first key that breaks the (non-strict) order, or None."""
    for index in range(1, len(keys)):
        before, after = keys[index - 1], keys[index]
        if before is None or after is None:
            continue
        if (after > before) if descending else (after < before):
            return index
    return None


def number(value: Any) -> Any:
    """A numeric sort key from an integer or a decimal string; None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return None
    return None


# Error bodies: one rule at a time, over the shared REST checks ------------------------------------------------

def assert_error_rule(rule_id: str, exchange: Exchange) -> None:
    """Fails `rule_id` (one of DATA-ERR-001 to 008) when this error answer breaks it."""
    if rule_id == "DATA-ERR-001":
        rest.assert_json_object(rule_id, exchange, what=f"the body of the {exchange.status} error")
    elif rule_id == "DATA-ERR-002":
        rest.assert_json_content_type(rule_id, exchange, what=f"the {exchange.status} error")
    elif rule_id == "DATA-ERR-008":
        phrases = rest.documented_phrases(API)
        check(exchange.status in phrases, rule_id, f"the error status {exchange.status} is not documented",
              expected=f"one of {sorted(phrases)}", received=exchange.status, exchange=exchange)
    else:
        body = exchange.json() if exchange.is_json() else None
        if not isinstance(body, dict):
            return  # DATA-ERR-001 decides bodies that are not objects
        status = int(exchange.status or 0)
        problems = rest.error_body_problems(body, status, api=API)
        for problem_rule, problem, expected in problems:
            if problem_rule == rule_id:
                fail(rule_id, problem, expected=expected, received=body, exchange=exchange)
        if rule_id in rest.decided_rules(body, status, api=API, problems=problems):
            held(rule_id, exchange)
