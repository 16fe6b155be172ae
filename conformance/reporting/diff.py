"""`conformance diff OLD NEW`: what changed between two report.json files, and whether it is a regression."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import ConfigError
from conformance.reporting.build import NOT_SELECTED, SCHEMA, first_problem
from conformance.reporting.contract import contract_changes


def load_report(path: str | Path) -> dict[str, Any]:
    """A report.json, checked enough to compare; anything else is a usage error naming the file."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such report") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable report.json ({type(exc).__name__})") from None
    if not isinstance(report, dict) or report.get("schema") != SCHEMA or not isinstance(report.get("rules"), list):
        raise ConfigError(f"{path}: not a conformance report (expected schema {SCHEMA})")
    return report


@dataclass
class Change:
    rule: str
    level: str
    title: str
    old: str
    new: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "level": self.level, "title": self.title, "old": self.old, "new": self.new,
                **({"detail": self.detail} if self.detail else {})}


@dataclass
class ReportDiff:
    newly_failing: list[Change] = field(default_factory=list)
    failing_untested_before: list[Change] = field(default_factory=list)   # not a regression: nothing to compare
    newly_erroring: list[Change] = field(default_factory=list)
    newly_passing: list[Change] = field(default_factory=list)
    no_longer_tested: list[Change] = field(default_factory=list)
    observations: list[Change] = field(default_factory=list)
    slower: list[dict[str, Any]] = field(default_factory=list)
    #: How the contracts the two reports were judged against differ (empty: the same). Said first, never a
    #: regression by itself: a rule's verdicts may have moved because the rule did.
    contract: dict[str, Any] = field(default_factory=dict)

    @property
    def regressed(self) -> bool:
        return bool(self.newly_failing or self.newly_erroring or self.slower)

    def to_json(self) -> dict[str, Any]:
        return {"regressed": self.regressed, "same_contract": not self.contract, "contract": self.contract,
                **{name: [c.to_json() for c in getattr(self, name)]
                   for name in ("newly_failing", "failing_untested_before", "newly_erroring", "newly_passing",
                                "no_longer_tested", "observations")},
                "slower": self.slower}


def _first_problem(rule: dict[str, Any]) -> str:
    return first_problem(rule)[:300]


#: Free text in an observation (an error's message, a body excerpt) changes with the data, not the behaviour.
_FREE_TEXT = frozenset({"message", "body"})


def _without_free_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_free_text(v) for k, v in value.items() if k not in _FREE_TEXT}
    if isinstance(value, list):
        return [_without_free_text(v) for v in value]
    return value


def _seen(rule: dict[str, Any]) -> list[str]:
    return sorted({json.dumps(_without_free_text(o.get("seen")), sort_keys=True, default=str)
                   for o in rule.get("observations", [])})


def compare_reports(old: dict[str, Any], new: dict[str, Any], *, slower_factor: float = 2.0,
                    slower_ms: float = 100.0) -> ReportDiff:
    """Rules compared by ID; an operation is slower when its median grew by `slower_factor` AND `slower_ms`."""
    result = ReportDiff(contract=contract_changes(old, new))
    before = {rule["id"]: rule for rule in old["rules"]}
    for rule in new["rules"]:
        was = before.get(rule["id"])
        if was is None or NOT_SELECTED in (was["status"], rule["status"]):
            # A rule one of the runs did not select its API for: nothing to compare, neither a regression nor
            # a rule "no longer tested".
            if was is not None and rule["status"] == "fail":
                result.failing_untested_before.append(Change(rule["id"], rule["level"], rule["title"], was["status"],
                                                             rule["status"], _first_problem(rule)))
            continue
        change = Change(rule["id"], rule["level"], rule["title"], was["status"], rule["status"])
        if rule["status"] == "fail" and was["status"] != "fail":
            change.detail = _first_problem(rule)
            (result.failing_untested_before if was["status"] == "untested" else result.newly_failing).append(change)
        elif rule["status"] == "error" and was["status"] in ("pass", "observed"):
            change.detail = _first_problem(rule)
            result.newly_erroring.append(change)
        elif rule["status"] == "pass" and was["status"] in ("fail", "error"):
            result.newly_passing.append(change)
        elif rule["status"] in ("untested", "skip") and was["status"] in ("pass", "fail", "observed"):
            result.no_longer_tested.append(change)
        if rule["level"] == "observe" and rule["status"] == was["status"] == "observed":
            old_seen, new_seen = _seen(was), _seen(rule)
            if old_seen != new_seen:
                gone = [s for s in old_seen if s not in new_seen]
                came = [s for s in new_seen if s not in old_seen]
                change.old, change.new = "; ".join(gone)[:500] or "-", "; ".join(came)[:500] or "-"
                result.observations.append(change)
    old_ops = {(op["api"], op["operation"]): op for op in old.get("operations", [])}
    for op in new.get("operations", []):
        was = old_ops.get((op["api"], op["operation"]))
        if (was and op["median_ms"] > was["median_ms"] * slower_factor
                and op["median_ms"] - was["median_ms"] > slower_ms):
            result.slower.append({"api": op["api"], "operation": op["operation"],
                                  "old_median_ms": was["median_ms"], "new_median_ms": op["median_ms"]})
    return result


