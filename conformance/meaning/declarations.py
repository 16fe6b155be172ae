"""The declarations of meaning in the specs: effects of parameters, invariants, identities and writes.

Each declaration names the rule its checks are charged to and quotes the sentence it comes from. A declaration
that brings its own rule (it carries a `title`) becomes a catalogue entry here, so a rule is written once: in the
spec, beside what it is about. `declarations.schema.json` is the vocabulary; `tests/test_meaning.py` validates
every spec against it and proves every parameter of every operation and method has a declaration.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Mapping

from conformance import specs

#: The document each API's specs are derived from.
DOCUMENTS = {"data": "2-data-api.md", "metrics": "3-metrics-api.md", "admin": "1-node-jsonrpc-apis.md",
             "index": "1-node-jsonrpc-apis.md", "evm": "1-node-jsonrpc-apis.md",
             "validators": "1-node-jsonrpc-apis.md"}
#: Effects that decide nothing by themselves: the documents leave the parameter's effect open, it carries paging
#: (the pagination rules' own tests judge it on every list route), or it selects the subject other declarations
#: (labels, identities, writes) are about.
UNCHECKED = ("open", "paging", "selector")
#: A request body member is declared under this prefix (`body.addresses`).
BODY = "body."


@dataclass(frozen=True)
class Declaration:
    """One declared relation: where it is declared, the rule it is charged to, the sentence, and its details."""

    api: str
    kind: str            # an effect kind, "invariant", "identity" or "write"
    subject: str         # operation ID or method name; the schema name of an invariant or identity
    name: str            # the parameter (effects); a short name of the invariant, identity or write
    rule: str
    quote: str
    spec: Mapping[str, Any]

    @property
    def id(self) -> str:
        """A stable name of the declaration, as a test's parameter ID shows it."""
        return f"{self.subject}.{self.name}.{self.kind}"

    def get(self, key: str, default: Any = None) -> Any:
        return self.spec.get(key, default)

    def __str__(self) -> str:
        return self.id


def _effects_of(api: str, subject: str, raw: Mapping[str, Any]) -> Iterator[Declaration]:
    for parameter, entries in raw.items():
        for entry in entries if isinstance(entries, list) else [entries]:
            kind = entry["effect"]
            yield Declaration(api, kind, subject, parameter, entry.get("rule", ""), entry["quote"], entry)


