"""Faults derived from the declarations of meaning: one for each declared effect, invariant, identity and chronology.

A declaration in the specs brings checks derived from it; the fault derived from the same declaration proves those
checks can fail, as a hand-written fault proves a hand-written check can. Each fault is read from its declaration
alone, by the deviation its kind invites, on REST answers and JSON-RPC results alike: a new declaration of a known
kind gets its fault without a line written for it. What no fault is derived for is said, with the reason, by
`not_derivable`: NOT_DERIVABLE lists the kinds, UNSEEN the declarations no answer can show to be broken.

"After the first page" is every page of a walk but its first, and an answer that is the whole list (it has no next
page; a JSON-RPC result has none): a walk whose first page is right and whose next ones are wrong is what a check
reading first pages misses, and a list that fits on one page still shows the deviation.
"""
from __future__ import annotations

import copy
import datetime
import re
import time
import zlib
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from conformance import specs
from conformance.meaning import declarations, identities, instances, invariants, members
from conformance.meaning.declarations import BODY, Declaration
from conformance.meaning.members import Normaliser
from conformance.meaning.spellings import Spelling, spelling
from conformance.reference.calls import HttpReply, RestCall, RpcCall
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RestProceed, RpcProceed
from conformance.reference.faults.data import _segment

if TYPE_CHECKING:
    from conformance.reference.world import World

#: Declaration kinds no fault is derived for, and why.
NOT_DERIVABLE = {
    "write": "a write changes state and is judged by reading the state back: breaking it is a change of how the "
             "reference keeps state, not of an answer",
}
#: Declarations of a kind a fault is known for that no answer can show to be broken, and why (see `not_derivable`).
UNSEEN = {
    "read once": "no operation lists these objects in pages, and one without pages is read once: no second "
                 "sighting of one object (identity), nor a second object (chronology), is ever compared",
    "seen apart": "no two of the calls the objects are seen by (seen_by) can show one object: they differ in a "
                  "parameter that names the object asked for (echo, selector)",
    "charged elsewhere": "a disagreement between any two requests that can show one object is charged to another "
                         "rule, by what differs between them (scope, by_difference, rules, witness)",
    "every member read": "every documented member outside what the projection changes is read by a relation of "
                         "the answer's objects: a change there breaks that relation's sentence too, and a member the "
                         "documents do not describe may differ between any two answers",
}
#: Relation kinds that compare objects across answers.
COMPARED = ("identity", "chronology")
RELATIONS = ("invariant", *COMPARED)
#: Items a probe asks for: enough that an item a filter excludes is among them, few enough to stay cheap.
PROBE_PAGE = 50
#: What a parameter naming a moment takes to mean "now", where it cannot be left out.
NOW = "latest"
#: The prefix of every derived fault's name.
PREFIX = "Derived"
_HASH = re.compile(r"0x[0-9a-fA-F]{64}")

Proceed = Callable[[Any], Any]


# Operations: what a call sends and what its answer holds, for both transports -------------------------------------

class Operation:
    """One operation (a REST route or a JSON-RPC method) as its document states it."""

    api: str
    subject: str
    schema: Any                 # the answer's schema: a REST 200 body, a JSON-RPC result
    token: str | None = None    # the paging parameters and the answer's next-page member, where there are pages
    size: str | None = None
    next_token: str | None = None
    items: str | None = None    # where a REST list route's items are

    def names(self) -> set[str]:
        raise NotImplementedError

    def named(self, params: Any) -> dict[str, Any]:
        """Parameters by name, however a call sends them."""
        return dict(params) if isinstance(params, dict) else {}

    def schema_of(self, name: str) -> dict[str, Any]:
        raise NotImplementedError

    def sent(self, call: Any, name: str) -> Any:
        """The value of a parameter in a call; None when it is not sent."""
        raise NotImplementedError

    def sending(self, call: Any, name: str, value: Any) -> Any:
        """The call with `name` set to `value` (left out when None); None when it cannot be left out."""
        raise NotImplementedError

    def required(self, name: str) -> bool:
        """Whether a call must send the parameter."""
        raise NotImplementedError

    def answer(self, reply: Any) -> Any:
        """What a reply answers (None for a refusal)."""
        raise NotImplementedError

    def answered(self, reply: Any, answer: Any) -> Any:
        """The reply with another answer."""
        raise NotImplementedError

    def refused(self, call: Any, proceed: Proceed) -> Any:
        """The service's refusal of the call as an unknown resource."""
        raise NotImplementedError

    def rewrite(self, reply: Any, change: Callable[[Any], Any]) -> Any:
        """The reply with its answer replaced by what `change` makes of a copy of it (the service keeps some answers
        in its cache)."""
        return self.answered(reply, change(copy.deepcopy(self.answer(reply))))

    def later(self, call: Any, answer: Any) -> bool:
        """Whether an answer is after the first page of a walk (see the module's docstring)."""
        if self.token is None:
            return True
        if self.sent(call, self.token):
            return True
        return not (isinstance(answer, dict) and self.next_token and answer.get(self.next_token))

    def first_page(self, call: Any, size: int | None = None) -> Any:
        """The call's first page, at `size` items when the operation takes a page size."""
        if self.token:
            call = self.sending(call, self.token, None) or call
        if size is not None and self.size:
            call = self.sending(call, self.size, min(size, self.schema_of(self.size).get("maximum", size))) or call
        return call

    def plan(self) -> tuple[tuple[tuple[str, ...], str], ...]:
        return instances.plan(self.api, instances.response_root(self.schema)) if self.schema is not None else ()

    def shows(self, component: str) -> bool:
        return any(name == component for _, name in self.plan())

    def list_of(self, declaration: Declaration) -> str | None:
        """Where the items a declaration reads are: the route's list, the declaration's `items` (a map as
        `name{}`), or "" for a result that is the list itself."""
        if self.items is not None:
            return self.items
        if declaration.get("items"):
            return str(declaration.get("items"))
        resolved = specs.resolve(_document(self.api), self.schema) if self.schema else {}
        return "" if isinstance(resolved, dict) and resolved.get("type") == "array" else None

    def component_at(self, path: str) -> str | None:
        """The named schema of the items at a list path."""
        steps = tuple(part for part in path.split(".") if part)
        wanted = (*steps[:-1], steps[-1][:-2], "{}") if steps and steps[-1].endswith("{}") else (*steps, "[]")
        return next((name for found, name in self.plan() if found == wanted), None)


def _document(api: str) -> dict[str, Any]:
    return specs.openapi(api) if api in specs.REST_APIS else specs.openrpc(api)


