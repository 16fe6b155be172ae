"""Relations nobody declared: likely invariants mined from a run's answers, each to be declared or set aside.

In the spirit of Daikon and AGORA (ISSTA 2023): the answers a run archived (`--har FILE`) are read as documented
answers (`answers.answer_of`), the objects of every named schema found in them (`instances.instances`), and over
all distinct objects of one component the miner proposes the relations that held on every one:

- orderings and equalities of two numeric members (`a <= b`, `a < b`, `a == b`), read as `members.number` reads
  them (decimal text, 0x hex; a 0x text of an address's length or more is an identifier, not a quantity);
- exact linear relations, `a == k * b` and `a == b + c` (exact fractions: no rounding makes one hold);
- a UNIX-seconds member never later than the answer's arrival, `a <= now`;
- the bounds a member of fractional values (a percentage, a fraction, a price) never leaves and its schema does
  not state: `0 <= a <= 1`, `0 <= a <= 100`, `0 <= a`.

Only relations of the objects are proposed, not of the data's ranges or constants: a member with one value, a
member against itself, a relation chance would explain as well (pairing one object's member with any other
object's keeps it nearly as often: a small count below a timestamp), one inside a nested object of a component of
its own (mined there), and one the others imply (transitively, through an equality, a ratio or a sum) are left
out; a component needs `MIN_OBJECTS` distinct objects before anything is said of it.

Each candidate is then `declared` (an `x-invariant` of its component names exactly its members in `when` and
states its kind of relation) or looked up in `specs/mined.yaml`, where every other candidate found on the
reference's answers is listed with a verdict: `not backed` (and `why` the documents leave it open) or `to declare`
(with the `quote` that backs it). `tests/test_miner.py` mines a quick run of the reference and fails naming any
candidate in neither, and any entry no longer found, so the file stays current.
`python -m conformance.meaning.miner HAR_FILE [--now reference]` prints the candidates of an archive with their
verdicts.
"""
from __future__ import annotations

import argparse
import base64
import bisect
import collections
import datetime as dt
import hashlib
import itertools
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from conformance import specs
from conformance.clients.http import Exchange
from conformance.meaning import instances, invariants, members
from conformance.meaning.answers import answer_of
from conformance.meaning.declarations import Declaration

#: Distinct objects of a component (showing the members compared) below which nothing is proposed: a relation
#: that held on a handful of objects is the data's chance more often than the service's rule.
MIN_OBJECTS = 20
#: Nested objects followed inside one object (`genesisData.config.chainId`); arrays are not followed, their items
#: are objects of components of their own.
MAX_NESTING = 2
#: A 0x text with this many hex digits or more is an address (40) or a hash (64): it names, it does not count.
IDENTIFIER_DIGITS = 40
#: 2000-01-01T00:00:00Z: a member whose values all lie between this and the answer's arrival reads as UNIX seconds.
EPOCH_FLOOR = 946_684_800
#: Where the verdicts on mined candidates are kept.
LISTING = "mined.yaml"
VERDICTS = ("not backed", "to declare")


# What was seen ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Seen:
    """One distinct object of a component: its numeric members by dotted path (None: present but not a number,
    which keeps the member out of every relation), and the earliest time an answer showing it arrived."""

    values: Mapping[str, Decimal | None]
    arrived: float | None = None

    @classmethod
    def of(cls, instance: Mapping[str, Any], arrived: float | None = None) -> Seen:
        """An object read without a schema: every member counts (for objects made up by hand)."""
        return cls(numbers(instance), arrived)


def quantity(value: Any) -> Decimal | None:
    """A member's value as an exact number, as `members.number` reads it; None for anything that is not one (an
    address or a hash is an identifier: it is not compared with amounts)."""
    if isinstance(value, str) and value[:2].lower() == "0x" and len(value) - 2 >= IDENTIFIER_DIGITS:
        return None
    found = members.number(value)
    if found is None:
        return None
    try:
        # decimal text exactly as written (a float would round "0.1" or an amount of 30 digits); a float by its
        # shortest text, so 0.1 is 0.1; an integer from hex as it is
        exact = Decimal(value.strip()) if isinstance(value, str) and isinstance(found, float) else \
            Decimal(repr(found)) if isinstance(found, float) else Decimal(found)
    except InvalidOperation:
        return None
    return exact if exact.is_finite() else None


