"""fleet.md and fleet.html from fleet.json: targets side by side, the rules where they part, the odd ones out.

Every value may come from a target (names are the operator's, pointers and requests the targets'): fleet.md keeps
each inside its table cell, fleet.html is a template that escapes every value, on the layout, stylesheet and
Content-Security-Policy of report.html.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

from conformance.reporting import pages
from conformance.reporting.pages import MARKS

#: Statuses a rule has on a target where nothing is wrong with it.
QUIET = ("pass", "skip", "untested", "observed", "not selected", None)
VERDICTS = {"conformant": "✓ conformant", "violations": "✗ violations", "untestable": "! untestable",
            "incomplete": "… incomplete"}
#: Rows of the markdown matrix and differences: a job summary has a size limit; fleet.json keeps everything.
MAX_MD_ROWS = 60


def _md(value: Any) -> str:
    """A value inside a markdown table cell: no pipe, no line break, no markup of its own."""
    text = "—" if value is None or value == "" else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'").replace("<", "&lt;")


def _score(target: dict[str, Any]) -> str:
    score = target.get("score") or {}
    if not score.get("tested"):
        return "—"
    return f"{score['ratio']:.1%} ({score['passed']}/{score['tested']})"


def _history(target: dict[str, Any]) -> str:
    history = target.get("history")
    return f"{history['new']} new, {history['fixed']} fixed" if history else "—"


def parting_rules(fleet: dict[str, Any]) -> list[dict[str, Any]]:
    """Rules some target did not pass: failed, flaky or errored on at least one."""
    return [rule for rule in fleet["rules"] if any(s not in QUIET for s in rule["statuses"].values())]


# fleet.md ---------------------------------------------------------------------------------------------------

def markdown(fleet: dict[str, Any]) -> str:
    targets = fleet["targets"]
    names = [t["name"] for t in targets]
    lines = [f"# Fleet: {VERDICTS.get(fleet['verdict'], fleet['verdict'])} (exit {fleet['exit_code']})", "",
             f"{len(targets)} targets; the fleet's exit code is its most severe target's, in the order "
             f"{', '.join(str(c) for c in fleet['exit_order'])}.", "",
             "| target | verdict | exit | score (required rules passed / tested) | tests failed | chain | "
             "since last run |", "|---|---|---|---|---|---|---|"]
    for t in targets:
        lines.append(f"| {_md(t['name'])} | {_md(VERDICTS.get(t['verdict'], t['verdict']))} | {t['exit_code']} | "
                     f"{_md(_score(t))} | {t['tests'].get('failed', 0)} | {_md(t.get('chain'))} | "
                     f"{_md(_history(t))} |")
    parting = parting_rules(fleet)
    lines += ["", f"## Rules not passed by every target ({len(parting)})", ""]
    if parting:
        lines += ["| rule | level | " + " | ".join(_md(n) for n in names) + " |",
                  "|---|---|" + "---|" * len(names)]
        for rule in parting[:MAX_MD_ROWS]:
            cells = " | ".join(f"{MARKS.get(s, '')} {_md(s)}" if (s := rule["statuses"].get(n)) else "—"
                               for n in names)
            lines.append(f"| {_md(rule['id'])} | {_md(rule['level'])} | {cells} |")
        if len(parting) > MAX_MD_ROWS:
            lines.append(f"\n… and {len(parting) - MAX_MD_ROWS} more in fleet.json")
    else:
        lines.append("Every target passed every rule it was tested on.")
    lines += ["", f"## Odd one out ({len(fleet['differences'])})", ""]
    if not fleet["chains"]:
        lines.append("No targets are named as serving the same chain: no answers were compared.")
    else:
        for chain, group in fleet["chains"].items():
            lines.append(f"- chain {_md(chain)}: {', '.join(_md(n) for n in group)}")
        lines.append("")
        if fleet["differences"]:
            lines += ["| target | kind | request | members that differ | detail |", "|---|---|---|---|---|"]
            for d in fleet["differences"][:MAX_MD_ROWS]:
                pointers = ", ".join(f"`{_md(p) if p else '(whole answer)'}`" for p in d["pointers"][:8])
                more = f" … {len(d['pointers']) - 8} more" if len(d["pointers"]) > 8 else ""
                lines.append(f"| {_md(d['target'])} | {d['kind']} | `{_md(d['request'])[:200]}` | "
                             f"{pointers}{more} | {_md(d['detail'])} |")
            if len(fleet["differences"]) > MAX_MD_ROWS:
                lines.append(f"\n… and {len(fleet['differences']) - MAX_MD_ROWS} more in fleet.json")
        else:
            lines.append("Every target of each chain answered as its group's majority.")
    return "\n".join(lines) + "\n"


# fleet.html -------------------------------------------------------------------------------------------------

def _link(target: dict[str, Any], anchor: str) -> str:
    """A place in the target's own report.html, relative to fleet.html."""
    folder = "/".join(quote(part) for part in str(target["report_dir"]).replace("\\", "/").split("/"))
    return f"{folder}/report.html#{quote(anchor)}"


def html(fleet: dict[str, Any]) -> str:
    """fleet.html: reporting/templates/fleet.html on the layout report.html shares, every value escaped."""
    return pages.render("fleet.html", fleet=fleet, parting=parting_rules(fleet), verdicts=VERDICTS, link=_link,
                        score=_score, since=_history)