class Route(Operation):
    """A REST route: path, query and body parameters; pages; the 200 body."""

    def __init__(self, api: str, subject: str, method: str, template: str, spec: dict[str, Any]) -> None:
        document = specs.openapi(api)
        self.api, self.subject, self.method, self.template = api, subject, method, template
        self.parameters = {p["name"]: p for p in (specs.resolve(document, p) for p in spec.get("parameters", []))}
        body = spec.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        self.body_members: dict[str, Any] = specs.resolve(document, body).get("properties", {}) if body else {}
        self.body_required = set(specs.resolve(document, body).get("required", [])) if body else set()
        self.schema = spec.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}).get(
            "schema")
        paging = [d.name for d in declarations.effects(api, kind="paging") if d.subject == subject]
        self.token = next((name for name in paging if self.schema_of(name).get("type") == "string"), None)
        self.size = next((name for name in paging if self.schema_of(name).get("type") == "integer"), None)
        resolved = specs.resolve(document, self.schema) if self.schema else {}
        properties = resolved.get("properties", {}) if isinstance(resolved, dict) else {}
        arrays = [name for name in [*resolved.get("required", []), *properties]
                  if specs.resolve(document, properties.get(name, {})).get("type") == "array"]
        self.items = arrays[0] if paging and arrays else None
        self.next_token = next((name for name in properties if name.lower().endswith("pagetoken")), None)

    def names(self) -> set[str]:
        return set(self.parameters) | {BODY + name for name in self.body_members}

    def required(self, name: str) -> bool:
        if name.startswith(BODY):
            return name.removeprefix(BODY) in self.body_required
        found = self.parameters.get(name, {})
        return bool(found.get("required")) or found.get("in") == "path"

    def schema_of(self, name: str) -> dict[str, Any]:
        found = self.body_members.get(name.removeprefix(BODY), {}) if name.startswith(BODY) else \
            self.parameters.get(name, {}).get("schema", {})
        return dict(specs.resolve(specs.openapi(self.api), found) or {})

    def sent(self, call: RestCall, name: str) -> Any:
        if name.startswith(BODY):
            value = call.body.get(name.removeprefix(BODY)) if isinstance(call.body, dict) else None
        else:
            value = call.path_params[name] if name in call.path_params else call.first(name)
        return None if value == "" else value

    def sending(self, call: RestCall, name: str, value: Any) -> RestCall | None:
        if name.startswith(BODY):
            body = dict(call.body) if isinstance(call.body, dict) else {}
            if value is None:
                body.pop(name.removeprefix(BODY), None)
            else:
                body[name.removeprefix(BODY)] = value
            return call.with_(body=body)
        if name in call.path_params:
            return None if value is None else _segment(call, name, text(value))
        return call.with_query(**{name: None if value is None else text(value)})

    def answer(self, reply: HttpReply) -> Any:
        return reply.body if reply.status == 200 and isinstance(reply.body, dict) else None

    def answered(self, reply: HttpReply, answer: Any) -> HttpReply:
        return HttpReply(reply.status, answer, dict(reply.headers))

    def refused(self, call: RestCall, proceed: Proceed) -> HttpReply:
        return proceed(call.with_(path=call.path.rstrip("/") + "/-"))


class Method(Operation):
    """A JSON-RPC method: parameters by name or by position; the result."""

    def __init__(self, api: str, spec: dict[str, Any]) -> None:
        document = specs.openrpc(api)
        self.api, self.subject = api, spec["name"]
        self.params = [p["name"] for p in spec.get("params", [])]
        self.needed = {p["name"] for p in spec.get("params", []) if p.get("required")}
        self.schemas = {p["name"]: specs.resolve(document, p.get("schema", {})) for p in spec.get("params", [])}
        self.schema = spec.get("result", {}).get("schema")

    def names(self) -> set[str]:
        return set(self.params)

    def required(self, name: str) -> bool:
        return name in self.needed

    def named(self, params: Any) -> dict[str, Any]:
        return dict(zip(self.params, params)) if isinstance(params, list) else super().named(params)

    def schema_of(self, name: str) -> dict[str, Any]:
        return dict(self.schemas.get(name) or {})

    def sent(self, call: RpcCall, name: str) -> Any:
        if isinstance(call.params, dict):
            return call.params.get(name)
        at = self.params.index(name) if name in self.params else len(self.params)
        return call.params[at] if isinstance(call.params, list) and at < len(call.params) else None

    def sending(self, call: RpcCall, name: str, value: Any) -> RpcCall | None:
        if isinstance(call.params, list):
            params = list(call.params)
            at = self.params.index(name)
            if value is None:
                if at < len(params) - 1:
                    return None   # a parameter before others cannot be left out by position
                return call.with_(params=params[:at])
            params += [None] * (at + 1 - len(params))
            params[at] = value
            return call.with_(params=params)
        named = dict(call.params) if isinstance(call.params, dict) else {}
        if value is None:
            named.pop(name, None)
        else:
            named[name] = value
        return call.with_(params=named, has_params=True)

    def answer(self, reply: Any) -> Any:
        return reply.get("result") if isinstance(reply, dict) and "error" not in reply else None

    def answered(self, reply: dict[str, Any], answer: Any) -> dict[str, Any]:
        return {**reply, "result": answer}

    def refused(self, call: RpcCall, proceed: Proceed) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": call.id, "error": {"code": -32000, "message": "not found"}}


@cache
def operations(api: str) -> dict[str, Operation]:
    """Operation ID or method name -> its operation."""
    if api in specs.REST_APIS:
        return {operation["operationId"]: Route(api, operation["operationId"], verb.upper(), template, operation)
                for template, item in specs.openapi(api)["paths"].items() for verb, operation in item.items()
                if isinstance(operation, dict) and "operationId" in operation}
    return {method["name"]: Method(api, method) for method in specs.openrpc(api)["methods"]}


@cache
def _routes(api: str) -> dict[tuple[str, str], Operation]:
    return {(op.method, op.template): op for op in operations(api).values() if isinstance(op, Route)}


def operation_of(call: RestCall | RpcCall) -> Operation | None:
    if call.api not in specs.ALL_APIS:
        return None
    if isinstance(call, RestCall):
        return _routes(call.api).get((call.method, call.route))
    return operations(call.api).get(call.method)


