"""The rule catalogue: every checkable statement of the three API documents, with a stable ID."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from collections.abc import Iterable, Iterator

from conformance.specs import specs_dir, yaml_data

LEVELS = ("must", "standard", "observe")
#: Levels whose failure counts against a target; `observe` rules only record what was seen.
REQUIRED_LEVELS = ("must", "standard")
ID_PATTERN = re.compile(r"^(RPC|DATA|MET)-[A-Z]{2,5}-\d{3}$")
#: Where the rules that declarations in specs/openapi and specs/openrpc bring are catalogued.
DECLARED = "declarations in specs/openapi and specs/openrpc"
DOCUMENTS = {
    "1-node-jsonrpc-apis.md",
    "2-data-api.md",
    "3-metrics-api.md",
}


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    apis: tuple[str, ...]
    level: str
    doc: str
    section: str
    quote: str
    applies_to: tuple[str, ...] = ()
    standard: str | None = None
    untestable: str | None = None
    catalogue: str = field(default="", compare=False)

    @property
    def testable(self) -> bool:
        return self.untestable is None

    @property
    def gating(self) -> bool:
        """Whether a failure of this rule fails the target (observe rules never do)."""
        return self.level in REQUIRED_LEVELS

    def citation(self) -> str:
        return f'{self.doc} › {self.section}: "{self.quote}"'


class UnknownRule(KeyError):
    """A test names a rule ID that is not in the catalogue."""


@dataclass(frozen=True)
class Catalogue:
    rules: dict[str, Rule]

    def __getitem__(self, rule_id: str) -> Rule:
        try:
            return self.rules[rule_id]
        except KeyError:
            raise UnknownRule(f"{rule_id} is not in the rule catalogue under specs/rules/") from None

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    def __len__(self) -> int:
        return len(self.rules)

    def for_api(self, api: str) -> list[Rule]:
        return [rule for rule in self if api in rule.apis]


def _as_tuple(value: str | Iterable[object] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def parse_rules(raw: dict, catalogue_name: str) -> list[Rule]:
    """Turns one catalogue file's data into rules; malformed entries raise ValueError."""
    rules = []
    for entry in raw.get("rules", []):
        try:
            source = entry["source"]
            rules.append(
                Rule(
                    id=entry["id"],
                    title=entry["title"],
                    apis=_as_tuple(entry["api"]),
                    level=entry["level"],
                    doc=source["doc"],
                    section=source["section"],
                    quote=entry["quote"],
                    applies_to=_as_tuple(entry.get("applies_to")),
                    standard=entry.get("standard"),
                    untestable=entry.get("untestable"),
                    catalogue=catalogue_name,
                )
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"specs/rules/{catalogue_name}: malformed entry {entry!r}: missing {exc}") from exc
    return rules


@cache
def load_catalogue() -> Catalogue:
    """All rules of specs/rules/*.yaml, keyed by ID (a duplicate ID is an error)."""
    from conformance.meaning.declarations import generated_rules

    rules: dict[str, Rule] = {}
    files = [(path.name, yaml_data(path.read_text(encoding="utf-8")) or {})
             for path in sorted((specs_dir() / "rules").glob("*.yaml"))]
    # A declaration of meaning in the specs that brings its own rule is catalogued where it is declared.
    files.append((DECLARED, {"rules": generated_rules()}))
    for name, raw in files:
        for rule in parse_rules(raw, name):
            if rule.id in rules:
                raise ValueError(f"rule {rule.id} is defined twice (specs/rules/{name})")
            rules[rule.id] = rule
    return Catalogue(rules)
