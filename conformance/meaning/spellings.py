"""Values that name the same thing, from an API's `x-spellings` tables.

A table is one of: `same` (groups of names for one value: fuji and testnet), `aliases` (each alias of the
`x-well-known-ids` of the parameter it names stands for its network's ID), `samples` (two discovered identifiers
of one thing: an EVM chain's EVM chain ID and its blockchain ID) and `prefixes` (an optional prefix: P-, X-, C-).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from conformance import specs
from conformance.meaning.declarations import spellings as tables


@dataclass
class Spelling:
    """One table, resolved for a run: its groups of equivalent values and its optional prefixes."""

    groups: list[list[str]] = field(default_factory=list)
    prefixes: tuple[str, ...] = ()

    def canonical(self, value: Any) -> Any:
        """The one spelling every equivalent value maps to (the first of its group, the value without prefix)."""
        if not isinstance(value, str):
            return value
        for prefix in self.prefixes:
            if value.startswith(prefix) and len(value) > len(prefix):
                value = value[len(prefix):]
                break
        for group in self.groups:
            if value in group:
                return group[0]
        return value

    def others(self, value: str, *, prefix: str | None = None) -> list[str]:
        """The other spellings of `value` (with `prefix`, the prefixed spelling a route accepts)."""
        bare = self.canonical(value)
        found = [v for group in self.groups if bare in group for v in group]
        if self.prefixes:
            found = [bare] + [p + bare for p in ([prefix] if prefix else self.prefixes)]
        return [v for v in dict.fromkeys(found) if v != value]


def spelling(api: str, table: str, *, sample: Callable[[str], str | None], network: str = "mainnet") -> Spelling:
    """Table `table` of `api` for a run on `network`, discovered identifiers read through `sample`."""
    raw = tables(api).get(table)
    if raw is None:
        raise KeyError(f"{api} has no x-spellings table {table!r}")
    if "same" in raw:
        return Spelling(groups=[list(group) for group in raw["same"]])
    if "aliases" in raw:
        groups = [group for group in tables(api).get("network", {}).get("same", []) if network in group]
        document = specs.openapi(api) if api in specs.REST_APIS else specs.openrpc(api)
        known: dict[str, dict[str, str]] = {}
        for parameter in document.get("components", {}).get("parameters", {}).values():
            known.update(parameter.get(raw["aliases"], {}))
        ids = known.get(network) or next((known[name] for group in groups for name in group if name in known), {})
        return Spelling(groups=[[chain_id, alias] for alias, chain_id in ids.items()])
    if "samples" in raw:
        found = [value for value in (sample(name) for name in raw["samples"]) if value]
        return Spelling(groups=[found] if len(found) > 1 else [])
    return Spelling(prefixes=tuple(raw.get("prefixes", ())))


def spelled_by(endpoints: Any) -> Callable[[str, str, Any], Any]:
    """How a run reads a value of a parameter that has a spelling table (`canonical(api, name, value)`), with the
    identifiers `endpoints` knows: given, or found by a crawl that has run (it never starts one). A table is worked
    out once the crawl has run."""
    known: dict[tuple[str, str], Spelling | None] = {}

    def canonical(api: str, name: str, value: Any) -> Any:
        table = known.get((api, name))
        if table is None and (api, name) not in known:
            if name not in tables(api):
                known[(api, name)] = None
                return value
            network = endpoints.known("data_network") or "mainnet"
            table = spelling(api, name, sample=endpoints.known, network=network)
            if endpoints.identifiers.discovery is not None or not tables(api)[name].get("samples"):
                known[(api, name)] = table
        return table.canonical(value) if table is not None else value
    return canonical