def numbers(instance: Mapping[str, Any], api: str | None = None, schema: Any = None) -> dict[str, Decimal | None]:
    """The members of `instance` (and of its nested objects, `MAX_NESTING` deep) that are not arrays or objects,
    as quantities by dotted path. With a schema, only the members it names: what the documents describe, and never
    the keys of a map (an address is not a member's name)."""
    out: dict[str, Decimal | None] = {}
    _flatten(instance, api, schema, "", 0, out)
    return out


def _flatten(value: Mapping[str, Any], api: str | None, schema: Any, prefix: str, depth: int,
             out: dict[str, Decimal | None]) -> None:
    named = _named(api, schema) if api is not None else None
    for name, member in value.items():
        if member is None or named is not None and name not in named:
            continue
        path = prefix + name
        if isinstance(member, dict):
            if depth < MAX_NESTING:
                _flatten(member, api, named.get(name) if named is not None else None, path + ".", depth + 1, out)
        elif not isinstance(member, list):
            out[path] = quantity(member)


def _named(api: str | None, schema: Any) -> dict[str, Any]:
    """Member name -> its schema, of a schema and every part it is made of (the first part naming it wins); read
    once per schema object of the specs (every object of a component is read through the same ones)."""
    if api is None or not isinstance(schema, dict):
        return {}
    kept = _NAMED.get((api, id(schema)))
    if kept is not None and kept[0] is schema:
        return kept[1]
    out: dict[str, Any] = {}
    for part in instances._parts(api, schema):   # the same reading of $ref and allOf/oneOf/anyOf as `documented`
        for name, member in part.get("properties", {}).items():
            out.setdefault(name, member)
    _NAMED[(api, id(schema))] = (schema, out)
    return out


_NAMED: dict[tuple[str, int], tuple[Any, dict[str, Any]]] = {}


@cache
def _component_schema(component: str) -> dict[str, str]:
    """A reference to the component, one object per name: what `_named` keeps its reading of."""
    return {"$ref": f"#/components/schemas/{component}"}


def read_har(path: str | Path) -> Iterator[Exchange]:
    """The exchanges of a HAR archive as the run's HTTP session saw them (conformance.reporting.har wrote them):
    enough of each for `answer_of`. A body the archive holds only the ends of (its comment says so) is left out."""
    archive = json.loads(Path(path).read_text(encoding="utf-8"))
    for entry in archive.get("log", {}).get("entries", []):
        exchange = _exchange(entry)
        if exchange is not None:
            yield exchange


def _exchange(entry: Mapping[str, Any]) -> Exchange | None:
    request, response = entry.get("request", {}), entry.get("response", {})
    content = response.get("content", {})
    if content.get("comment") or "text" not in content:
        return None   # a large body cut to its ends is not JSON any more
    text = content["text"]
    body = base64.b64decode(text) if content.get("encoding") == "base64" else text.encode("utf-8")
    posted = request.get("postData", {}).get("text")
    try:
        sent = dt.datetime.fromisoformat(entry["startedDateTime"]).timestamp()
    except (KeyError, ValueError):
        sent = 0.0
    return Exchange(
        request.get("method", "GET"), request.get("url", ""),
        {header["name"]: header["value"] for header in request.get("headers", [])},
        posted.encode("utf-8") if posted is not None else None,
        status=response.get("status") or None,
        # the session keeps response headers in lower case (content_type reads them so)
        response_headers={header["name"].lower(): header["value"] for header in response.get("headers", [])},
        body=body, elapsed=float(entry.get("time", 0)) / 1000, number=int(entry.get("_id", 0)), sent_at=sent)


Observed = dict[tuple[str, str], list[Seen]]