_SECTIONS = (("newly_failing", "Newly failing rules"),
             ("failing_untested_before", "Failing rules the old report did not test"),
             ("newly_erroring", "Rules that can no longer be tested"),
             ("newly_passing", "Newly passing rules"), ("no_longer_tested", "Rules no longer tested"),
             ("observations", "Observations that changed"))


def render_text(diff: ReportDiff, old_name: str, new_name: str) -> str:
    lines = [f"conformance diff: {old_name} -> {new_name}: "
             + ("REGRESSED" if diff.regressed else "no regression")]
    lines += contract_text(diff.contract)
    for name, title in _SECTIONS:
        changes = getattr(diff, name)
        if changes:
            lines.append(f"{title} ({len(changes)}):")
            for c in changes:
                lines.append(f"  {c.rule} ({c.level}) {c.old} -> {c.new}: {c.title}"
                             + (f" — {c.detail}" if c.detail else ""))
    if diff.slower:
        lines.append(f"Slower operations ({len(diff.slower)}):")
        lines += [f"  {s['api']} {s['operation']}: median {s['old_median_ms']:g} ms -> {s['new_median_ms']:g} ms"
                  for s in diff.slower]
    return "\n".join(lines)


def render_markdown(diff: ReportDiff, old_name: str, new_name: str) -> str:
    verdict = "❌ regressed" if diff.regressed else "✅ no regression"
    lines = [f"## Conformance diff: {verdict}", "", f"`{old_name}` → `{new_name}`", ""]
    lines += contract_markdown(diff.contract)
    for name, title in _SECTIONS:
        changes = getattr(diff, name)
        if changes:
            lines += [f"### {title} ({len(changes)})", "", "| rule | level | before | after | title |",
                      "|---|---|---|---|---|"]
            lines += [f"| {c.rule} | {c.level} | {c.old} | {c.new} | {c.title} |".replace("\n", " ") for c in changes]
            lines.append("")
    if diff.slower:
        lines += ["### Slower operations", "",
                  "| API | operation | median before | median after |", "|---|---|---|---|"]
        lines += [f"| {s['api']} | {s['operation']} | {s['old_median_ms']:g} ms | {s['new_median_ms']:g} ms |"
                  for s in diff.slower]
    return "\n".join(lines) + "\n"


def _rule_change_text(change: dict[str, Any]) -> str:
    if change["change"] != "changed":
        return f"{change['rule']} {change['change']}: {change['title']}"
    parts = []
    for name in change["fields"]:
        if name == "level":
            parts.append(f"level {change['level']['old']} -> {change['level']['new']}")
        elif name == "quote_sha256":
            parts.append("quote reworded")
        elif name == "title":
            parts.append(f"title was {change['old_title']!r}")
        else:
            parts.append(f"{name} changed")
    return f"{change['rule']} {'; '.join(parts)}: {change['title']}"


def contract_text(contract: dict[str, Any]) -> list[str]:
    """The lines that say the two reports were judged against different contracts, and how; none when the same."""
    if not contract:
        return []
    lines = ["The reports were judged against different contracts: verdicts of changed rules are not comparable."]
    if "unpinned" in contract:
        lines.append(f"  the {contract['unpinned']} report pins no contract")
    files = contract.get("files", {})
    for kind in ("changed", "added", "removed"):
        if files.get(kind):
            lines.append(f"  files {kind}: {', '.join(files[kind])}")
    if "version" in contract:
        lines.append(f"  suite version {contract['version']['old']} -> {contract['version']['new']}")
    rules = contract.get("rules", [])
    if rules:
        lines.append(f"Rules whose contract changed ({len(rules)}):")
        lines += [f"  {_rule_change_text(change)}" for change in rules]
    return lines


def contract_markdown(contract: dict[str, Any]) -> list[str]:
    if not contract:
        return []
    lines = ["### ⚠️ Different contracts", "",
             "The two reports were judged against different contracts: verdicts of changed rules are not comparable.",
             ""]
    if "unpinned" in contract:
        lines.append(f"- the {contract['unpinned']} report pins no contract")
    files = contract.get("files", {})
    for kind in ("changed", "added", "removed"):
        if files.get(kind):
            lines.append(f"- files {kind}: " + ", ".join(f"`{name}`" for name in files[kind]))
    if "version" in contract:
        lines.append(f"- suite version {contract['version']['old']} → {contract['version']['new']}")
    rules = contract.get("rules", [])
    if rules:
        lines += ["", f"#### Rules whose contract changed ({len(rules)})", ""]
        lines += [f"- {_rule_change_text(change)}".replace("\n", " ") for change in rules]
    return lines + [""]
