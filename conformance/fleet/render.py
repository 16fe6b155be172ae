"""fleet.md and fleet.html from fleet.json: targets side by side, the rules where they part, the odd ones out.

Every value may come from a target (names are the operator's, pointers and requests the targets'), so every one
is escaped; the page carries its own stylesheet and no script, and its Content-Security-Policy allows nothing else.
"""
from __future__ import annotations

import base64
import hashlib
import html as html_lib
from typing import Any
from urllib.parse import quote

MARKS = {"pass": "✓", "fail": "✗", "flaky": "≈", "error": "!", "skip": "–", "untested": "○", "observed": "◉",
         "not selected": "·"}
#: Statuses a rule has on a target where nothing is wrong with it.
QUIET = ("pass", "skip", "untested", "observed", "not selected", None)
VERDICTS = {"conformant": "✓ conformant", "violations": "✗ violations", "untestable": "! untestable",
            "incomplete": "… incomplete"}
#: Rows of the markdown matrix and differences: a job summary has a size limit; fleet.json keeps everything.
MAX_MD_ROWS = 60

_COLOURS = {"pass": "#d5f0d8", "fail": "#f9d0cc", "flaky": "#f6ecb8", "error": "#fde2b8", "skip": "#e6e6e6",
            "untested": "#f3f3f3", "observed": "#d6e6f8", "not-selected": "#fafafa"}
STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0 auto;
max-width:1400px;padding:0 16px 48px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #ccc}
nav a{margin-right:12px}code{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
table{border-collapse:collapse;margin:8px 0 16px}
th,td{border:1px solid #d8d8d8;padding:3px 6px;text-align:left;vertical-align:top}
thead th{background:#f0f0f0;position:sticky;top:0}tbody th{white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums}td.c{text-align:center;white-space:nowrap}
td.c a{text-decoration:none;color:inherit;display:block}
.verdict{font-size:18px;font-weight:600;padding:8px 12px;border-radius:4px;margin:8px 0}
.v-conformant{background:#d5f0d8}.v-violations{background:#f9d0cc}.v-untestable{background:#fde2b8}
.v-incomplete{background:#f6ecb8}.note{color:#555;font-size:12.5px}
""" + "".join(f".s-{s}{{background:{c}}}" for s, c in _COLOURS.items())
CSP = ("default-src 'none'; style-src 'sha256-" + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
       + "'; img-src data:; base-uri 'none'; form-action 'none'")


def _e(value: Any) -> str:
    return "—" if value is None or value == "" else html_lib.escape(str(value), quote=True)


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
    folder = "/".join(quote(part) for part in str(target["report_dir"]).replace("\\", "/").split("/"))
    return _e(f"{folder}/report.html#{quote(anchor)}")


def _cell(target: dict[str, Any], rule: dict[str, Any]) -> str:
    status = rule["statuses"].get(target["name"])
    if status is None:
        return '<td class="c">—</td>'
    anchor = ("failure-" if status == "fail" else "rule-") + str(rule["id"])
    css = str(status).replace(" ", "-")
    return (f'<td class="c s-{_e(css)}" title="{_e(target["name"])}: {_e(status)}">'
            f'<a href="{_link(target, anchor)}">{MARKS.get(status, "")} {_e(status)}</a></td>')


def _matrix(fleet: dict[str, Any], rules: list[dict[str, Any]]) -> str:
    targets = fleet["targets"]
    head = "".join(f'<th scope="col"><a href="{_link(t, "summary")}">{_e(t["name"])}</a></th>' for t in targets)
    rows = "".join(f'<tr id="rule-{_e(r["id"])}"><th scope="row">{_e(r["id"])}</th><td>{_e(r["level"])}</td>'
                   f'<td>{_e(r["title"])}</td>' + "".join(_cell(t, r) for t in targets) + "</tr>" for r in rules)
    return (f'<table><thead><tr><th scope="col">Rule</th><th scope="col">Level</th><th scope="col">Title</th>'
            f"{head}</tr></thead><tbody>{rows}</tbody></table>")


def html(fleet: dict[str, Any]) -> str:
    targets = fleet["targets"]
    verdict = fleet["verdict"]
    rows = "".join(
        f'<tr><th scope="row"><a href="{_link(t, "summary")}">{_e(t["name"])}</a></th>'
        f'<td class="v-{_e(t["verdict"])}">{_e(VERDICTS.get(t["verdict"], t["verdict"]))}</td>'
        f'<td class="n">{_e(t["exit_code"])}</td><td class="n">{_e(_score(t))}</td>'
        f'<td class="n">{_e(t["tests"].get("failed", 0))}</td><td>{_e(t.get("chain"))}</td>'
        f'<td>{_e(_history(t))}</td><td>{_e(t.get("missing"))}</td></tr>' for t in targets)
    summary = ('<table><thead><tr><th scope="col">Target</th><th scope="col">Verdict</th><th scope="col">Exit</th>'
               '<th scope="col">Score (required rules passed / tested)</th><th scope="col">Tests failed</th>'
               '<th scope="col">Chain</th><th scope="col">Since last run</th><th scope="col">Note</th></tr></thead>'
               f"<tbody>{rows}</tbody></table>")
    parting = parting_rules(fleet)
    parting_part = _matrix(fleet, parting) if parting else \
        "<p>Every target passed every rule it was tested on.</p>"
    everything = (f"<details><summary>Every rule ({len(fleet['rules'])})</summary>"
                  f"{_matrix(fleet, fleet['rules'])}</details>")
    body = (f'<header><h1>Fleet conformance report</h1><nav><a href="#targets">Targets</a>'
            f'<a href="#rules">Rules</a><a href="#odd-one-out">Odd one out</a></nav>'
            f'<p id="verdict" class="verdict v-{_e(verdict)}" data-verdict="{_e(verdict)}">'
            f"{_e(VERDICTS.get(verdict, verdict))} — exit {_e(fleet['exit_code'])}</p>"
            f'<p class="note">The fleet\'s exit code is its most severe target\'s, in the order '
            f"{_e(', '.join(str(c) for c in fleet['exit_order']))}.</p></header>"
            f'<section id="targets"><h2>Targets ({len(targets)})</h2>{summary}</section>'
            f'<section id="rules"><h2>Rules not passed by every target ({len(parting)})</h2>'
            f'<p class="note">Each cell opens that rule in the target\'s own report.</p>{parting_part}{everything}'
            f"</section>{_differences(fleet)}")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>Fleet conformance report: {_e(verdict)}</title><style>{STYLE}</style></head>"
            f"<body>{body}</body></html>\n")


def _differences(fleet: dict[str, Any]) -> str:
    if not fleet["chains"]:
        return ('<section id="odd-one-out"><h2>Odd one out</h2><p>No targets are named as serving the same '
                "chain: no answers were compared.</p></section>")
    groups = "".join(f"<li>{_e(chain)}: {_e(', '.join(group))}</li>" for chain, group in fleet["chains"].items())
    if not fleet["differences"]:
        table = "<p>Every target of each chain answered as its group's majority.</p>"
    else:
        rows = "".join(
            f'<tr><th scope="row">{_e(d["target"])}</th><td>{_e(d["kind"])}</td><td>{_e(d["chain"])}</td>'
            f'<td><code>{_e(d["request"])}</code></td><td>'
            + "<br>".join(f"<code>{_e(p) if p else '(whole answer)'}</code>" for p in d["pointers"])
            + f'</td><td>{_e(d["detail"])}</td></tr>' for d in fleet["differences"])
        table = ('<table><thead><tr><th scope="col">Target</th><th scope="col">Kind</th><th scope="col">Chain</th>'
                 '<th scope="col">Request</th><th scope="col">Members that differ</th><th scope="col">Detail</th>'
                 f"</tr></thead><tbody>{rows}</tbody></table>")
    return (f'<section id="odd-one-out"><h2>Odd one out ({len(fleet["differences"])})</h2><ul>{groups}</ul>'
            f"{table}</section>")
