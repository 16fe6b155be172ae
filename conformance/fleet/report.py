"""The fleet report: fleet.json, fleet.md and fleet.html, built from the targets' report folders alone.

`conformance run --fleet` and `conformance merge` both end here, so that the report of a fleet run in one
process and the one merged from folders that separate jobs wrote are the same report, with the same exit code.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.errors import (EXIT_CONFORMANT, EXIT_INCOMPLETE, EXIT_UNTESTABLE, EXIT_USAGE, EXIT_VIOLATION,
                                ConfigError)
from conformance.fleet import answers, render
from conformance.fleet.differences import Difference, chains, fleet_differences
from conformance.reporting.write import json_text

SCHEMA = "conformance-fleet/1"
#: The fleet's exit code is its most severe target's, in this order: a target that could not even be configured,
#: one that could not be tested, one whose run stopped early (each leaves its verdict unknown), then one that
#: failed the gate. 0 only when every target passed it.
SEVERITY = (EXIT_USAGE, EXIT_UNTESTABLE, EXIT_INCOMPLETE, EXIT_VIOLATION, EXIT_CONFORMANT)
VERDICT_OF_CODE = {EXIT_CONFORMANT: "conformant", EXIT_VIOLATION: "violations", EXIT_USAGE: "untestable",
                   EXIT_UNTESTABLE: "untestable", EXIT_INCOMPLETE: "incomplete"}
FILES = ("fleet.json", "fleet.md", "fleet.html")


@dataclass
class Member:
    """One target of the fleet: its report folder, and what its run wrote there."""

    name: str
    folder: Path
    report: dict[str, Any] | None
    answers: dict[str, Any] | None
    exit_code: int
    verdict: str
    why: str = ""   # why the folder holds no report

    @property
    def score(self) -> dict[str, Any]:
        """Required rules passed out of those tested, over every API the target was tested on."""
        apis = (self.report or {}).get("apis") or {}
        passed = sum(int((a.get("score") or {}).get("passed") or 0) for a in apis.values() if isinstance(a, dict))
        tested = sum(int((a.get("score") or {}).get("tested") or 0) for a in apis.values() if isinstance(a, dict))
        return {"passed": passed, "tested": tested, "ratio": round(passed / tested, 4) if tested else None}

    @property
    def statuses(self) -> dict[str, str]:
        return {str(rule.get("id")): str(rule.get("status")) for rule in (self.report or {}).get("rules") or []
                if isinstance(rule, dict)}

    def history(self) -> dict[str, int] | None:
        """Counts of rules new, fixed and still failing since the target's previous run, when its report says."""
        section = (self.report or {}).get("history")
        if not isinstance(section, dict):
            return None
        counts = {}
        for what in ("new", "fixed", "still_failing"):
            value = section.get(what)
            counts[what] = len(value) if isinstance(value, list) else int(value) if isinstance(value, int) else 0
        return counts


def load_member(folder: Path, *, name: str | None = None, exit_code: int | None = None) -> Member:
    """A target from its report folder; `exit_code` is its run's own when it wrote no report.json (a run refused
    for its settings writes none), else a folder without a report counts as a target that could not be tested."""
    report: dict[str, Any] | None = None
    why = ""
    try:
        loaded = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        report = loaded if isinstance(loaded, dict) and isinstance(loaded.get("summary"), dict) else None
        why = "" if report is not None else "report.json is not a conformance report"
    except FileNotFoundError:
        why = "no report.json"
    except (OSError, ValueError) as exc:
        why = f"report.json cannot be read ({exc})"
    recorded = answers.load(folder)
    name = name or (recorded or {}).get("name") or ((report or {}).get("target") or {}).get("name") or \
        folder.resolve().name
    if report is not None:
        code = int(report["summary"].get("exit_code", EXIT_UNTESTABLE))
        verdict = str(report["summary"].get("verdict") or VERDICT_OF_CODE.get(code, "untestable"))
    else:
        code = exit_code if exit_code in SEVERITY and exit_code != EXIT_CONFORMANT else EXIT_UNTESTABLE
        verdict = VERDICT_OF_CODE[code]
    return Member(str(name), folder, report, recorded, code, verdict, why)