def _operations(api: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(operation ID or method name, its spec object) of every operation or method of an API."""
    if api in specs.REST_APIS:
        for item in specs.openapi(api)["paths"].values():
            for operation in item.values():
                if isinstance(operation, dict) and "operationId" in operation:
                    yield operation["operationId"], operation
    else:
        for method in specs.openrpc(api)["methods"]:
            yield method["name"], method


def _schemas(api: str) -> dict[str, Any]:
    document = specs.openapi(api) if api in specs.REST_APIS else specs.openrpc(api)
    return document.get("components", {}).get("schemas", {})


@cache
def all_declarations() -> tuple[Declaration, ...]:
    """Every declaration of every spec, effects first, in spec order."""
    found: list[Declaration] = []
    for api in specs.ALL_APIS:
        for subject, operation in _operations(api):
            found += _effects_of(api, subject, operation.get("x-effects", {}))
            for write in operation.get("x-writes", []):
                found.append(Declaration(api, "write", subject, write["name"], write["rule"], write["quote"], write))
        for name, schema in _schemas(api).items():
            for invariant in schema.get("x-invariants", []):
                found.append(Declaration(api, "invariant", name, invariant["name"], invariant["rule"],
                                         invariant["quote"], invariant))
            for identity in schema.get("x-identity", []):
                found.append(Declaration(api, "identity", name, identity["kind"], identity["rule"],
                                         identity["quote"], identity))
            for order in schema.get("x-chronology", []):
                found.append(Declaration(api, "chronology", name, f"{order['kind']}-{order['by']}-{order['then']}",
                                         order["rule"], order["quote"], order))
    return tuple(found)


def effects(api: str | None = None, *, kind: str | None = None) -> list[Declaration]:
    """The declared parameter effects (of one API, of one kind)."""
    return [d for d in all_declarations() if d.kind not in ("invariant", "identity", "chronology", "write")
            and (api is None or d.api == api) and (kind is None or d.kind == kind)]


def of_kind(kind: str, api: str | None = None) -> list[Declaration]:
    return [d for d in all_declarations() if d.kind == kind and (api is None or d.api == api)]


def checked(declarations: list[Declaration]) -> list[Declaration]:
    """The declarations the suite derives checks from (an open effect, or paging, decides nothing here)."""
    return [d for d in declarations if d.kind not in UNCHECKED]


def parameters(api: str) -> dict[str, list[str]]:
    """Operation or method -> the names of all its parameters (a request body's members as `body.<member>`)."""
    out: dict[str, list[str]] = {}
    for subject, operation in _operations(api):
        if api in specs.REST_APIS:
            document = specs.openapi(api)
            names = [specs.resolve(document, p)["name"] for p in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            members = specs.resolve(document, body).get("properties", {}) if body else {}
            names += [BODY + member for member in members]
        else:
            names = [p["name"] for p in operation.get("params", [])]
        out[subject] = names
    return out


def declared(api: str) -> dict[str, set[str]]:
    """Operation or method -> the parameters its `x-effects` declares."""
    out: dict[str, set[str]] = {subject: set() for subject, _ in _operations(api)}
    for declaration in effects(api):
        out[declaration.subject].add(declaration.name)
    return out


def spellings(api: str) -> dict[str, Any]:
    """The API's spelling tables (`x-spellings` of its document): the values that name the same thing."""
    document = specs.openapi(api) if api in specs.REST_APIS else specs.openrpc(api)
    return dict(document.get("x-spellings", {}))


def generated_rules() -> list[dict[str, Any]]:
    """Catalogue entries of the declarations that bring their own rule (they carry a `title`), in the catalogue's
    own form; a rule several declarations share is written by the first, and applies to the operations or methods
    of all of them. A write brings the rule of what it must leave alone (`leaves`)."""
    out: dict[str, dict[str, Any]] = {}
    subjects: dict[str, list[str]] = {}
    for declaration in all_declarations():
        spec = declaration.spec
        brought = spec.get("leaves", declaration.rule) if declaration.kind == "write" else declaration.rule
        for rule in {declaration.rule, brought}:
            subjects.setdefault(rule, []).append(_operation_name(declaration))
        if "title" not in spec or brought in out:
            continue
        out[brought] = {
            "id": brought, "title": spec["title"], "api": declaration.api, "level": spec.get("level", "must"),
            "source": {"doc": DOCUMENTS[declaration.api], "section": spec["section"]},
            "quote": declaration.quote,
            **({"standard": spec["standard"]} if "standard" in spec else {}),
        }
    for rule, entry in out.items():
        entry["applies_to"] = list(dict.fromkeys(name for name in subjects[rule] if name))
    return list(out.values())


def _operation_name(declaration: Declaration) -> str:
    """The operation an effect or a write is declared on, as the catalogue's `applies_to` names it (a JSON-RPC
    method, or a REST `VERB /template`); none for a declaration on a schema."""
    if declaration.kind in ("invariant", "identity", "chronology"):
        return ""
    if declaration.api not in specs.REST_APIS:
        return declaration.subject
    for template, item in specs.openapi(declaration.api)["paths"].items():
        for verb, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == declaration.subject:
                return f"{verb.upper()} {template}"
    return ""


def vocabulary() -> dict[str, Any]:
    """The JSON Schema every declaration follows."""
    return json.loads((Path(__file__).parent / "declarations.schema.json").read_text(encoding="utf-8"))
