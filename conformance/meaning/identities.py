"""One object seen through many answers: a run-wide map from each identified object to what it was first seen as.

A schema declares (`x-identity`) what names its objects: a kind shared across schemas (`transaction`, `block`,
`container`), the members that form the key, the request parameters the key is relative to (`scope`: a network, a
chain, an index path), and the members that may change over time (`volatile`) or the only ones compared
(`members`). The same object seen again, on any route, must agree on every member both answers show. A schema may
also declare (`x-chronology`) an order in time its objects keep: objects of one kind ordered by one member (a
block number, a container index) are ordered alike by another (a timestamp).

What is kept per object is a digest and a short text of each member, and the exchange that showed it: a long
run's map weighs little, and it adds no request until two answers disagree, when the earlier one is asked again
(a live target may have moved).
"""
from __future__ import annotations

import bisect
import hashlib
import json
import threading
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from collections.abc import Callable, Iterator

from conformance.meaning import members
from conformance.meaning.declarations import Declaration, of_kind

#: Objects the map holds at most; past it, new objects are not remembered (those already held are still compared).
MAX_OBJECTS = 200_000
#: Fingerprinted objects remembered at most, before the memo starts again.
PRINTS_KEPT = 50_000
#: Characters of a member's value kept to show in a report.
SHOWN = 120


