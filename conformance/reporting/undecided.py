"""Why the rules a run left open were not decided, grouped by cause: the terminal and the summary say it in a few
lines, so that a skip is read as what the target or the run left out, not as a rule the suite forgot."""
from __future__ import annotations

from typing import Any

from conformance.rules import REQUIRED_LEVELS

#: Causes shown, most rules first; the rest are counted on one line.
MAX_CAUSES = 6
MAX_NAMED = 8


def cause(rule: dict[str, Any], suite: dict[str, Any] | None = None) -> str:
    """One rule's cause, in words every rule of that cause shares; `suite` (the report's section) names what
    stopped the run or narrowed it."""
    suite = suite or {}
    if rule.get("untestable"):
        # each for a reason of its own, all for one cause: what they state no API call can show
        return "untestable through the APIs (each rule's reason is in report.json and report.html)"
    if rule.get("reason") == "interrupted":
        return f"the run was interrupted ({suite.get('interrupted') or 'stopped early'})"
    if rule.get("blocked_by"):
        return f"blocked by {', '.join(rule['blocked_by'][:3])}"
    if rule.get("reason"):
        return str(rule["reason"])
    if suite.get("aborted"):
        return f"the run stopped before any test ({suite['aborted']})"
    if rule["status"] == "skip":
        return "skipped"
    wanted = (suite.get("options") or {}).get("rule") or []
    if wanted and not any(rule["id"].startswith(prefix) for prefix in wanted):
        return f"left out by --rule {','.join(wanted)}"
    return "no check of it ran"


def causes(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The gated rules of the selected APIs left undecided, by cause, most rules first."""
    grouped: dict[str, list[str]] = {}
    for rule in report["rules"]:
        if rule["status"] in ("skip", "untested") and rule["level"] in REQUIRED_LEVELS:
            grouped.setdefault(cause(rule, report.get("suite")), []).append(rule["id"])
    return sorted(grouped.items(), key=lambda item: (-len(item[1]), item[0]))


def lines(report: dict[str, Any]) -> list[str]:
    """`N undecided: cause (ids…)`, one line per cause."""
    found = causes(report)
    out = []
    for why, ids in found[:MAX_CAUSES]:
        named = ", ".join(ids[:MAX_NAMED]) + (" …" if len(ids) > MAX_NAMED else "")
        out.append(f"{len(ids)} undecided: {why[:160]} ({named})")
    rest = sum(len(ids) for _, ids in found[MAX_CAUSES:])
    if rest:
        out.append(f"{rest} undecided for {len(found) - MAX_CAUSES} other causes (report.json: each rule's reason)")
    return out