def observe(exchanges: Iterable[Exchange], now: float | None = None) -> Observed:
    """(api, component) -> every distinct object of it the answers showed. One object seen in many answers counts
    once (twenty answers showing one validator are not twenty validators), with the earliest arrival: the one
    that tests `a <= now` hardest. `now`, when given, is the moment of every answer instead of its arrival: the
    clock of a simulated world (the embedded reference's stands still, months before the wall's, and a member
    it serves in its own future would otherwise pass for one in the past)."""
    found: dict[tuple[str, str], dict[bytes, Seen]] = {}
    for exchange in exchanges:
        answer = answer_of(exchange)
        if answer is None:
            continue
        arrived = now if now is not None else (exchange.sent_at + exchange.elapsed if exchange.sent_at else None)
        for component, _, instance in instances.instances(answer.api, answer.schema, answer.value):
            digest = hashlib.blake2b(json.dumps(instance, sort_keys=True, default=str).encode(),
                                     digest_size=16).digest()
            objects = found.setdefault((answer.api, component), {})
            earlier = objects.get(digest)
            if earlier is None:
                objects[digest] = Seen(numbers(instance, answer.api, _component_schema(component)), arrived)
            elif arrived is not None and (earlier.arrived is None or arrived < earlier.arrived):
                objects[digest] = Seen(earlier.values, arrived)
    return {key: list(objects.values()) for key, objects in found.items()}


# Candidates ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """A relation that held on every object of a component that shows its members."""

    api: str
    component: str
    kind: str                  # order, equal, ratio, sum, now, bound
    relation: str              # as written in specs/mined.yaml: "a <= b", "a == 2 * b", "0 <= a <= 100"
    members: tuple[str, ...]
    support: int               # the objects it held on
    strict: bool = False       # an ordering that never met equality (`<`)
    factor: Fraction = Fraction(1)   # k of `a == k * b`

    @property
    def key(self) -> tuple[str, str, str]:
        return self.api, self.component, self.relation

    def __str__(self) -> str:
        return f"{self.api} {self.component}: {self.relation}"


