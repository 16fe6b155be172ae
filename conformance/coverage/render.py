"""The coverage of a report as summary.md lines and as what report.html's section shows, a drill-down per
operation."""
from __future__ import annotations

from typing import Any

from conformance.coverage.items import REPORTED as DIMENSIONS, STATES

LABELS = {"operations": "operations", "parameters": "parameters", "keywords": "keywords", "examples": "examples",
          "responses": "documented responses", "response_keywords": "response keywords",
          "effects": "declared effects"}


def cell(figures: dict[str, Any] | None) -> str:
    """`97.5% (38/40, 2 partial)`, or `—` for a dimension with no item (or one a report of an older suite lacks)."""
    if figures is None or figures["percent"] is None:
        return "—"
    partial = f", {figures['partial']} partial" if figures["partial"] else ""
    return f"{figures['percent']:g}% ({figures['covered']}/{figures['total']}{partial})"


def markdown_lines(report: dict[str, Any]) -> list[str]:
    """The summary table: one row per API, one column per dimension."""
    coverage = report.get("coverage") or {}
    if not coverage:
        return []
    lines = ["### Coverage of the contract", "",
             "| API | " + " | ".join(LABELS[d] for d in DIMENSIONS) + " | not reachable |",
             "|---|" + "---|" * len(DIMENSIONS) + "---|"]
    for api, data in coverage.items():
        unreachable = sum(data[d]["unreachable"] for d in DIMENSIONS if d in data)
        lines.append(f"| {api} | " + " | ".join(cell(data.get(d)) for d in DIMENSIONS) + f" | {unreachable} |")
    gate = report["summary"].get("coverage_gate")
    return lines + ([""] + [f"**{gate}**"] if gate else []) + [""]


def _items(dimension: str, items: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One dimension of an operation: how many items are in each state, the items, and what was seen of each."""
    # Covered items are the bulk of a good run: named on one line; the others each get a row saying what was seen.
    named = {state: [item for item, tally in items.items() if tally["status"] == state]
             for state in ("covered", "unreachable")}
    counts = {state: sum(t["status"] == state for t in items.values()) for state in STATES}
    return {"label": LABELS[dimension],
            "tally": ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in counts.items() if n),
            "named": [(state, found) for state, found in named.items() if found],
            "rows": [(item, tally["status"], [(key.replace("_", " "), value) for key, value in tally.items()
                                              if key != "status"])
                     for item, tally in items.items() if tally["status"] not in named]}


def html_section(report: dict[str, Any]) -> dict[str, Any] | None:
    """What report.html's coverage section (reporting/templates/coverage.html) shows: a summary row per API, then
    each operation's items; None when the report has no coverage."""
    coverage = report.get("coverage") or {}
    if not coverage:
        return None
    return {"labels": [LABELS[d] for d in DIMENSIONS],
            "apis": [(api, [cell(data.get(d)) for d in DIMENSIONS]) for api, data in coverage.items()],
            "gate": report["summary"].get("coverage_gate"),
            "operations": [{"api": api, "operation": operation, "status": detail["status"],
                            "dimensions": [_items(d, detail[d]) for d in DIMENSIONS[1:] if detail.get(d)],
                            "undocumented": detail.get("undocumented_statuses")}
                           for api, data in coverage.items() for operation, detail in data.get("detail", {}).items()]}
