"""Coverage of meaning: per operation and method, which declared effects, invariants, identities, chronologies and
writes a check verified in the run, and in which aspects.

A parameter's effect is an item of the operation that takes it; a relation declared on a schema is an item of
every operation whose answers hold objects of that schema (verified there when one of its answers showed an object
that kept it). An item is covered when every aspect its kind asks for was verified, partial when some were: a
filter, bound, label or moment of a list route also on a later page of a walk, a filter also by keeping the item
its value was taken from; an identity by two answers that agreed.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from conformance import specs
from conformance.coverage.items import Shape, Tally, summary
from conformance.meaning import declarations, instances
from conformance.meaning.declarations import Declaration

DIMENSION = "effects"
#: Aspects a declaration of each kind is verified in; "held" is any check of it that held.
ASPECTS = {"filter": ("held", "later page"), "bound": ("held", "later page"), "label": ("held", "later page"),
           "moment": ("held", "later page"), "identity": ("compared",), "chronology": ("held",)}
#: Kinds whose later-page aspect only a list route can show.
PAGED = ("filter", "bound", "label", "moment")


def operation_of(declaration: Declaration) -> str:
    return declarations._operation_name(declaration)


def items(api: str) -> dict[str, list[Declaration]]:
    """Operation -> the declarations verified on it (`VERB /template` for REST, the method for JSON-RPC)."""
    out: dict[str, list[Declaration]] = {}
    for declaration in declarations.checked(declarations.effects(api)) + declarations.of_kind("write", api):
        out.setdefault(operation_of(declaration), []).append(declaration)
    schema_level = [d for kind in ("invariant", "identity", "chronology") for d in declarations.of_kind(kind, api)]
    for operation, schema in _responses(api):
        held = {name for _, name in instances.plan(api, instances.response_root(schema))}
        for declaration in schema_level:
            if declaration.subject in held:
                out.setdefault(operation, []).append(declaration)
    return out


def _responses(api: str) -> Iterable[tuple[str, Any]]:
    if api in specs.REST_APIS:
        for template, item in specs.openapi(api)["paths"].items():
            for verb, operation in item.items():
                schema = operation.get("responses", {}).get("200", {}).get("content", {}).get(
                    "application/json", {}).get("schema") if isinstance(operation, dict) else None
                if schema is not None:
                    yield f"{verb.upper()} {template}", schema
    else:
        for method in specs.openrpc(api)["methods"]:
            schema = method.get("result", {}).get("schema")
            if schema is not None:
                yield method["name"], schema


def _aspects(declaration: Declaration, operation: str) -> tuple[str, ...]:
    wanted = ASPECTS.get(declaration.kind, ("held",))
    if declaration.kind in PAGED and not _paged(declaration.api, operation):
        wanted = tuple(aspect for aspect in wanted if aspect != "later page")
    return wanted


def _paged(api: str, operation: str) -> bool:
    if api not in specs.REST_APIS:
        return False
    verb, _, template = operation.partition(" ")
    spec = specs.openapi(api)["paths"].get(template, {}).get(verb.lower(), {})
    return any(specs.resolve(specs.openapi(api), p).get("name") == "pageToken" for p in spec.get("parameters", []))


def report(api: str, verified: set[tuple[str, str, str]]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(the dimension's summary, operation -> declaration id -> its state and aspects)."""
    tallies: list[Tally] = []
    detail: dict[str, dict[str, Any]] = {}
    for operation, found in sorted(items(api).items()):
        for declaration in found:
            wanted = _aspects(declaration, operation)
            seen = [aspect for aspect in wanted if (declaration.id, aspect, operation) in verified]
            tally = Tally(Shape(invalid=False))
            tally.valid = int(bool(seen))
            state = "covered" if len(seen) == len(wanted) else "partial" if seen else "not_reached"
            tallies.append(tally)
            entry: dict[str, Any] = {"status": state, "rule": declaration.rule}
            if state != "covered":
                entry["verified"] = seen
                entry["not_verified"] = [aspect for aspect in wanted if aspect not in seen]
            detail.setdefault(operation, {})[declaration.id] = entry
    figures = summary(tallies)
    states = [entry["status"] for entries in detail.values() for entry in entries.values()]
    figures["covered"], figures["partial"] = states.count("covered"), states.count("partial")
    total = figures["total"]
    figures["percent"] = round((figures["covered"] + figures["partial"] / 2) / total * 100, 1) if total else None
    return figures, detail


def merge(coverage: dict[str, Any], verified: set[tuple[str, str, str]]) -> dict[str, Any]:
    """The report's coverage with the dimension of declared effects added to each API."""
    for api, data in coverage.items():
        figures, detail = report(api, verified)
        data[DIMENSION] = figures
        for operation, entries in detail.items():
            data.setdefault("detail", {}).setdefault(operation, {})[DIMENSION] = entries
    return coverage