@dataclass
class _Members:
    """The numeric members of one component's objects, as columns: member -> {object's place: value}."""

    api: str
    component: str
    seen: list[Seen]
    minimum: int
    paths: list[str] = field(default_factory=list)
    columns: dict[str, dict[int, Decimal]] = field(default_factory=dict)
    _places: dict[tuple[str, ...], list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        refused: set[str] = set()
        for place, one in enumerate(self.seen):
            for path, value in one.values.items():
                if value is None:
                    refused.add(path)
                else:
                    self.columns.setdefault(path, {})[place] = value
        # a member that is sometimes not a number, seen too rarely, or with one value says nothing of the others
        self.paths = sorted((path for path, column in self.columns.items()
                             if path not in refused and len(column) >= self.minimum
                             and len(set(column.values())) > 1),
                            key=lambda path: (path.count("."), path))

    def places(self, *paths: str) -> list[int]:
        """The objects (by place) that show every one of `paths`; a pair's worked out once, as every kind of
        relation reads it."""
        found = self._places.get(paths)
        if found is None:
            columns = [self.columns[path] for path in paths]
            found = sorted(set(columns[0]).intersection(*columns[1:]))
            if len(paths) <= 2:
                self._places[paths] = found
        return found

    def rows(self, *paths: str) -> list[tuple[Decimal, ...]]:
        """The values of `paths` in each object that shows all of them."""
        columns = [self.columns[path] for path in paths]
        return [tuple(column[place] for column in columns) for place in self.places(*paths)]

    def candidate(self, kind: str, relation: str, paths: tuple[str, ...], support: int, **details: Any) -> Candidate:
        return Candidate(self.api, self.component, kind, relation, paths, support, **details)


def mine(observed: Observed, minimum: int = MIN_OBJECTS) -> list[Candidate]:
    """The candidates of every component with at least `minimum` distinct objects, in API and component order."""
    out: list[Candidate] = []
    for (api, component), seen in sorted(observed.items()):
        if len(seen) >= minimum:
            out += candidates_of(api, component, seen, minimum)
    return out


def candidates_of(api: str, component: str, seen: list[Seen], minimum: int = MIN_OBJECTS) -> list[Candidate]:
    """The relations that held on every object of one component, without those implied by the others."""
    found = _Members(api, component, seen, minimum)
    equal, representative = _equalities(found)
    paths = [path for path in found.paths if representative[path] == path]
    orders = _orderings(found, paths)
    ratios = _ratios(found, paths)
    sums = _sums(found, paths)
    orders = _pruned_orders(orders, ratios, sums, found)
    past = _past(found, paths, orders)
    bounds = _bounds(found, paths)
    return [candidate for candidate in equal + orders + ratios + sums + past + bounds
            if not _within_nested(api, component, candidate.members)]


def _within_nested(api: str, component: str, paths: tuple[str, ...]) -> bool:
    """Whether every member a relation names lies inside one nested object of a named schema (`metadata.…` of a
    token, `price.…` of a balance): that object is mined as its own component, which proposes the relation once."""
    if api not in specs.ALL_APIS:
        return False
    shared = _common_prefix([tuple(path.split(".")[:-1]) for path in paths])
    named = {path for path, _ in instances.plan(api, instances.response_root(_component_schema(component)))}
    return any(shared[:length] in named for length in range(1, len(shared) + 1))


def _common_prefix(steps: list[tuple[str, ...]]) -> tuple[str, ...]:
    shared = steps[0]
    for other in steps[1:]:
        length = next((i for i, (a, b) in enumerate(zip(shared, other)) if a != b), min(len(shared), len(other)))
        shared = shared[:length]
    return shared


def _equalities(found: _Members) -> tuple[list[Candidate], dict[str, str]]:
    """`a == b` of every pair that never differs, and each member's representative: the first member of its class
    of equal ones, which alone takes part in every other relation (the others' would be implied)."""
    representative = {path: path for path in found.paths}
    out = []
    for a, b in itertools.combinations(found.paths, 2):
        if representative[b] != b or representative[a] != a:
            continue
        rows = found.rows(a, b)
        if len(rows) >= found.minimum and all(x == y for x, y in rows) and _unlikely(rows, "=="):
            representative[b] = a
            out.append(found.candidate("equal", f"{a} == {b}", (a, b), len(rows)))
    return out, representative


def _orderings(found: _Members, paths: list[str]) -> list[Candidate]:
    """`a <= b` or `a < b` of every pair one side of which never exceeds the other, unless chance explains it."""
    out = []
    for first, second in itertools.combinations(paths, 2):
        rows = found.rows(first, second)
        if len(rows) < found.minimum:
            continue
        for a, b, pairs in ((first, second, rows), (second, first, [(y, x) for x, y in rows])):
            if not all(x <= y for x, y in pairs):
                continue
            strict = all(x < y for x, y in pairs)
            operator = "<" if strict else "<="
            if _unlikely(pairs, operator):
                out.append(found.candidate("order", f"{a} {operator} {b}", (a, b), len(pairs), strict=strict))
    return out


#: How likely a relation may be to hold by chance alone and still be proposed (Daikon's default confidence).
CHANCE = 0.01


def _unlikely(pairs: Sequence[tuple[Decimal, ...]], operator: str) -> bool:
    """Whether `x operator y` holding on every object says something of the objects: it would hold on as many by
    chance, were one object's two members unrelated, with the probability of a pairing of any object's x with any
    object's y keeping it, to the power of the objects. Every value of a below every value of b, say (a count and
    a timestamp): every pairing keeps it, and it says nothing of how one object's members relate."""
    ys = sorted(y for _, y in pairs)
    if operator == "==":
        counted = collections.Counter(ys)
        kept = sum(counted[x] for x, _ in pairs)
    else:
        # the pairings of x with a y at or above it (above it, for <): the ys from x's first place on (past its last)
        place = bisect.bisect_right if operator == "<" else bisect.bisect_left
        kept = sum(len(ys) - place(ys, x) for x, _ in pairs)
    share = kept / len(pairs) ** 2
    return bool(share ** len(pairs) < CHANCE)


def _ratios(found: _Members, paths: list[str]) -> list[Candidate]:
    """`a == k * b` for a constant k other than 0 and 1, exactly on every object; written with |k| > 1."""
    out = []
    for first, second in itertools.combinations(paths, 2):
        rows = found.rows(first, second)
        if len(rows) < found.minimum or any(x == 0 or y == 0 for x, y in rows):
            continue
        ratios = {Fraction(x) / Fraction(y) for x, y in rows}
        if len(ratios) != 1:
            continue
        k = ratios.pop()
        a, b = (first, second) if abs(k) > 1 else (second, first)
        k = k if abs(k) > 1 else 1 / k
        out.append(found.candidate("ratio", f"{a} == {_fraction(k)} * {b}", (a, b), len(rows), factor=k))
    return out


def _fraction(k: Fraction) -> str:
    """k as a whole number, a decimal when it is one exactly, else p/q."""
    if k.denominator == 1:
        return str(k.numerator)
    try:
        exact = Decimal(k.numerator) / Decimal(k.denominator)
    except ArithmeticError:
        return f"{k.numerator}/{k.denominator}"
    return str(exact) if Fraction(exact) == k else f"{k.numerator}/{k.denominator}"


def _sums(found: _Members, paths: list[str]) -> list[Candidate]:
    """`a == b + c` of three distinct members, exactly on every object."""
    out = []
    for b, c in itertools.combinations(paths, 2):
        pairs = found.places(b, c)
        if len(pairs) < found.minimum:
            continue
        second, third = found.columns[b], found.columns[c]
        for a in paths:
            first = found.columns[a]
            places = [place for place in pairs if place in first]
            if a in (b, c) or len(places) < found.minimum:
                continue
            if all(first[place] == second[place] + third[place] for place in places):
                out.append(found.candidate("sum", f"{a} == {b} + {c}", (a, b, c), len(places)))
    return out


def _pruned_orders(orders: list[Candidate], ratios: list[Candidate], sums: list[Candidate],
                   found: _Members) -> list[Candidate]:
    """The orderings no other relation implies: not `a <= c` when `a <= b` and `b <= c` were found (strictly
    when it is strict), nor `b <= a` when `a == b + c` with c never negative, or `a == k * b` with k > 1 and b
    never negative (never zero either, for `<`)."""
    strict = {(o.members[0], o.members[1]): o.strict for o in orders}

    def never_below(path: str, strictly: bool) -> bool:
        """Whether `path` is never negative (never zero either, `strictly`)."""
        return all(row[0] > 0 if strictly else row[0] >= 0 for row in found.rows(path))

    implied: set[tuple[str, str]] = set()
    for (a, c), is_strict in strict.items():
        for b in {y for x, y in strict if x == a} & {x for x, y in strict if y == c}:
            if not is_strict or strict[(a, b)] or strict[(b, c)]:
                implied.add((a, c))
    for relation in sums:
        total, first, second = relation.members
        for term, other in ((first, second), (second, first)):
            if (term, total) in strict and never_below(other, strict[(term, total)]):
                implied.add((term, total))
    for relation in ratios:
        a, b = relation.members
        if relation.factor > 1 and (b, a) in strict and never_below(b, strict[(b, a)]):
            implied.add((b, a))
    return [o for o in orders if (o.members[0], o.members[1]) not in implied]


def _past(found: _Members, paths: list[str], orders: list[Candidate]) -> list[Candidate]:
    """`a <= now` for a member that reads as UNIX seconds (every value after 2000 began) and was never later than
    the arrival of the answer that showed it; not one below another member that is itself never later (implied)."""
    held = []
    for path in paths:
        arrivals = [found.seen[place].arrived for place in found.columns[path]]
        rows = [(value, Decimal(arrived)) for value, arrived in zip(found.columns[path].values(), arrivals)
                if arrived is not None]
        if len(rows) >= found.minimum and all(EPOCH_FLOOR <= value <= now for value, now in rows):
            held.append((path, len(rows)))
    past = {path for path, _ in held}
    below = {o.members[0] for o in orders if o.members[1] in past}
    return [found.candidate("now", f"{path} <= now", (path,), count) for path, count in held if path not in below]


#: The bounds proposed, tightest first: a fraction, a percentage, a quantity never negative.
BOUNDS = ((Decimal(0), Decimal(1)), (Decimal(0), Decimal(100)), (Decimal(0), None))


def _bounds(found: _Members, paths: list[str]) -> list[Candidate]:
    """The tightest of `BOUNDS` a real-valued member (one value at least not whole) never leaves and its schema
    does not state. A whole-valued member's bounds are left out: a count, an amount or a time is never negative
    by what it is, and one that stayed under 100 is a count that happened to be small."""
    out = []
    for path in paths:
        values = [row[0] for row in found.rows(path)]
        if all(value == value.to_integral_value() for value in values):
            continue
        for low, high in BOUNDS:
            if all(low <= value and (high is None or value <= high) for value in values):
                if not _stated(found.api, found.component, path, low, high):
                    text = f"{low} <= {path}" + (f" <= {high}" if high is not None else "")
                    out.append(found.candidate("bound", text, (path,), len(values)))
                break
    return out


def _stated(api: str, component: str, path: str, low: Decimal, high: Decimal | None) -> bool:
    """Whether the member's schema (through every part it is made of) already bounds it as tightly."""
    if api not in specs.ALL_APIS:
        return False
    schema: Any = _component_schema(component)
    for step in path.split("."):
        schema = _named(api, schema).get(step)
    return bounded_by(instances._parts(api, schema), low, high)


def bounded_by(parts: Iterable[Mapping[str, Any]], low: Decimal, high: Decimal | None) -> bool:
    """Whether schemas state a `minimum` (or `exclusiveMinimum`) of at least `low` and, unless `high` is None, a
    `maximum` (or `exclusiveMaximum`) of at most `high`."""
    schemas = list(parts)

    def stated(keys: tuple[str, str]) -> list[Decimal]:
        return [Decimal(str(part[key])) for part in schemas for key in keys
                if isinstance(part.get(key), (int, float)) and not isinstance(part.get(key), bool)]

    return any(v >= low for v in stated(("minimum", "exclusiveMinimum"))) and \
        (high is None or any(v <= high for v in stated(("maximum", "exclusiveMaximum"))))


# Verdicts -----------------------------------------------------------------------------------------------------------

#: What a declared invariant's `holds` shows when it states a candidate of each kind.
OPERATORS = {"order": ("<=", ">=", "<", ">"), "equal": ("==",), "ratio": ("times(", "over("),
             "sum": ("plus(", "minus("), "now": ("now()",), "bound": ("<=", ">=", "<", ">")}


def declared_by(candidate: Candidate) -> Declaration | None:
    """The x-invariant of the candidate's component that states it, as well as text can tell: one whose `when`
    names exactly the members the candidate relates, whose `holds` uses the candidate's kind of operator and, for
    a bound, the bound's numbers. One whose `when` names more members states a relation under a condition (an
    active validation has started by now), which is not the candidate's: it is only `related`."""
    for invariant in _stating(candidate):
        if set(invariant.when) == set(candidate.members):
            return invariant.declaration
    return None


def related(candidate: Candidate) -> list[Declaration]:
    """The x-invariants that state the candidate's kind of relation among its members and others."""
    return [invariant.declaration for invariant in _stating(candidate)
            if set(invariant.when) > set(candidate.members)]


def _stating(candidate: Candidate) -> Iterator[invariants.Invariant]:
    for invariant in invariants.by_component(candidate.api).get(candidate.component, ()):
        holds = str(invariant.declaration.get("holds"))
        if not set(candidate.members) <= set(invariant.when):
            continue
        if not any(operator in holds for operator in OPERATORS[candidate.kind]):
            continue
        if candidate.kind == "bound" and not all(f"`{number}`" in holds for number in _numbers_of(candidate)):
            continue
        yield invariant


def _numbers_of(candidate: Candidate) -> list[str]:
    return [part for part in candidate.relation.split() if part.replace(".", "", 1).isdigit()]


def listing_path() -> Path:
    """specs/mined.yaml (packaged with the specs)."""
    return specs.specs_dir() / LISTING


@cache
def listed(path: Path | None = None) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(api, component, relation) -> its entry of specs/mined.yaml: {verdict, why} or {verdict, quote}."""
    target = path or listing_path()
    data = specs.yaml_data(target.read_text(encoding="utf-8")) if target.is_file() else None
    out = {}
    for api, components in (data or {}).items():
        for component, relations in (components or {}).items():
            for relation, entry in (relations or {}).items():
                out[(api, component, relation)] = dict(entry or {})
    return out


@dataclass(frozen=True)
class Judgement:
    """A candidate and what is said of it."""

    candidate: Candidate
    verdict: str               # declared, not backed, to declare, or unjudged (in neither)
    reason: str                # the declaring invariant, the why, or the quote

    def __str__(self) -> str:
        said = f": {self.reason}" if self.reason else ""
        return f"{self.candidate}  ({self.candidate.support} objects)  {self.verdict}{said}"


def judged(candidates: Iterable[Candidate],
           listing: Mapping[tuple[str, str, str], Mapping[str, Any]] | None = None) -> list[Judgement]:
    """Each candidate with its verdict: declared by an invariant, else as specs/mined.yaml lists it, else
    `unjudged`."""
    entries = listed() if listing is None else listing
    out = []
    for candidate in candidates:
        declaration = declared_by(candidate)
        if declaration is not None:
            out.append(Judgement(candidate, "declared", f"{declaration.subject}.{declaration.name} "
                                                        f"({declaration.rule})"))
            continue
        entry = entries.get(candidate.key)
        if entry is None:
            near = ", ".join(f"{d.subject}.{d.name} ({d.rule})" for d in related(candidate))
            out.append(Judgement(candidate, "unjudged", "neither declared nor in specs/mined.yaml"
                                 + (f"; related: {near}" if near else "")))
        else:
            out.append(Judgement(candidate, str(entry.get("verdict")), str(entry.get("why") or entry.get("quote"))))
    return out


def stale(candidates: Iterable[Candidate], apis: Sequence[str],
          listing: Mapping[tuple[str, str, str], Mapping[str, Any]] | None = None) -> list[tuple[str, str, str]]:
    """Entries of specs/mined.yaml, of the APIs mined, that no candidate matches any more (or that an invariant
    now declares): what the file should drop."""
    entries = listed() if listing is None else listing
    undeclared = {c.key for c in candidates if declared_by(c) is None}
    return [key for key in entries if key[0] in apis and key not in undeclared]


def reference_now(seed: int = 0) -> float:
    """The moment the embedded reference's world stands at (it advances only with --advance-every)."""
    from conformance.reference.world import World

    return World(seed).clock.now


#: The Server header of the embedded reference's answers.
REFERENCE_SERVER = "conformance-reference"


def main(argv: Sequence[str] | None = None) -> int:
    """Prints every candidate of a HAR archive with its verdict; exit 1 when one is in neither an invariant nor
    specs/mined.yaml."""
    parser = argparse.ArgumentParser(
        prog="python -m conformance.meaning.miner",
        description="The relations a run's answers show that no invariant declares, with their verdicts.")
    parser.add_argument("har", help="a HAR archive a run wrote with --har")
    parser.add_argument("--now", metavar="SECONDS|reference",
                        help="the moment of every answer instead of its arrival (UNIX seconds), or `reference`: "
                             "the embedded reference's clock (its world stands still, months before the wall's)")
    parser.add_argument("--seed", type=int, default=0, help="the reference's seed, for --now reference")
    parser.add_argument("--min-objects", type=int, default=MIN_OBJECTS,
                        help=f"distinct objects a component needs (default {MIN_OBJECTS})")
    args = parser.parse_args(argv)
    try:
        now = None if args.now is None else reference_now(args.seed) if args.now == "reference" else float(args.now)
    except ValueError:
        parser.error(f"--now takes UNIX seconds or `reference`, not {args.now!r}")
    try:
        exchanges = list(read_har(args.har))
    except (OSError, ValueError) as exc:
        print(f"miner: cannot read {args.har}: {exc}", file=sys.stderr)
        return 2
    observed = observe(exchanges, now)
    verdicts = judged(mine(observed, args.min_objects))
    for judgement in verdicts:
        print(judgement)
    unjudged = sum(1 for j in verdicts if j.verdict == "unjudged")
    print(f"{len(verdicts)} candidates over {sum(1 for s in observed.values() if len(s) >= args.min_objects)} "
          f"components; {unjudged} unjudged")
    if now is None and any(e.response_headers.get("server") == REFERENCE_SERVER for e in exchanges):
        print("miner: these answers came from the embedded reference, whose clock is not the wall's; "
              "specs/mined.yaml lists what `--now reference` finds", file=sys.stderr)
    return 1 if unjudged else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