def fleet_exit_code(members: list[Member]) -> int:
    codes = {m.exit_code if m.exit_code in SEVERITY else EXIT_INCOMPLETE for m in members}
    return next((code for code in SEVERITY if code in codes), EXIT_CONFORMANT)


def build(members: list[Member], report_dir: Path, declared: dict[str, str]) -> dict[str, Any]:
    """fleet.json's content."""
    names = [m.name for m in members]
    if duplicated := sorted({n for n in names if names.count(n) > 1}):
        raise ConfigError(f"two report folders are the target {', '.join(duplicated)}: each target once")
    members = sorted(members, key=lambda m: m.name)
    recorded = {m.name: m.answers for m in members if m.answers is not None}
    differences = fleet_differences(recorded, declared)
    groups = chains(recorded, declared)
    # A target declared to serve a chain whose run recorded no answers is in its group, compared on nothing.
    for name, chain in sorted(declared.items()):
        if name in names and name not in recorded:
            groups.setdefault(chain, []).append(name)
    code = fleet_exit_code(members)
    rules: dict[str, dict[str, Any]] = {}
    for member in members:
        for rule in (member.report or {}).get("rules") or []:
            if isinstance(rule, dict) and isinstance(rule.get("id"), str):
                entry = rules.setdefault(rule["id"], {"id": rule["id"], "title": rule.get("title"),
                                                      "level": rule.get("level"), "statuses": {}})
                entry["statuses"][member.name] = rule.get("status")
    return {
        "schema": SCHEMA,
        "exit_code": code,
        "verdict": VERDICT_OF_CODE[code],
        "exit_order": list(SEVERITY),
        "targets": [_target(m, report_dir, groups) for m in members],
        "chains": {chain: sorted(group) for chain, group in sorted(groups.items())},
        "differences": [d.as_dict() for d in differences],
        "rules": [rules[rid] for rid in sorted(rules)],
    }


def _target(member: Member, report_dir: Path, groups: dict[str, list[str]]) -> dict[str, Any]:
    summary = (member.report or {}).get("summary") or {}
    suite = (member.report or {}).get("suite") or {}
    out: dict[str, Any] = {
        "name": member.name, "verdict": member.verdict, "exit_code": member.exit_code,
        "report_dir": os.path.relpath(member.folder.resolve(), report_dir.resolve()),
        "chain": next((chain for chain, group in sorted(groups.items()) if member.name in group), None),
        "score": member.score,
        "apis": list(((member.report or {}).get("target") or {}).get("apis") or []),
        "profile": suite.get("profile"),
        "tests": {k: summary.get(k, 0) for k in ("tests", "passed", "failed", "errors", "skipped")},
        "requests": summary.get("requests", 0),
        "duration_s": suite.get("duration_s"),
        "answers": member.answers is not None,
    }
    if member.why:
        out["missing"] = member.why
    if (history := member.history()) is not None:
        out["history"] = history
    return out


def write(fleet: dict[str, Any], report_dir: Path) -> list[Path]:
    """fleet.json, fleet.md and fleet.html, each written whole or not at all."""
    report_dir.mkdir(parents=True, exist_ok=True)
    texts = {"fleet.json": json_text(fleet), "fleet.md": render.markdown(fleet), "fleet.html": render.html(fleet)}
    written = []
    for name, text in texts.items():
        path = report_dir / name
        temporary = path.with_name(f".{name}.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
        written.append(path)
    return written


def differences_of(fleet: dict[str, Any], target: str) -> list[dict[str, Any]]:
    return [d for d in fleet["differences"] if d["target"] == target]


__all__ = ["Difference", "Member", "build", "fleet_exit_code", "load_member", "write", "differences_of"]