def _fingerprint(value: Any) -> tuple[Any, str]:
    """What one member is compared by, and the text a report shows of it: a number or a short text is its own
    fingerprint; anything larger, a digest of its canonical JSON."""
    found = members.canonical(value)
    if isinstance(found, (int, float, bool)) or isinstance(found, str) and len(found) <= SHOWN:
        return found, str(found)
    text = json.dumps(found, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest(), text[:SHOWN]


@dataclass
class Seen:
    """An object as first seen: each compared member's fingerprint, the exchange that showed it, and the operation
    and request parameters of that answer (a disagreement is charged by what differs between the two requests)."""

    members: dict[str, tuple[Any, str]]
    exchange: Any   # the Exchange (kept to ask again, and to name in a report)
    subject: str = ""
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Identity:
    declaration: Declaration

    @property
    def kind(self) -> str:
        return str(self.declaration.get("kind"))

    def key(self, instance: dict[str, Any], scope: tuple[Any, ...], pointer: str = "") -> tuple[Any, ...] | None:
        """The object's key; `@key` names the member name the object is the value of in its map (a logger's levels
        under its name), read from its JSON `pointer`."""
        parts = [_map_key(pointer) if path == MAP_KEY else members.first(instance, path)
                 for path in members.paths_of(self.declaration.get("key"))]
        # A request whose scope parameter is an object or a list (an invalid parameter the target accepted) names
        # no scope: what it answers is compared with nothing.
        if any(part is None or isinstance(part, (dict, list)) for part in parts) \
                or any(isinstance(value, (dict, list)) for value in scope):
            return None
        return (self.kind, scope, *(members.canonical(part) for part in parts))

    def compared(self, instance: dict[str, Any]) -> dict[str, tuple[Any, str]]:
        only = self.declaration.get("members")
        volatile = set(self.declaration.get("volatile", ()))
        keys = set(members.paths_of(self.declaration.get("key")))
        names = only if only is not None else [name for name in instance if name not in volatile]
        out = {}
        for name in names:
            if name in keys or name in volatile:
                continue
            value = members.first(instance, name) if "." in name else instance.get(name)
            if value is None:
                continue
            out[name] = _fingerprint(_without(value, [v.split(".", 1)[1] for v in volatile
                                                      if v.startswith(name + ".")]))
        return out


#: The key member that stands for the name an object has in the map that holds it.
MAP_KEY = "@key"


def _map_key(pointer: str) -> str | None:
    """The last step of a JSON pointer, unescaped: the name of a map's value (None at the top of an answer)."""
    if not pointer or pointer == "/":
        return None
    return pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")


def _without(value: Any, paths: list[str]) -> Any:
    """`value` without the nested members `paths` names (a token's price inside a transfer)."""
    if not paths or not isinstance(value, dict):
        return value
    out = dict(value)
    for path in paths:
        head, _, rest = path.partition(".")
        if rest and isinstance(out.get(head), dict):
            out[head] = _without(out[head], [rest])
        else:
            out.pop(head, None)
    return out


@cache
def by_component(api: str) -> dict[str, tuple[Identity, ...]]:
    out: dict[str, list[Identity]] = {}
    for declaration in of_kind("identity", api):
        out.setdefault(declaration.subject, []).append(Identity(declaration))
    return {name: tuple(found) for name, found in out.items()}


@cache
def chronologies(api: str) -> dict[str, tuple[Declaration, ...]]:
    out: dict[str, list[Declaration]] = {}
    for declaration in of_kind("chronology", api):
        out.setdefault(declaration.subject, []).append(declaration)
    return {name: tuple(found) for name, found in out.items()}


@dataclass
class Disagreement:
    declaration: Declaration
    key: tuple[Any, ...]
    differing: dict[str, tuple[Any, str]]    # member -> (first seen, seen now)
    earlier: Seen
    later: Any


@dataclass
class IdentityMap:
    """The run's map of identified objects, shared by every thread."""

    objects: dict[tuple[Any, ...], Seen] = field(default_factory=dict)
    #: chronology key (kind, scope, declaration id) -> sorted [(order value, time value, exchange number)]
    orders: dict[tuple[Any, ...], list[tuple[float, float, int]]] = field(default_factory=dict)
    #: exchange number -> (operation, request parameters) of the answers chronologies placed objects from
    sources: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: (identity, object) -> its compared members: the same object on many pages is fingerprinted once
    prints: dict[tuple[str, int], dict[str, tuple[Any, str]]] = field(default_factory=dict)

    def compared(self, identity: Identity, instance: dict[str, Any],
                 seen_as: int | None = None) -> dict[str, tuple[Any, str]]:
        """`identity.compared(instance)`, remembered for objects seen before (by their text; `seen_as`: its hash,
        when the caller has it)."""
        key = (identity.declaration.id, hash(repr(instance)) if seen_as is None else seen_as)
        found = self.prints.get(key)
        if found is None:
            if len(self.prints) >= PRINTS_KEPT:
                self.prints.clear()
            found = self.prints[key] = identity.compared(instance)
        return found

    def see(self, identity: Identity, key: tuple[Any, ...], instance: dict[str, Any], exchange: Any,
            subject: str = "", params: dict[str, Any] | None = None, seen_as: int | None = None,
            ) -> Disagreement | bool:
        """Records or compares one sighting: False for a first sighting, True when it agrees, else the
        disagreement (the map keeps the first sighting until it is replaced)."""
        now = self.compared(identity, instance, seen_as)
        with self.lock:
            seen = self.objects.get(key)
            if seen is None:
                if len(self.objects) < MAX_OBJECTS:
                    self.objects[key] = Seen(now, exchange, subject, dict(params or {}))
                return False
            if seen.exchange is exchange:
                return False   # the same answer read twice
            differing = {name: (seen.members[name][1], print_) for name, (digest, print_) in now.items()
                         if name in seen.members and seen.members[name][0] != digest}
            if not differing:
                return True
            return Disagreement(identity.declaration, key, differing, seen, exchange)

    def replace(self, identity: Identity, key: tuple[Any, ...], instance: dict[str, Any], exchange: Any,
                subject: str = "", params: dict[str, Any] | None = None) -> None:
        with self.lock:
            self.objects[key] = Seen(self.compared(identity, instance), exchange, subject, dict(params or {}))

    def place(self, declaration: Declaration, scope: tuple[Any, ...], instance: dict[str, Any], number: int,
              source: tuple[str, dict[str, Any]] | None = None,
              ) -> tuple[tuple[float, float, int], tuple[float, float, int]] | None | bool:
        """Places an object in its chronology: None when it shows neither member as a number, True when it keeps
        the order with its neighbours, else (its neighbour, itself) for the pair out of order."""
        by = members.number(members.first(instance, declaration.get("by")))
        then = members.instant(members.first(instance, declaration.get("then")))
        if by is None or then is None:
            return None
        entry = (float(by), float(then), number)
        # one line per kind of object: the blocks every schema that names one shows are ordered together
        line_key = (declaration.get("kind"), declaration.get("by"), declaration.get("then"), scope)
        with self.lock:
            line = self.orders.setdefault(line_key, [])
            at = bisect.bisect_left(line, (entry[0], float("-inf"), -1))
            if at < len(line) and line[at][0] == entry[0]:
                return True   # placed already (its identity compares the rest)
            before = line[at - 1] if at > 0 else None
            after = line[at] if at < len(line) else None
            if len(line) < MAX_OBJECTS:
                line.insert(at, entry)
                if source is not None and len(self.sources) < MAX_OBJECTS:
                    self.sources.setdefault(number, source)
        if before is not None and before[1] > entry[1]:
            return before, entry
        if after is not None and after[1] < entry[1]:
            return entry, after
        return True


def charged_rule(disagreement: Disagreement, subject: str, params: dict[str, Any]) -> str:
    """The rule a disagreement between two answers is charged to, by what differs between their requests: a
    parameter spelled two ways (an alias and the ID it stands for) is that spelling's rule; requests that differ only
    in parameters named under `by_difference` are those parameters' rule; a route compared with
    the declared witness route is that route's own rule (`rules`); anything else is the identity's rule."""

    declaration = disagreement.declaration
    earlier = disagreement.earlier
    spelled = spelling_rule(declaration, (earlier.subject, earlier.params), (subject, params))
    if spelled is not None:
        return spelled
    by_difference = declaration.get("by_difference") or {}
    differing = {name for name in set(earlier.params) | set(params) if earlier.params.get(name) != params.get(name)}
    if differing and differing <= set(by_difference):
        # only when nothing else differs: two windows read a page apart still differ by their window first
        return str(by_difference[min(differing)])
    rules = declaration.get("rules") or {}
    witness = declaration.get("witness")
    if earlier.subject == subject and subject in rules:   # one route answering one object two ways
        return str(rules[subject])
    if witness in (subject, earlier.subject):
        other = earlier.subject if subject == witness else subject
        if other in rules:
            return str(rules[other])
    return str(rules.get(subject) or rules.get(earlier.subject) or declaration.rule)


def spelling_rule(declaration: Declaration, one: tuple[str, dict[str, Any]], other: tuple[str, dict[str, Any]],
                  ) -> str | None:
    """The rule of a spelling effect when two answers of one route differ only in how a scope parameter is spelled
    (an alias and the chain ID it stands for): what they disagree on is that spelling's deviation."""
    from conformance.meaning.declarations import effects

    (subject, params), (other_subject, other_params) = one, other
    if subject != other_subject:
        return None
    for name in members.paths_of(declaration.get("scope")):
        if params.get(name) != other_params.get(name):
            for effect in effects(declaration.api, kind="spelling"):
                if effect.name == name and effect.subject == subject:
                    return effect.rule
    return None


def witness_rule(declaration: Declaration, earlier: Seen, subject: str, *, earlier_agrees: bool,
                 later_agrees: bool) -> str | None:
    """The rule of the route the declared witness route contradicts, when exactly one of the two does."""
    rules = declaration.get("rules") or {}
    if earlier_agrees and not later_agrees:
        return rules.get(subject)
    if later_agrees and not earlier_agrees:
        return rules.get(earlier.subject)
    return None


def scope_of(declaration: Declaration, params: dict[str, Any], canonical: Callable[[str, Any], Any]
             ) -> tuple[Any, ...]:
    """The values of the declaration's scope parameters in a request, each read through its spelling table."""
    return tuple(canonical(name, params.get(name)) for name in members.paths_of(declaration.get("scope")))


def instances_of(component_identities: dict[str, tuple[Identity, ...]], found: Iterator[tuple[str, str, Any]]
                 ) -> Iterator[tuple[Identity, str, dict[str, Any]]]:
    for component, pointer, instance in found:
        for identity in component_identities.get(component, ()):
            yield identity, pointer, instance
