"""The coverage of a report as summary.md lines and as report.html's section, a drill-down per operation."""
from __future__ import annotations

from html import escape
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


def _items(dimension: str, items: dict[str, dict[str, Any]]) -> str:
    if not items:
        return ""
    rows = []
    # Covered items are the bulk of a good run: named on one line; the others each get a row saying what was seen.
    named = {state: [item for item, tally in items.items() if tally["status"] == state]
             for state in ("covered", "unreachable")}
    for item, tally in items.items():
        if tally["status"] in named:
            continue
        sides = ", ".join(f"{key.replace('_', ' ')} {escape(str(value))}" for key, value in tally.items()
                          if key != "status")
        rows.append(f'<tr><td><code>{escape(item)}</code></td><td class="cov-{tally["status"]}">'
                    f'{escape(tally["status"].replace("_", " "))}</td><td>{sides}</td></tr>')
    counts = {state: sum(t["status"] == state for t in items.values()) for state in STATES}
    tail = ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in counts.items() if n)
    names = "".join(f"<p>{state}: {', '.join(f'<code>{escape(item)}</code>' for item in found)}</p>"
                    for state, found in named.items() if found)
    table = (f"<table><thead><tr><th>item</th><th>status</th><th>seen</th></tr></thead><tbody>{''.join(rows)}"
             f"</tbody></table>") if rows else ""
    return f"<details><summary>{escape(LABELS[dimension])}: {tail}</summary>{names}{table}</details>"


def html_section(report: dict[str, Any]) -> str:
    """A summary table per API, then each operation's items behind a `<details>`."""
    coverage = report.get("coverage") or {}
    if not coverage:
        return ""
    head = "".join(f'<th scope="col">{escape(LABELS[d])}</th>' for d in DIMENSIONS)
    rows = "".join(f'<tr><th scope="row">{escape(api)}</th>'
                   + "".join(f'<td class="n">{escape(cell(data.get(d)))}</td>' for d in DIMENSIONS) + "</tr>"
                   for api, data in coverage.items())
    parts = [f"<table><caption>Items of the contract the run showed on both sides (a partial item counts half; "
             f"items no conformant target can be made to answer are left out until reached)</caption><thead><tr>"
             f'<th scope="col">API</th>{head}</tr></thead><tbody>{rows}</tbody></table>']
    gate = report["summary"].get("coverage_gate")
    if gate:
        parts.append(f"<p><strong>{escape(gate)}</strong></p>")
    for api, data in coverage.items():
        for operation, detail in data.get("detail", {}).items():
            inner = "".join(_items(d, detail.get(d) or {}) for d in DIMENSIONS[1:])
            if detail.get("undocumented_statuses"):
                inner += f"<p>Statuses the document does not list: {escape(str(detail['undocumented_statuses']))}</p>"
            parts.append(f'<details><summary>{escape(api)} <code>{escape(operation)}</code> '
                         f'<span class="cov-{detail["status"]}">{escape(detail["status"].replace("_", " "))}'
                         f"</span></summary>{inner}</details>")
    return f'<section id="coverage"><h2>Coverage</h2>{"".join(parts)}</section>'