def text(value: Any) -> str:
    """A value as a query carries it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(text(part) for part in value)
    return str(value)


def items_at(answer: Any, path: str | None) -> list[Any]:
    """The items at a list path of an answer (a map's entries as objects with their key as `@key`)."""
    if path is None:
        return []
    if path == "":
        return answer if isinstance(answer, list) else []
    if path.endswith("{}"):
        found = members.first(answer, path[:-2])
        return [{"@key": key, **(value if isinstance(value, dict) else {"@value": value})}
                for key, value in found.items()] if isinstance(found, dict) else []
    found = members.first(answer, path)
    return found if isinstance(found, list) else []


def with_items(answer: Any, path: str, items: list[Any]) -> Any:
    """The answer with the items at a list path replaced (on the answer itself: it is a copy already)."""
    if path == "":
        return items
    if path.endswith("{}"):
        put(answer, path[:-2], {item["@key"]: item.get("@value", {k: v for k, v in item.items() if k != "@key"})
                                for item in items if isinstance(item, dict) and "@key" in item})
    else:
        put(answer, path, items)
    return answer


# Values: another one of the same form --------------------------------------------------------------------------

_DECIMAL = re.compile(r"-?\d+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")


def perturbed(value: Any) -> Any:
    """A value of the same form that differs: a number one more, hex one more, text turned back to front after its
    prefix (`NodeID-`, `0x`, an address's human-readable part), a flag flipped."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        if _DECIMAL.fullmatch(value):
            return str(int(value) + 1)
        if _HEX.fullmatch(value):
            digits = len(value) - 2
            bumped = format((int(value, 16) + 1) % 16 ** digits, f"0{digits}x")
            return "0x" + (bumped.upper() if value[2:].isupper() else bumped)
        head, tail = _prefix(value)
        turned = head + tail[::-1]
        return turned if turned != value else value + "x"
    if isinstance(value, list):
        return [*value, copy.deepcopy(value[-1])] if value else [0]
    return value


def _prefix(value: str) -> tuple[str, str]:
    for separator in ("-", "1"):   # `NodeID-`, `P-`; an address's human-readable part ends at its last `1`
        head, found, tail = value.partition(separator) if separator == "-" else value.rpartition(separator)
        if found and tail and len(head) <= 8:
            return head + found, tail
    return "", value


def magnified(value: Any) -> Iterator[Any]:
    """Values of the same form further and further from `value`: what an inequality needs to turn false."""
    number = members.number(value)
    if number is None or isinstance(value, bool):
        yield perturbed(value)
        return
    for other in (number + 1, number - 1, 2 * number + 1, 10 ** 6 * (abs(number) + 1), 0, -(abs(number) + 1)):
        yield _like(value, Decimal(str(other)))


def _like(value: Any, number: Decimal) -> Any:
    """`number` in the form of `value`: a JSON number, a decimal string or a 0x string."""
    if isinstance(value, str):
        if value[:2].lower() == "0x" and number >= 0:
            return hex(int(number))
        return str(int(number)) if number == number.to_integral_value() else format(number.normalize(), "f")
    if isinstance(value, int) and number == number.to_integral_value():
        return int(number)
    return float(number)


def at_path(value: Any, path: str, change: Callable[[Any], Any]) -> None:
    """Replaces each value at a member path (`a.b`, `a[]`) by `change(old)`; absent members are left out."""
    steps = [part for part in re.split(r"\.|(?=\[\])", path) if part]
    if steps:
        _set_steps(value, steps, change)


def put(value: Any, path: str, new: Any) -> None:
    """Sets each value at a member path to `new`."""
    at_path(value, path, lambda _: new)


def _set_steps(value: Any, steps: list[str], change: Callable[[Any], Any]) -> None:
    step, rest = steps[0], steps[1:]
    if step == "[]":
        if isinstance(value, list):
            for index, element in enumerate(value):
                if rest:
                    _set_steps(element, rest, change)
                else:
                    value[index] = change(element)
    elif isinstance(value, dict) and step in value:
        if rest:
            _set_steps(value[step], rest, change)
        else:
            value[step] = change(value[step])


def leaves(value: Any, pointer: str = "") -> Iterator[tuple[str, Any, Any, Any]]:
    """(JSON pointer, container, key, value) of every string or number inside a JSON value, in document order."""
    pairs = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, member in pairs:
        if isinstance(member, (dict, list)):
            yield from leaves(member, f"{pointer}/{key}")
        elif isinstance(member, (str, int, float)) and not isinstance(member, bool):
            yield f"{pointer}/{key}", value, key, member


@cache
def related(api: str) -> frozenset[str]:
    """The schemas of an API whose objects declare a relation (invariant, identity, chronology)."""
    return frozenset(set(invariants.by_component(api)) | set(identities.by_component(api))
                     | set(identities.chronologies(api)))


def leak(op: Operation, answer: Any, sent: tuple[str, Any], spared: tuple[str, ...] = (),
         spared_members: tuple[str, ...] = (), rule: str | None = None) -> Any:
    """The answer with one member changed outside the objects of `spared` and the members `spared_members`, and
    that no relation of an object it lies in reads (so that only the declaration at hand is broken); where every
    member is read by one, the parameter sent (name, value) echoed as a member of its own; a bare value changed."""
    if not isinstance(answer, (dict, list)):
        return perturbed(answer)
    skipped = [pointer for _, pointer, _ in instances.instances(op.api, op.schema, answer, spared)]
    skipped += [f"/{name}" for name in spared_members]
    holders = [(pointer.rstrip("/"), component)
               for component, pointer, _ in instances.instances(op.api, op.schema, answer, tuple(related(op.api)))]
    for pointer, container, key, value in leaves(answer):
        if key == op.next_token or any(pointer == s or pointer.startswith(s.rstrip("/") + "/") for s in skipped):
            continue
        if all(_free(op.api, component, pointer[len(at) + 1:].split("/")[0], (sent[0], rule))
               for at, component in holders if pointer.startswith(at + "/")):
            container[key] = perturbed(value)
            return answer
    if isinstance(answer, dict) and sent[0] not in answer:
        answer[sent[0]] = sent[1]
    return answer


def _free(api: str, component: str, member: str, charged: tuple[str, str | None] = ("", None)) -> bool:
    """Whether no invariant, identity or chronology of `component` reads its member `member`; an identity that
    charges a disagreement between two requests differing in the parameter `charged` names to the rule it names
    (`by_difference`) does not count: a change there breaks that rule alone."""
    for invariant in invariants.by_component(api).get(component, ()):
        if any(path.split(".")[0].removesuffix("[]") == member for path in invariant.when):
            return False
    name, rule = charged
    for identity in identities.by_component(api).get(component, ()):
        declared = identity.declaration
        if rule is not None and (declared.get("by_difference") or {}).get(name) == rule:
            continue
        keys = {path.split(".")[0] for path in members.paths_of(declared.get("key"))}
        compared = declared.get("members")
        if member in keys or (member in {path.split(".")[0] for path in compared} if compared is not None
                              else member not in set(declared.get("volatile", ()))):
            return False
    return all(member not in (c.get("by"), c.get("then")) for c in identities.chronologies(api).get(component, ()))


# The base of every derived fault --------------------------------------------------------------------------------

class Derived(Fault):
    """A fault derived from one declaration; the kinds below say how each kind of declaration is broken."""

    declaration: ClassVar[Declaration]
    #: The operator's name in the catalogue of its kind (OPERATORS): the first of each kind is the kind's own.
    operator: ClassVar[str] = ""
    world: World | None = None

    @classmethod
    def unfit(cls, declaration: Declaration) -> str | None:
        """Why this operator cannot break `declaration` (None when it can): a mutation its reading allows."""
        return None

    @classmethod
    def charged(cls, declaration: Declaration) -> tuple[str, ...]:
        """The rules whose sentence this operator breaks on `declaration`: its own."""
        return (declaration.rule,)

    def attach(self, world: World) -> None:
        self.world = world

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        return self._through(call, proceed)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        return self._through(call, proceed)

    #: Whether the fault has changed any answer yet: one that never did was not observable where it ran.
    changed_an_answer: bool = False

    def _through(self, call: Any, proceed: Proceed) -> Any:
        op = operation_of(call)
        if op is None or op.api != self.declaration.api or not self.touches(op, call):
            return proceed(call)
        if self.changed_an_answer:
            return self.handle(op, call, proceed)
        plain: list[Any] = []

        def proceeding(sent: Any) -> Any:
            reply = proceed(sent)
            if sent is call and not plain:
                plain.append(reply)
            return reply
        out = self.handle(op, call, proceeding)
        self.changed_an_answer = out != (plain[0] if plain else proceed(call))
        return out

    def touches(self, op: Operation, call: Any) -> bool:
        return op.subject == self.declaration.subject and self.requires_met(op, call)

    def requires_met(self, op: Operation, call: Any) -> bool:
        """Whether the call sends what the declaration requires (a discovered identifier: any value of it)."""
        for name, value in (self.declaration.get("requires") or {}).items():
            found = op.sent(call, name)
            if found is None:
                return False
            if not (isinstance(value, str) and value.startswith("sample:")) and text(found) != text(value):
                return False
        return True

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        return proceed(call)

    def table(self, op: Operation, call: Any) -> Spelling | None:
        """The declaration's spelling table, resolved for the network the call names and the world's identifiers."""
        name = self.declaration.get("table")
        if not name or "blocks" in declarations.spellings(op.api).get(name, {}):
            return None
        samples = self.world.samples() if self.world is not None else {}
        network = op.sent(call, "network") if "network" in op.names() else None
        return spelling(op.api, name, sample=samples.get, network=network or samples.get("data_network", "mainnet"))

    def respelled(self, op: Operation, call: Any, value: Any) -> bool:
        """Whether a value (or a part of a comma-separated one) is not the spelling its table reads it as: for a
        table of blocks, a block's hash stands for its number."""
        if "blocks" in declarations.spellings(op.api).get(self.declaration.get("table"), {}):
            return isinstance(value, str) and bool(_HASH.fullmatch(value))
        table = self.table(op, call)
        parts = [value] + (value.split(",") if isinstance(value, str) and "," in value else [])
        return table is not None and any(isinstance(p, str) and table.canonical(p) != p for p in parts)


# Filters ----------------------------------------------------------------------------------------------------------

class FilterLetThrough(Derived):
    """After the first page of a walk, the filter lets through items it excludes: one taken from the answer without
    the filter (or with another of its values), else an item of the page changed into one it excludes; a value that
    names nothing is answered with what the operation lists without the filter."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        value = op.sent(call, effect.name)
        listed = effect.get("values")
        reply = proceed(call)
        answer, path = op.answer(reply), op.list_of(effect)
        if value is None or isinstance(listed, list) and text(value) not in {text(v) for v in listed} \
                or answer is None or path is None or not op.later(call, answer):
            return reply
        page = items_at(answer, path)
        extra = self.excluded(op, call, proceed, value, page)
        if not extra:
            return reply
        if page:
            # one excluded item a page, another on each page where there are several (a filter dropped from the
            # next pages shows other items on each, never one twice), in place of the page's last item when the
            # page is full: the page still holds no more than its pageSize
            token = op.sent(call, op.token) if op.token else None
            at = zlib.crc32(text(token or "").encode()) % len(extra)
            extra = extra[at:at + 1]
        size = members.number(op.sent(call, op.size)) if op.size else None
        limit = int(size) if isinstance(size, (int, float)) and size >= 1 else None

        def let_through(changed: Any) -> Any:
            items = items_at(changed, path)
            if limit is None:
                return with_items(changed, path, [*items, *extra])
            let = extra[:limit]
            return with_items(changed, path, [*items[:max(0, limit - len(let))], *let])
        return op.rewrite(reply, let_through)

    def excluded(self, op: Operation, call: Any, proceed: Proceed, value: Any, page: list[Any]) -> list[Any]:
        effect = self.declaration
        wanted = members.parts(value, bool(effect.get("list")))
        table = self.table(op, call)
        normalise = Normaliser(case=effect.get("case", "exact"), prefixes=table.prefixes if table else ())
        path = op.list_of(effect)

        def out(item: Any) -> bool:
            return isinstance(item, dict) and members.kept_by_filter(
                effect.get("match", "equals"), item, item_member(effect), wanted, normalise) is False
        base = op.first_page(call, PROBE_PAGE)
        for other in [None, *alternatives(op.schema_of(effect.name), value)]:
            probe = op.sending(base, effect.name, other)
            if probe is None:
                continue
            found = [copy.deepcopy(item) for item in items_at(op.answer(proceed(probe)), path) if out(item)]
            if found:
                return found
        for item in page[:1]:
            made = made_excluded(effect, op, item, wanted, normalise)
            if out(made):
                return [made]
        return []


class FilterAnswersAllForNothing(Derived):
    """A value that matches no item is answered as if the filter were not sent: the first page of the unfiltered
    list where the filtered one is empty."""

    operator = "answers_all_for_nothing"

    @classmethod
    def unfit(cls, declaration: Declaration) -> str | None:
        op = operations(declaration.api).get(declaration.subject)
        if op is not None and op.required(declaration.name):
            return "the parameter is required: no call can leave it out, so there is no unfiltered list to answer"
        return None

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        reply = proceed(call)
        answer, path = op.answer(reply), op.list_of(effect)
        if op.sent(call, effect.name) is None or answer is None or path is None or items_at(answer, path) \
                or op.token and op.sent(call, op.token):
            return reply
        unfiltered = op.sending(call, effect.name, None)
        found = op.answer(proceed(unfiltered)) if unfiltered is not None else None
        if found is None or not items_at(found, path):
            return reply
        return op.answered(reply, found)


def item_member(declaration: Declaration) -> Any:
    """The member a declaration reads on each item (a declaration may also name it from the answer's root)."""
    return declaration.get("member_of_item", declaration.get("member"))


def alternatives(schema: dict[str, Any], value: Any) -> list[Any]:
    """Other documented values of a parameter: the other flag, the other members of its enumeration."""
    if schema.get("type") == "boolean":
        return [text(value) != "true"]
    return [other for other in schema.get("enum", []) if text(other) != text(value)]


def made_excluded(effect: Declaration, op: Operation, item: dict[str, Any], wanted: list[Any],
                  normalise: Normaliser) -> dict[str, Any]:
    """A copy of `item` the filter excludes, under a key of its own (so that it is another object, not the same one
    answered differently)."""
    def unnamed(value: Any) -> Any:
        if isinstance(value, str) and any(members.names(value, str(w), normalise) for w in wanted):
            return perturbed(value)
        if isinstance(value, dict):
            return {key: unnamed(member) for key, member in value.items()}
        if isinstance(value, list):
            return [unnamed(member) for member in value]
        return value
    match = effect.get("match", "equals")
    made = unnamed(item) if match == "names" else copy.deepcopy(item)
    for path in members.paths_of(item_member(effect)) if match != "names" else []:
        if match == "present":
            put(made, path, None)
        elif match == "absent":
            at_path(made, path, lambda old: old if not members.falsy(old) else 1)
        else:
            at_path(made, path, perturbed)
    component = op.component_at(op.list_of(effect) or "")
    for identity in identities.by_component(op.api).get(component or "", ()):
        for path in members.paths_of(identity.declaration.get("key")):
            at_path(made, path, perturbed)
    return made


# Bounds -----------------------------------------------------------------------------------------------------------

class BoundWidened(Derived):
    """The bound is applied one step wider than sent: an exclusive bound lets in the item on it, an inclusive (or
    unstated) one the item one step outside."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        raw = op.sent(call, effect.name)
        bound = _decimal(raw)
        wider = self._wider(op, call, proceed, bound) if bound is not None else None
        schema = op.schema_of(effect.name)
        if wider is None or "minimum" in schema and wider < Decimal(str(schema["minimum"])) \
                or "maximum" in schema and wider > Decimal(str(schema["maximum"])):
            return proceed(call)
        changed = op.sending(call, effect.name, _like(raw, wider))
        return proceed(changed if changed is not None else call)

    def _wider(self, op: Operation, call: Any, proceed: Proceed, bound: Decimal) -> Decimal | None:
        effect = self.declaration
        lower = effect.get("side") == "lower"
        step = _decimal(effect.get("step", 1))
        if step is not None:
            return bound - step if lower else bound + step
        # a step named rather than numbered (one period of a series): the nearest item outside the bound is let in
        probe = op.sending(op.first_page(call, PROBE_PAGE), effect.name, None)
        listed = items_at(op.answer(proceed(probe)), op.list_of(effect)) if probe is not None else []
        outside = [v for item in listed if (v := _decimal(members.first(item, item_member(effect)))) is not None
                   and (v < bound if lower else v > bound)]
        return (max(outside) if lower else min(outside)) if outside else None


class BoundNarrowed(BoundWidened):
    """The bound is applied one step narrower than sent: an inclusive bound leaves out the item on it, an exclusive
    one the first item one step inside."""

    operator = "narrowed"

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        reply = super().handle(op, call, proceed)
        # past the last item a narrower bound may be refused: the deviation is in what is listed, never a refusal
        return reply if op.answer(reply) is not None else proceed(call)

    @classmethod
    def unfit(cls, declaration: Declaration) -> str | None:
        if declaration.get("inclusive") is None:
            return "the documents leave open whether the bound is inclusive: one step narrower is the other reading"
        if _decimal(declaration.get("step", 1)) is None:
            return "the bound's step is a period, not a number: narrowing it by one is not one step of the values"
        op = operations(declaration.api).get(declaration.subject)
        if op is not None and op.token is None:
            return ("the bound starts a range of a count asked for, not a list in pages: one step narrower shifts the "
                    "range, whose count at the end is another sentence's (widened, it is this one's alone)")
        return None

    def _wider(self, op: Operation, call: Any, proceed: Proceed, bound: Decimal) -> Decimal | None:
        step = _decimal(self.declaration.get("step", 1))
        if step is None:
            return None
        return bound + step if self.declaration.get("side") == "lower" else bound - step


def _decimal(value: Any) -> Decimal | None:
    number = members.number(value) if value is not None and not isinstance(value, bool) else None
    try:
        return Decimal(str(number)) if number is not None else None
    except InvalidOperation:
        return None


# Orders, labels, echoes, moments: right on the first page, wrong after it -----------------------------------------

class OrderReversed(Derived):
    """After the first page of a walk, each page lists its items in the reverse of the order asked for."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        reply = proceed(call)
        answer, path = op.answer(reply), op.list_of(effect)
        if not _ordered_as_declared(op, call, effect) or path is None \
                or len(items_at(answer, path)) < 2 or not op.later(call, answer):
            return reply
        return op.rewrite(reply, lambda changed: with_items(changed, path, items_at(changed, path)[::-1]))


class OrderSwappedOnPageOne(OrderReversed):
    """The first page of a walk lists its first and last items in each other's place (where they differ in the
    member ordered by); later pages are right: an order applied to all but the page's ends."""

    operator = "swapped_on_page_one"

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        reply = proceed(call)
        answer, path = op.answer(reply), op.list_of(effect)
        if not _ordered_as_declared(op, call, effect) or path is None or answer is None \
                or (op.token is not None and op.sent(call, op.token)):
            return reply
        listed = items_at(answer, path)
        if len(listed) < 2 or _ordered_by(effect, listed[0]) == _ordered_by(effect, listed[-1]):
            return reply

        def swapped(changed: Any) -> Any:
            items = items_at(changed, path)
            return with_items(changed, path, [items[-1], *items[1:-1], items[0]])
        return op.rewrite(reply, swapped)


def _ordered_as_declared(op: Operation, call: Any, effect: Declaration) -> bool:
    """Whether the order applies to `call`: the value that selects it was sent, or it is the route's own."""
    return effect.get("value") is None or text(op.sent(call, effect.name)) == text(effect.get("value"))


def _ordered_by(effect: Declaration, item: Any) -> Any:
    """The value an order's member (the first of its spellings the item has) holds in `item`."""
    named = effect.get("member")
    for member in named if isinstance(named, list) else [named]:
        found = members.first(item, str(member))
        if found is not None:
            return members.canonical(found)
    return None


class LabelMisnamed(Derived):
    """After the first page of a walk (on every answer of an operation without pages), the declared objects name
    another value than the one asked for."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        value = op.sent(call, effect.name)
        reply = proceed(call)
        answer = op.answer(reply)
        if value is None or answer is None or not op.later(call, answer):
            return reply
        other = self.another(op, call, value)
        wanted = tuple(members.paths_of(effect.get("component")))

        def misname(changed: Any) -> Any:
            for _, _, found in instances.instances(op.api, op.schema, changed, wanted):
                for path in members.paths_of(effect.get("member")):
                    put(found, path, other)
            return changed
        return op.rewrite(reply, misname)

    def another(self, op: Operation, call: Any, value: Any) -> Any:
        """A value the label must not show for `value`: another documented value that is not a spelling of it, else
        one of the same form."""
        table = self.table(op, call)
        normalise = Normaliser(case=self.declaration.get("case", "exact"))
        read = table.canonical if table is not None else (lambda v: v)
        for candidate in self._documented(op):
            if normalise(read(str(candidate))) != normalise(read(str(value))):
                return candidate
        return perturbed(value)

    def _documented(self, op: Operation) -> list[Any]:
        effect = self.declaration
        document = _document(op.api)
        found: list[Any] = []
        for component in members.paths_of(effect.get("component")):
            schema = specs.resolve(document, document.get("components", {}).get("schemas", {}).get(component, {}))
            for path in members.paths_of(effect.get("member")):
                found += specs.resolve(document, schema.get("properties", {}).get(path, {})).get("enum", [])
        return found + list(op.schema_of(effect.name).get("enum", []))


class EchoMisnamed(Derived):
    """The answer is not the one asked for: the object of the next value, or, where there is none, the object asked
    for naming another value in the member that must echo it."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        value = op.sent(call, effect.name)
        reply = proceed(call)
        if value is None or not isinstance(op.answer(reply), dict):
            return reply
        shifted = op.sending(call, effect.name, perturbed(value))
        other = proceed(shifted) if shifted is not None else None
        found = op.answer(other) if other is not None else None
        if isinstance(found, dict) and members.first(found, effect.get("member")) not in (None, value):
            return other

        def misname(changed: Any) -> Any:
            for path in members.paths_of(effect.get("member")):
                at_path(changed, path, perturbed)
            return changed
        return op.rewrite(reply, misname)


class MomentForgotten(Derived):
    """After the first page of a walk (on every answer of an operation without pages), the moment asked for is
    forgotten: the answer is the one for the latest moment."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        reply = proceed(call)
        answer = op.answer(reply)
        if op.sent(call, effect.name) is None or answer is None or not op.later(call, answer):
            return reply
        base = op.first_page(call, PROBE_PAGE) if op.items is not None else call
        latest = op.sending(base, effect.name, None) or op.sending(base, effect.name, now(op, effect))
        current = op.answer(proceed(latest)) if latest is not None else None
        if current is None:
            return reply
        if op.items is None:
            return op.answered(reply, current)
        now_items = items_at(current, op.items)
        return op.rewrite(reply, lambda changed: with_items(
            changed, op.items or "", [copy.deepcopy(_likest(item, now_items)) for item in items_at(changed, op.items)]))


class MomentInMilliseconds(MomentForgotten):
    """A moment given in UNIX seconds is read as milliseconds: the answer is the one for the moment a thousand
    times earlier (in January 1970)."""

    operator = "in_milliseconds"

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        sent = op.sent(call, effect.name)
        seconds = members.number(sent) if sent is not None and not isinstance(sent, bool) else None
        if not isinstance(seconds, int) or seconds < 1000:
            return proceed(call)
        early = op.sending(call, effect.name, _like(sent, Decimal(seconds // 1000)))
        return proceed(early if early is not None else call)

    @classmethod
    def unfit(cls, declaration: Declaration) -> str | None:
        if declaration.get("at") != "timestamp":
            return "the moment is a block, counted in blocks: it has no unit of time to be read in"
        return None


def now(op: Operation, effect: Declaration) -> Any:
    """The value that names the latest moment: the parameter's declared or documented default, else `latest`."""
    for declared in declarations.effects(effect.api, kind="default"):
        if declared.subject == effect.subject and declared.name == effect.name:
            return declared.get("value")
    return op.schema_of(effect.name).get("default", NOW)


def _likest(item: Any, candidates: list[Any]) -> Any:
    """The candidate sharing most members with `item` (the same object at another moment); `item` when none does."""
    if not isinstance(item, dict):
        return item
    scored = [(sum(1 for key, value in item.items() if isinstance(c, dict) and c.get(key) == value), index)
              for index, c in enumerate(candidates)]
    best = max(scored, default=(0, -1))
    return candidates[best[1]] if best[0] > 0 else item


# Defaults, spellings, projections, switches: two requests that must answer alike (or not) -----------------------

class DefaultMisapplied(Derived):
    """Left out, the parameter is applied as another of its values: the first one whose answer differs from the
    documented default's."""

    def touches(self, op: Operation, call: Any) -> bool:
        return super().touches(op, call) and op.sent(call, self.declaration.name) is None \
            and not (op.token and op.sent(call, op.token))

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        reply = proceed(call)
        answer = op.answer(reply)
        if answer is None:
            return reply
        plain = _without(answer, op.next_token)
        for other in self.candidates(op, answer):
            changed = op.sending(call, self.declaration.name, other)
            tried = proceed(changed) if changed is not None else None
            found = op.answer(tried) if tried is not None else None
            if found is not None and _without(found, op.next_token) != plain:
                return tried
        return reply

    def candidates(self, op: Operation, answer: Any) -> Iterator[Any]:
        """Other values of the parameter: its other documented values, the ends of its range, and the middle of the
        values another declaration of it reads from the items (a filter's value, a bound's median)."""
        effect = self.declaration
        schema = op.schema_of(effect.name)
        default = effect.get("value")
        yield from alternatives(schema, default)
        if schema.get("type") in ("number", "integer"):
            yield from (schema[key] for key in ("minimum", "maximum") if key in schema and text(schema[key]) != text(
                default))
        for other in declarations.checked(declarations.effects(effect.api)):
            if other.subject != effect.subject or other.name != effect.name or other.kind not in ("bound", "filter"):
                continue
            found = [v for item in items_at(answer, op.list_of(other))
                     for v in members.values(item, item_member(other)) if not isinstance(v, (dict, list))]
            if found and other.kind == "filter":
                yield [found[0]] if schema.get("type") == "array" else found[0]
            numbers = sorted(n for v in found if (n := _decimal(v)) is not None)
            if numbers and other.kind == "bound":
                yield _like(default if isinstance(default, (str, int, float)) else "", numbers[len(numbers) // 2])
        if isinstance(default, str) and not _DECIMAL.fullmatch(default):
            # a default named in words (a tag, `latest`): the first moments, named by number as either API writes them
            yield from ("0x0", "0x1", "1")


class DefaultLostAfterPageOne(DefaultMisapplied):
    """Left out, the parameter is applied as documented on the first page of a walk and as another of its values on
    every page after it: each later page holds items the other value lists and the documented default does not
    (none twice, so the walk's pages stay apart)."""

    operator = "lost_after_page_one"
    #: Pages of the walk followed from its first, to learn which page a call asks for and what the walk lists.
    MOST_PAGES = 20

    @classmethod
    def unfit(cls, declaration: Declaration) -> str | None:
        op = operations(declaration.api).get(declaration.subject)
        if op is None or op.token is None or op.items is None or op.size is None:
            return "the operation answers no pages: there is no page after the first"
        return None

    def touches(self, op: Operation, call: Any) -> bool:
        return Derived.touches(self, op, call) and op.sent(call, self.declaration.name) is None \
            and bool(op.token and op.sent(call, op.token))

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        reply = proceed(call)
        answer, path = op.answer(reply), op.items
        size = members.number(op.sent(call, op.size)) if op.size else None
        if answer is None or path is None or not isinstance(size, int) or size < 1:
            return reply
        walked = self._walked(op, call, proceed)
        if walked is None:
            return reply
        index, listed = walked
        largest = op.schema_of(op.size or "").get("maximum", 100)
        for other in self.candidates(op, answer):
            wider = op.sending(op.first_page(call, largest), self.declaration.name, other)
            found = op.answer(proceed(wider)) if wider is not None else None
            apart = [item for item in items_at(found, path) if text(item) not in listed] if found is not None else []
            page = apart[(index - 1) * size:index * size]
            if page:
                return op.answered(reply, with_items(copy.deepcopy(answer), path, copy.deepcopy(page)))
        return reply

    def _walked(self, op: Operation, call: Any, proceed: Proceed) -> tuple[int, set[str]] | None:
        """Which page of its walk `call` asks for (the first is 0), and every item the walk lists, read by
        following it from its first page."""
        token, page, index, listed = op.sent(call, op.token or ""), op.first_page(call), None, set()
        for at in range(self.MOST_PAGES):
            found = op.answer(proceed(page))
            if found is None or not op.next_token:
                break
            listed |= {text(item) for item in items_at(found, op.items)}
            following = found.get(op.next_token)
            if following == token:
                index = at + 1
            if not following:
                break
            page = op.sending(page, op.token or "", following)
        return (index, listed) if index is not None else None


def _without(answer: Any, member: str | None) -> Any:
    return {k: v for k, v in answer.items() if k != member} if isinstance(answer, dict) else answer


class SpellingAnsweredApart(Derived):
    """A value spelled another way the documents allow is answered unlike the value it stands for: without the
    list's first item, with one member changed where there is no list, and as an unknown resource where there is
    no item to leave out."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        value = op.sent(call, self.declaration.name)
        reply = proceed(call)
        if value is None or not self.respelled(op, call, value):
            return reply
        answer = op.answer(reply)
        if answer is not None and op.items is not None and items_at(answer, op.items):
            path = op.items
            return op.rewrite(reply, lambda changed: with_items(changed, path, items_at(changed, path)[1:]))
        if answer is not None and op.items is None:
            return op.rewrite(reply, lambda changed: leak(op, changed, (self.declaration.name, value)))
        # an empty list, or a refusal, differs only by its status: the service's own answer to an unknown resource
        refused = op.refused(call, proceed)
        return refused if refused != reply else reply


class ProjectionLeaks(Derived):
    """A value other than the default changes, besides the objects or members it projects, a member outside them."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        value = op.sent(call, effect.name)
        schema = op.schema_of(effect.name)
        reply = proceed(call)
        other = text(value) != text(schema["default"]) if "default" in schema else not members.falsy(value)
        if value is None or op.answer(reply) is None or not other:
            return reply
        return op.rewrite(reply, lambda changed: leak(op, changed, (effect.name, value), tuple(members.paths_of(
            effect.get("components"))), tuple(members.paths_of(effect.get("members"))), effect.rule))


class ProjectionUnconverted(ProjectionLeaks):
    """With a value other than the default, the objects it projects keep the numbers of the default's answer (on
    first pages, and on every answer of an operation without pages): named, not converted."""

    operator = "unconverted"

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        value, default = op.sent(call, effect.name), op.schema_of(effect.name).get("default")
        reply = proceed(call)
        answer = op.answer(reply)
        if value is None or default is None or text(value) == text(default) or answer is None \
                or (op.token is not None and op.sent(call, op.token)):
            return reply
        plain = op.sending(call, effect.name, default)
        unconverted = op.answer(proceed(plain)) if plain is not None else None
        if unconverted is None:
            return reply
        components = tuple(members.paths_of(effect.get("components")))
        kept = {pointer: instance for _, pointer, instance in instances.instances(
            op.api, op.schema, unconverted, components)}

        def change(changed: Any) -> Any:
            for _, pointer, instance in instances.instances(op.api, op.schema, changed, components):
                for name, number in (kept.get(pointer) or {}).items():
                    if members.number(number) is not None and not isinstance(number, bool) and name in instance:
                        instance[name] = copy.deepcopy(number)
            return changed
        return op.rewrite(reply, change)

    @classmethod
    def unfit(cls, declaration: Declaration) -> str | None:
        if not declaration.get("components"):
            return "the projection names members, not objects converted by a factor: nothing is converted"
        return None

    @classmethod
    def charged(cls, declaration: Declaration) -> tuple[str, ...]:
        """A value not converted breaks the sentence that says what the projected values are (`converts`)."""
        return (str(declaration.get("converts", declaration.rule)),)


class SwitchDropsItems(Derived):
    """The value of the switch that must include more leaves out an item the other value lists."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        effect = self.declaration
        more = effect.get("superset")
        reply = proceed(call)
        path = op.list_of(effect)
        listed = items_at(op.answer(reply), path)
        if text(op.sent(call, effect.name)) != text(more) or path is None or not listed:
            return reply
        narrow = op.sending(op.first_page(call), effect.name, not more)
        fewer = items_at(op.answer(proceed(narrow)), path) if narrow is not None else []
        shared = next((index for index, item in enumerate(listed) if item in fewer), None)
        if shared is None:
            return reply
        return op.rewrite(reply, lambda changed: with_items(
            changed, path, [item for index, item in enumerate(items_at(changed, path)) if index != shared]))


# Relations on the resources: invariants, identities, chronologies ---------------------------------------------------

class Relation(Derived):
    """A fault of a relation declared on a schema: it changes that schema's objects in the answers that show them."""

    def touches(self, op: Operation, call: Any) -> bool:
        return op.shows(self.declaration.subject)

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        reply = proceed(call)
        if op.answer(reply) is None:
            return reply
        request = {name: op.sent(call, name) for name in op.names()}

        def change(answer: Any) -> Any:
            found = [o for _, _, o in instances.instances(op.api, op.schema, answer, self.components())]
            self.change(found, request)
            return answer
        return op.rewrite(reply, change)

    def components(self) -> tuple[str, ...]:
        return (self.declaration.subject,)

    def change(self, found: list[dict[str, Any]], request: dict[str, Any]) -> None:
        pass


class InvariantBroken(Relation):
    """Each object is answered with one member the invariant reads changed until the invariant no longer holds (the
    schema's other invariants still holding where they did)."""

    def change(self, found: list[dict[str, Any]], request: dict[str, Any]) -> None:
        for instance in found:
            self.breaking(instance, request)

    def breaking(self, instance: dict[str, Any], request: dict[str, Any]) -> bool:
        """Whether the object could be changed so (it is left as it was when not)."""
        effect = self.declaration

        # read as the run's watch reads them, so that the fault breaks what the watch judges: at about the time the
        # answer will arrive, for an invariant that reads the clock
        context = {"now": time.time()}

        def verdicts() -> dict[int, bool]:
            return {id(i.declaration): ok
                    for i, ok in invariants.judged(effect.api, effect.subject, instance, request, context)}
        before = verdicts()
        if before.get(id(effect)) is not True:
            return False
        held = {key for key, ok in before.items() if ok and key != id(effect)}
        declared = invariants.by_component(effect.api)[effect.subject]
        for path in next(i.when for i in declared if i.declaration is effect):
            original = members.first(instance, path)
            for value in magnified(original):
                put(instance, path, value)
                after = verdicts()
                if after.get(id(effect)) is False and all(after.get(key) is True for key in held):
                    return True
            put(instance, path, original)
        return False


class InvariantBrokenOnSome(InvariantBroken):
    """About one object in three, picked by its content, is answered with one member the invariant reads changed
    until the invariant no longer holds; every other object is right (a relation broken on a subset of the items,
    as an implementation that computes one case apart). One object is answered alike by every route."""

    operator = "on_some"

    def change(self, found: list[dict[str, Any]], request: dict[str, Any]) -> None:
        for instance in found:
            if zlib.crc32(repr(instance).encode()) % 3 == 0:
                self.breaking(instance, request)


class IdentityBroken(Relation):
    """One member the identity compares is answered changed: on the last object of each answer (an object ends a
    page or a list in one answer and not in another), or, where the declaration names the calls that show its
    objects, by its later calls and by other methods (its first call's method answers as it should)."""

    def handle(self, op: Operation, call: Any, proceed: Proceed) -> Any:
        calls = self.declaration.get("seen_by") or []
        if isinstance(call, RpcCall) and calls and call.method == calls[0].get("method") and not any(
                later.get("method") == call.method and op.named(later.get("params")) == op.named(call.params)
                for later in calls[1:]):
            return proceed(call)
        return super().handle(op, call, proceed)

    def change(self, found: list[dict[str, Any]], request: dict[str, Any]) -> None:
        for instance in found if self.declaration.get("seen_by") else found[-1:]:
            path = compared_member(self.declaration, instance)
            if path is not None:
                at_path(instance, path, perturbed)


def compared_member(declaration: Declaration, instance: dict[str, Any]) -> str | None:
    """The member an identity compares that is best changed alone: a number or text no invariant or chronology of
    the schema reads (numbers first: one more keeps the form)."""
    identity = identities.Identity(declaration)
    read = {path for i in invariants.by_component(declaration.api).get(declaration.subject, ()) for path in i.when}
    read |= {str(c.get(key)) for c in identities.chronologies(declaration.api).get(declaration.subject, ())
             for key in ("by", "then")}
    names = [name for name in identity.compared(instance) if name not in read]
    scalar = [name for name in names if isinstance(members.first(instance, name), (str, int, float))
              and not isinstance(members.first(instance, name), bool)]
    numbers = [name for name in scalar if members.number(members.first(instance, name)) is not None]
    return next(iter(numbers or scalar), None)


class ChronologyBroken(Relation):
    """Each object's later member falls as its ordering member grows: the object ordered first comes last in time.
    Every schema whose objects are of the same kind is answered so, so that one object seen through two schemas is
    still answered alike."""

    def touches(self, op: Operation, call: Any) -> bool:
        return any(op.shows(component) for component in kin(self.declaration))

    def components(self) -> tuple[str, ...]:
        return kin(self.declaration)

    def change(self, found: list[dict[str, Any]], request: dict[str, Any]) -> None:
        effect = self.declaration
        for instance in found:
            by = members.number(members.first(instance, effect.get("by")))
            then = members.first(instance, effect.get("then"))
            seconds = members.instant(then)
            if by is None or seconds is None:
                continue
            # a function of the object alone: the same object is answered alike everywhere, only the order breaks;
            # in the past of the times it replaces (a time of the same number of digits, less one), so that what
            # relates a time to the answer's still holds
            digits = len(str(abs(int(seconds))))
            flipped = 10 ** (digits - 1) - int(by) if int(by) < 10 ** (digits - 1) else 10 ** digits - int(by)
            put(instance, str(effect.get("then")), _at(then, flipped))


def _at(then: Any, seconds: int) -> Any:
    """`seconds` in the form of the moment `then`: a number, a decimal or 0x string, or RFC 3339 text (its fraction
    and zone kept)."""
    if members.number(then) is not None:
        return _like(then, Decimal(seconds))
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + str(then)[19:]


def kin(declaration: Declaration) -> tuple[str, ...]:
    """The schemas whose objects are of the kind a relation declares (an identity or chronology of that kind)."""
    kind = declaration.get("kind")
    return tuple(sorted({d.subject for k in COMPARED for d in declarations.of_kind(k, declaration.api)
                         if d.get("kind") == kind} | {declaration.subject}))


# Deriving ---------------------------------------------------------------------------------------------------------

#: The mutation operators of each declaration kind: every way of breaking a declaration of that kind that the
#: reference applies to each one (the first is the kind's own; its faults keep the kind's name alone).
OPERATORS: dict[str, tuple[type[Derived], ...]] = {
    "filter": (FilterLetThrough, FilterAnswersAllForNothing),
    "bound": (BoundWidened, BoundNarrowed),
    "order": (OrderReversed, OrderSwappedOnPageOne),
    "label": (LabelMisnamed,),
    "echo": (EchoMisnamed,),
    "moment": (MomentForgotten, MomentInMilliseconds),
    "default": (DefaultMisapplied, DefaultLostAfterPageOne),
    "spelling": (SpellingAnsweredApart,),
    "projection": (ProjectionLeaks, ProjectionUnconverted),
    "switch": (SwitchDropsItems,),
    "invariant": (InvariantBroken, InvariantBrokenOnSome),
    "identity": (IdentityBroken,),
    "chronology": (ChronologyBroken,),
}
#: The kind's own fault of each declaration kind.
KINDS: dict[str, type[Derived]] = {kind: found[0] for kind, found in OPERATORS.items()}


def candidates() -> list[Declaration]:
    """Every declaration a fault is derived for, or listed as not derivable: the checked effects, the relations and
    the writes of every API."""
    found = [d for api in specs.ALL_APIS for d in declarations.checked(declarations.effects(api))]
    return found + [d for kind in (*RELATIONS, "write") for d in declarations.of_kind(kind)]


def not_derivable(declaration: Declaration) -> str | None:
    """Why no fault is derived for a declaration; None when one is."""
    if declaration.kind in NOT_DERIVABLE:
        return NOT_DERIVABLE[declaration.kind]
    if declaration.kind not in KINDS:
        return f"no fault is known for the kind {declaration.kind!r}"
    if declaration.kind not in RELATIONS and declaration.subject not in operations(declaration.api):
        return f"{declaration.subject} is not an operation of the {declaration.api} document"
    showing = [op for op in operations(declaration.api).values() if op.shows(declaration.subject)]
    if declaration.kind in COMPARED and not declaration.get("seen_by") and not any(op.items for op in showing):
        return UNSEEN["read once"]
    calls = declaration.get("seen_by") or []
    if declaration.kind == "identity" and calls and not any(
            _may_share(declaration.api, a, b) for index, a in enumerate(calls) for b in calls[index + 1:]):
        return UNSEEN["seen apart"]
    if declaration.kind == "identity" and (declaration.get("witness") or not any(
            _charged_here(declaration, op) for op in showing)):
        return UNSEEN["charged elsewhere"]
    if declaration.kind == "projection" and not _leaks_somewhere(declaration):
        return UNSEEN["every member read"]
    return None


def _leaks_somewhere(declaration: Declaration) -> bool:
    """Whether an answer of a projection's operation has a documented member outside what the projection changes
    that no relation reads: where the fault can change something the projection must leave alone."""
    op = operations(declaration.api)[declaration.subject]
    roots = [name for path, name in op.plan() if path == ()]
    if not roots:
        return True   # a bare value or an unnamed object: the leak changes it, read by no relation
    spared = set(members.paths_of(declaration.get("members"))) | set(declaration.get("components") or ())
    for root in roots:
        schema = specs.resolve(_document(declaration.api), {"$ref": f"#/components/schemas/{root}"})
        names = {name for part in [schema, *schema.get("allOf", [])] for name in
                 specs.resolve(_document(declaration.api), part).get("properties", {})}
        if any(name not in spared and _free(declaration.api, root, name, (declaration.name, declaration.rule))
               for name in names):
            return True
    return False


def _may_share(api: str, first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether two calls can show one object: calls of two methods can; two calls of one method can when they agree
    on every parameter that names the object asked for."""
    method = first.get("method")
    if method != second.get("method") or method not in operations(api):
        return True
    op = operations(api)[str(method)]
    naming = {d.name for d in declarations.effects(api) if d.subject == method and d.kind in ("echo", "selector")}
    one, other = op.named(first.get("params")), op.named(second.get("params"))
    return all(one.get(name) == other.get(name) for name in naming)


def _charged_here(declaration: Declaration, op: Operation) -> bool:
    """Whether two requests of `op` can show one object and differ in a parameter whose difference the watch
    charges to the identity's own rule."""
    if op.subject in (declaration.get("rules") or {}):
        return False
    elsewhere = set(members.paths_of(declaration.get("scope"))) | set(declaration.get("by_difference") or {})
    return bool(op.names() - elsewhere)


def names(found: list[Declaration]) -> list[str]:
    """A fault name for each declaration: `Derived_<subject>_<parameter>_<kind>`, and what sets it apart from a
    declaration of the same parameter and kind (its value, what it requires, its rule)."""
    def base(declaration: Declaration) -> str:
        return _identifier(f"{PREFIX}_{declaration.subject}_{declaration.name}_{declaration.kind}")
    counts: dict[str, int] = {}
    for declaration in found:
        counts[base(declaration)] = counts.get(base(declaration), 0) + 1
    out: list[str] = []
    for declaration in found:
        name = base(declaration)
        if counts[name] > 1:
            requires = declaration.get("requires") or {}
            apart = text(declaration.get("value")) if "value" in declaration.spec else \
                "with_" + "_".join(requires) if requires else declaration.rule
            name = _identifier(f"{name}_{apart}")
        # still alike (two declarations differing in nothing named here): numbered, so that none is lost
        out.append(name if name not in out else f"{name}_{out.count(name) + 1}")
    return out


def _identifier(name: str) -> str:
    return re.sub(r"\W", "_", name)


def describe(declaration: Declaration, operator: type[Derived] | None = None) -> str:
    """A fault's docstring: which declaration it breaks, then how."""
    where = f"{declaration.subject} objects" if declaration.kind in RELATIONS else declaration.subject
    return (f"{where}, {declaration.kind} {declaration.name} ({declaration.rule}): "
            f"{' '.join(((operator or KINDS[declaration.kind]).__doc__ or '').split())}")


def collateral(declaration: Declaration) -> tuple[str, ...]:
    """Rules a declaration's fault may break besides its own because their sentence is broken too: an identity's
    object answered two ways breaks what the declaration says of the requests it is compared between
    (`by_difference`, `rules`); an echo answered for a made-up object (where no other object can stand in) breaks
    what the identities of the answer's schema say of the member it changes."""
    if declaration.kind in COMPARED:
        # one object answered two ways breaks the sentence of whatever relates the two answers it is seen in
        related = [*(declaration.get("rules") or {}).values(), *(declaration.get("by_difference") or {}).values()]
        return tuple(rule for rule in dict.fromkeys(str(r) for r in related) if rule != declaration.rule)
    if declaration.kind == "projection":
        # a member changed outside the projection is one the objects' identities compare: another method's answer
        # showing the same object breaks the identity's sentence too (two requests that differ only in the
        # parameter are the projection's alone, by_difference)
        op = operations(declaration.api)[declaration.subject]
        roots = {name for path, name in op.plan() if path == ()}
        return tuple(dict.fromkeys(
            identity.declaration.rule for root in roots for identity in identities.by_component(declaration.api)
            .get(root, ()) if (identity.declaration.get("by_difference") or {}).get(declaration.name) ==
            declaration.rule and identity.declaration.rule != declaration.rule))
    if declaration.kind == "invariant":
        # a member changed until the relation breaks is one a chronology of the same objects may order by: a block
        # answered in the future is also out of order with the next one
        changed = set(members.paths_of(declaration.get("when")))
        return tuple(dict.fromkeys(
            chronology.rule for chronology in identities.chronologies(declaration.api).get(declaration.subject, ())
            if {chronology.get("by"), chronology.get("then")} & changed and chronology.rule != declaration.rule))
    if declaration.kind != "echo":
        return ()
    op = operations(declaration.api)[declaration.subject]
    found: list[str] = []
    for component in {name for path, name in op.plan() if path == ()}:
        for identity in identities.by_component(declaration.api).get(component, ()):
            declared = identity.declaration
            read = [*members.paths_of(declared.get("key")), *(declared.get("members") or [])]
            if declared.get("members") is None or any(path in read for path in members.paths_of(
                    declaration.get("member"))):
                found += [declared.rule, *(declared.get("rules") or {}).values(),
                          *(declared.get("by_difference") or {}).values()]
    return tuple(rule for rule in dict.fromkeys(found) if rule != declaration.rule)


def unfit(declaration: Declaration) -> dict[str, str]:
    """Operator -> why it is not applied to a declaration a fault is derived for (its reading allows the change)."""
    return {operator.operator: why for operator in OPERATORS[declaration.kind][1:]
            if (why := operator.unfit(declaration)) is not None}


def derive() -> dict[str, type[Derived]]:
    """A registered fault class for every operator of its kind applied to every declaration a fault is derived for,
    by name: `Derived_<subject>_<parameter>_<kind>` for the kind's own, and `_<operator>` after it for the others."""
    found = [d for d in candidates() if not_derivable(d) is None]
    out: dict[str, type[Derived]] = {}
    for name, declaration in zip(names(found), found):
        skipped = unfit(declaration)
        for operator in OPERATORS[declaration.kind]:
            if operator.operator in skipped:
                continue
            called = f"{name}_{operator.operator}" if operator.operator else name
            cls = type(called, (operator,), {
                "__doc__": describe(declaration, operator), "__module__": __name__, "declaration": declaration,
                "breaks": operator.charged(declaration), "also": collateral(declaration)})
            register(cls)
            out[called] = cls
    return out


DERIVED = derive()
