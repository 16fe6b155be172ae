"""report.html: one self-contained page a vendor can hand over, fully readable with scripts off.

Every value of the report may come from the target, so every one goes through `_e` (html.escape), and the
page's Content-Security-Policy only lets its own stylesheet and filter script run: an escaping slip could
show markup, never run it or load anything.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import Any
from collections.abc import Iterable

from conformance.coverage.render import html_section as coverage_section
from conformance.history.trend import trend_svg
from conformance.reporting.build import API_STATUSES, NOT_SELECTED, STATUSES

#: Bounds that keep a page of a large run light; report.json keeps everything.
MAX_TEXT = 4_000                 # characters of one message, expected or received value, or observation
MAX_REPRODUCER = 16_000
MAX_FAILURES_PER_RULE = 20
FAILURES_OPEN = 3                # failures of one rule shown unfolded; the rest wait in a <details>
MAX_OBSERVATIONS_PER_RULE = 20

def _slug(status: str) -> str:
    """A status as a class name ("not selected" holds a space)."""
    return status.replace(" ", "-")


# A mark beside each status word, so a status never rests on colour alone.
MARKS = {"pass": "✓", "fail": "✗", "flaky": "≈", "error": "!", "skip": "–", "untested": "○", "observed": "◉",
         NOT_SELECTED: "·"}
VERDICTS = {"conformant": "✓ Conformant", "violations": "✗ Violations: the target broke at least one rule",
            "untestable": "! Could not be tested", "incomplete": "… Incomplete: the run stopped before it was done"}
SECTIONS = (("scores", "Scores"), ("matrix", "Rules"), ("failures", "Failures"), ("errors", "Errors"),
            ("observations", "Observations"), ("expectations", "Expectations"), ("identifiers", "Identifiers"),
            ("operations", "Operations"))

_COLOURS = {"pass": "#d5f0d8", "fail": "#f9d0cc", "flaky": "#f6ecb8", "error": "#fde2b8", "skip": "#e6e6e6",
            "untested": "#f3f3f3", "observed": "#d6e6f8", NOT_SELECTED: "#fafafa"}
STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0 auto;
max-width:1200px;padding:0 16px 48px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #ccc}
h3{font-size:15px;margin:18px 0 4px}nav a{margin-right:12px}
code,pre{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere;
margin:4px 0}
pre.repro code{user-select:all}
table{border-collapse:collapse;margin:8px 0 16px;width:100%}
th,td{border:1px solid #d8d8d8;padding:3px 6px;text-align:left;vertical-align:top}
thead th{background:#f0f0f0}tbody th{white-space:nowrap}caption{text-align:left;font-weight:600;padding:6px 0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-size:18px;font-weight:600;padding:8px 12px;border-radius:4px;margin:8px 0}
.v-conformant{background:#d5f0d8}.v-violations{background:#f9d0cc}.v-untestable{background:#fde2b8}
.v-incomplete{background:#f6ecb8}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.badge{display:inline-block;padding:0 6px;border-radius:3px;border:1px solid #999;white-space:nowrap}
.note{color:#555;font-size:12.5px;display:block}
.failure{border-left:4px solid #c62828;padding:2px 10px;margin:8px 0}
.failure dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:4px 0}
.failure dt{font-weight:600}.failure dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.error{border-left:4px solid #e08a00;padding:2px 10px;margin:8px 0}
.exchanges{font-size:12.5px}.exchanges ul{margin:2px 0;padding-left:18px}.exchanges li.broke{color:#c62828}
fieldset{border:1px solid #ccc;padding:4px 8px;margin:8px 0}fieldset label{margin-right:12px}
@media print{nav,fieldset{display:none}}
blockquote.quote{margin:4px 0;padding:2px 10px;border-left:3px solid #999;color:#333}
#history ul{display:inline;margin:0;padding:0}#history li{display:inline;margin-right:14px}
#history p{margin:4px 0}svg.trend{vertical-align:middle;margin-left:8px}
@media(min-width:900px){dl.facts{grid-template-columns:max-content 1fr max-content 1fr}}
""" + "".join(f".s-{_slug(s)}{{background:{c}}}" for s, c in _COLOURS.items()) + "".join(
    f'#matrix.hide-{_slug(s)} tr[data-status="{s}"]{{display:none}}' for s in STATUSES)
# The filter is the page's only script; it un-hides its own controls, so without scripts none are shown.
SCRIPT = ("(function(){var f=document.getElementById('status-filter'),m=document.getElementById('matrix');"
          "if(!f||!m)return;f.hidden=false;f.addEventListener('change',function(e){var t=e.target;"
          "if(t.name==='status')m.classList.toggle('hide-'+t.value,!t.checked);});})();")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


CSP = (f"default-src 'none'; style-src {_hash(STYLE)}; script-src {_hash(SCRIPT)}; img-src data:; "
       "base-uri 'none'; form-action 'none'")


def _e(value: Any) -> str:
    return "—" if value is None or value == "" else html.escape(str(value), quote=True)


def _clip(text: Any, limit: int = MAX_TEXT) -> str:
    text = "" if text is None else str(text)
    if len(text) <= limit:
        return _e(text)
    return _e(text[:limit]) + f"\n… ({len(text) - limit:,} more characters in report.json)"


def _plural(count: int, noun: str) -> str:
    return noun if count == 1 else noun + "s"


def _count(count: int, noun: str) -> str:
    return f"{count} {_plural(count, noun)}"


def _badge(status: str, expected: bool = False) -> str:
    tail = " (expected)" if expected else ""
    return f'<span class="badge s-{_e(_slug(status))}">{MARKS.get(status, "")} {_e(status)}{tail}</span>'


def _pct(ratio: Any) -> str:
    return f"{ratio:.1%}" if isinstance(ratio, (int, float)) else "—"


def _source(rule: dict[str, Any]) -> str:
    source = rule.get("source") or {}
    text = f"{_e(source.get('doc'))} › {_e(source.get('section'))}"
    return text + (f'<span class="note">{_e(rule["standard"])}</span>' if rule.get("standard") else "")


def _table(caption: str, head: Iterable[str], rows: Iterable[str], *, attrs: str = "") -> str:
    cols = "".join(f'<th scope="col">{h}</th>' for h in head)
    return (f"<table{attrs}><caption>{caption}</caption><thead><tr>{cols}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _header(report: dict[str, Any]) -> str:
    suite, target, summary = report.get("suite", {}), report.get("target", {}), report.get("summary", {})
    verdict = summary.get("verdict", "untestable")
    urls = "".join(f"<div>{_e(name)}: <code>{_e(url)}</code></div>"
                   for name, url in (target.get("urls") or {}).items() if url)
    where = "the embedded reference target" if target.get("reference") else (urls or "—")
    tests = (f"{summary.get('tests', 0)} tests: {summary.get('passed', 0)} passed, {summary.get('failed', 0)} "
             f"failed, {summary.get('errors', 0)} errors, {summary.get('skipped', 0)} skipped"
             + (f", {summary['expected_failures']} expected failures" if summary.get("expected_failures") else ""))
    facts = [("Target", where), ("APIs", _e(", ".join(target.get("apis") or []))),
             ("EVM chain", _e(target.get("evm_chain"))),
             ("Server", _e(", ".join((target.get("versions") or {}).get("server") or []))),
             ("Suite", f"{_e(suite.get('name', 'conformance'))} {_e(suite.get('version'))}"),
             ("Profile", _e(suite.get("profile"))),
             ("Gate", f"{_e(suite.get('gate'))} (failures of {_e(', '.join(suite.get('gated_levels') or []))} "
                      "rules fail the run)"),
             ("Seed", _e(suite.get("seed"))),
             ("Contract", _contract(suite)),
             ("Date", f"{_e(suite.get('started'))} to {_e(suite.get('finished'))} ({_e(suite.get('duration_s'))} s)"),
             ("Requests", _e(summary.get("requests"))), ("Tests", _e(tests)),
             ("Exit code", _e(summary.get("exit_code")))]
    aborted = (f'<p class="verdict v-untestable">The run stopped before testing: {_e(suite["aborted"])}</p>'
               if suite.get("aborted") else "")
    if suite.get("interrupted"):
        aborted += (f'<p class="verdict v-incomplete">The run stopped early: {_e(suite["interrupted"])}; the rules '
                    'it did not reach are untested</p>')
    nav = "".join(f'<a href="#{anchor}">{title}</a>' for anchor, title in _sections(report))
    return (f'<header id="summary"><h1>API conformance report</h1><nav>{nav}</nav>'
            f'<p id="verdict" class="verdict v-{_e(verdict)}" data-verdict="{_e(verdict)}">'
            f"{_e(VERDICTS.get(verdict, verdict))}</p>{aborted}<dl class=\"facts\">"
            + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in facts) + "</dl></header>")


def _contract(suite: dict[str, Any]) -> str:
    """How many files the run was judged against are pinned, which documents were not found, and the HAR."""
    pinned = suite.get("contract")
    if pinned is None:
        return "not pinned"
    missing = [name for name, digest in pinned.items() if digest is None]
    text = f"{_count(len(pinned) - len(missing), 'file')} pinned by sha256 in report.json"
    if missing:
        text += f"; not found: {_e(', '.join(missing))}"
    har = suite.get("har")
    if har:
        text += f"; every exchange in <code>{_e(har.get('file'))}</code> ({_e(har.get('entries'))} entries)"
    return text


def _scores(report: dict[str, Any]) -> str:
    rows = []
    for api, data in (report.get("apis") or {}).items():
        score, cov, counts = data.get("score", {}), data.get("coverage", {}), data.get("statuses", {})
        ops, rules = cov.get("operations", {}), cov.get("rules", {})
        rows.append(f'<tr data-api="{_e(api)}"><th scope="row">{_e(api)}</th>'
                    f'<td class="n">{_e(score.get("passed"))}/{_e(score.get("tested"))}</td>'
                    f'<td class="n">{_pct(score.get("ratio"))}</td>'
                    f'<td class="n">{_e(ops.get("exercised"))}/{_e(ops.get("total"))}</td>'
                    f'<td class="n">{_e(rules.get("exercised"))}/{_e(rules.get("total"))}</td>'
                    + "".join(f'<td class="n">{_e(counts.get(s, 0))}</td>' for s in API_STATUSES) + "</tr>")
    head = ["API", "score: required rules passed/tested", "score %", "operations exercised",
            "rules exercised"] + [f"{MARKS[s]} {s}" for s in API_STATUSES]
    body = _table("Per API: the score counts must and standard rules that were tested", head, rows) if rows \
        else "<p>No API was tested.</p>"
    return f'<section id="scores"><h2>Scores</h2>{body}</section>'


def _anchor(rule: dict[str, Any]) -> str:
    if rule.get("failures"):
        return "failure-"
    if rule.get("errors"):
        return "error-"
    return "observation-" if rule.get("observations") else ""


def _matrix(report: dict[str, Any]) -> str:
    rules, tested = report.get("rules") or [], list((report.get("target") or {}).get("apis") or [])
    groups: dict[str, list[dict[str, Any]]] = {api: [] for api in tested}
    for rule in rules:
        apis = rule.get("api") or ["—"]
        home = next((api for api in apis if api in tested), apis[0])
        groups.setdefault(home, []).append(rule)
    counts = {status: sum(rule.get("status") == status for rule in rules) for status in STATUSES}
    boxes = "".join(f'<label><input type="checkbox" name="status" value="{_slug(s)}" checked> {MARKS[s]} {s} '
                    f"({counts[s]})</label>" for s in STATUSES)
    parts = [f'<fieldset id="status-filter" hidden><legend>Show rules whose status is</legend>{boxes}</fieldset>']
    untested_apis = []
    for api, mine in groups.items():
        if not mine:
            continue
        rows = []
        for rule in mine:
            rid, status, prefix = _e(rule.get("id")), rule.get("status", ""), _anchor(rule)
            label = f'<a href="#{prefix}{rid}">{rid}</a>' if prefix else rid
            others = [a for a in rule.get("api") or [] if a != api]
            notes = (f'<span class="note">also {_e(", ".join(others))}</span>' if others else "") + (
                f'<span class="note">untestable: {_e(rule["untestable"])}</span>' if rule.get("untestable") else "") + (
                f'<span class="note">blocked by {_e(", ".join(rule["blocked_by"]))}</span>'
                if rule.get("blocked_by") else "")
            rows.append(f'<tr id="rule-{rid}" data-rule="{rid}" data-status="{_e(status)}" '
                        f'data-level="{_e(rule.get("level"))}"><th scope="row"'
                        # report.html#RULE-ID: the row, unless the rule failed (then its failure carries the ID)
                        + ("" if rule.get("failures") else f' id="{rid}"') + f'>{label}</th>'
                        f'<td>{_e(rule.get("level"))}</td><td>{_e(rule.get("title"))}{notes}</td>'
                        f'<td>{_badge(status, bool(rule.get("expected")))}</td><td>{_evidence(rule)}</td>'
                        f'<td>{_source(rule)}</td></tr>')
        table = _table(f"{_e(api)}: {_count(len(mine), 'rule')}",
                       ["Rule", "Level", "Title", "Status", "Checks held / broke", "Source"],
                       rows, attrs=f' data-api="{_e(api)}"')
        if api in tested:
            parts.append(table)
        else:
            untested_apis.append((api, len(mine), table))
    if untested_apis:
        # Rules of APIs this run did not select ("not selected"): kept in the page, folded away.
        total = sum(n for _, n, _ in untested_apis)
        names = ", ".join(_e(api) for api, _, _ in untested_apis)
        parts.append(f"<details><summary>APIs not selected in this run: {names} ({_count(total, 'rule')})</summary>"
                     + "".join(table for _, _, table in untested_apis) + "</details>")
    return f'<section id="matrix"><h2>Rules</h2>{"".join(parts)}</section>'


def _evidence(rule: dict[str, Any]) -> str:
    counts = rule.get("evidence") or {}
    return f'{_e(counts.get("held", 0))} / {_e(counts.get("broke", 0))}' + _exchanges(rule)


def _exchanges(rule: dict[str, Any]) -> str:
    """The exchanges that decided a rule, folded: each by its number in the run (the HAR entry's _id)."""
    refs = (rule.get("evidence") or {}).get("exchanges") or []
    if not refs:
        return ""
    items = "".join(f'<li data-exchange="{_e(ref.get("id"))}"'
                    + (' class="broke"' if ref.get("check") == "broke" else "") + ">"
                    f'#{_e(ref.get("id"))} {_e(ref.get("method"))} <code>{_clip(ref.get("url"), 200)}</code> '
                    f'→ {_e(ref.get("status"))}</li>' for ref in refs)
    return (f'<details class="exchanges"><summary>{_count(len(refs), "exchange")}</summary>'
            f"<ul>{items}</ul></details>")


def _rule_heading(rule: dict[str, Any], prefix: str) -> str:
    rid = _e(rule.get("id"))
    excuses = "".join(f'<p class="note">Expected failure until {_e(x.get("expires"))}: {_e(x.get("reason"))}</p>'
                      for x in rule.get("expected") or [])
    return (f'<h3 id="{prefix}{rid}">{rid}: {_e(rule.get("title"))}</h3>'
            f'<p class="note">{_e(rule.get("level"))} · {_source(rule)}</p>{excuses}')


def _more(items: list[Any], limit: int, what: str) -> str:
    extra = len(items) - limit
    return f'<p class="note">… and {extra} more {_plural(extra, what)} in report.json</p>' if extra > 0 else ""


def _failure(failure: dict[str, Any]) -> str:
    test = _e(failure.get("test"))
    rows = [("Test", f"<code>{test}</code>")]
    if failure.get("expected") or failure.get("received"):
        rows += [("Expected", _clip(failure.get("expected"))), ("Received", _clip(failure.get("received")))]
    else:
        rows.append(("Message", f"<pre>{_clip(failure.get('message'))}</pre>"))
    if failure.get("exchange"):
        rows.append(("Exchange", f'#{_e(failure["exchange"])} (its number in the run, the HAR entry\'s _id)'))
    if failure.get("reproducer"):
        rows.append(("Reproduce", f'<pre class="repro"><code>{_clip(failure["reproducer"], MAX_REPRODUCER)}'
                                  "</code></pre>"))
    summary = f"<p><strong>{_e(failure['summary'])}</strong></p>" if failure.get("summary") else ""
    return (f'<div class="failure" data-test="{test}">{summary}<dl>'
            + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows) + "</dl></div>")


def _failures(report: dict[str, Any]) -> str:
    parts = []
    for rule in report.get("rules") or []:
        failures = rule.get("failures") or []
        if failures:
            shown = failures[:MAX_FAILURES_PER_RULE]
            folded = shown[FAILURES_OPEN:]
            rest = (f"<details><summary>{len(folded)} more {_plural(len(folded), 'failure')} of "
                    f"{_e(rule.get('id'))}</summary>"
                    + "".join(_failure(f) for f in folded) + "</details>") if folded else ""
            # The article is the rule's anchor (report.html#RULE-ID): a link to a failing rule lands on its failure.
            quote = f'<blockquote class="quote">{_e(rule["quote"])}</blockquote>' if rule.get("quote") else ""
            parts.append(f'<article id="{_e(rule.get("id"))}" data-rule="{_e(rule.get("id"))}" '
                         f'data-status="{_e(rule.get("status"))}">'
                         + _rule_heading(rule, "failure-") + quote + _exchanges(rule)
                         + "".join(_failure(f) for f in shown[:FAILURES_OPEN])
                         + rest + _more(failures, MAX_FAILURES_PER_RULE, "failure") + "</article>")
    body = "".join(parts) or "<p>No rule failed.</p>"
    return f'<section id="failures"><h2>Failures ({_count(len(parts), "rule")})</h2>{body}</section>'


def _errors(report: dict[str, Any]) -> str:
    parts = []
    for rule in report.get("rules") or []:
        errors = rule.get("errors") or []
        if errors:
            items = "".join(f'<div class="error" data-test="{_e(err.get("test"))}"><code>{_e(err.get("test"))}'
                            f"</code><pre>{_clip(err.get('message'))}</pre></div>"
                            for err in errors[:MAX_FAILURES_PER_RULE])
            parts.append(f'<article data-rule="{_e(rule.get("id"))}">{_rule_heading(rule, "error-")}{items}'
                         + _more(errors, MAX_FAILURES_PER_RULE, "error") + "</article>")
    lead = ("<p>The suite could not test these rules (the target did not answer usably); "
            "errors are never counted against the target.</p>") if parts else "<p>No test errored.</p>"
    return (f'<section id="errors"><h2>Errors: could not test ({_count(len(parts), "rule")})</h2>{lead}'
            + "".join(parts) + "</section>")


def _observations(report: dict[str, Any]) -> str:
    parts = []
    for rule in report.get("rules") or []:
        seen = rule.get("observations") or []
        if seen:
            items = "".join(f"<p><code>{_e(item.get('test'))}</code></p><pre>"
                            f"{_clip(json.dumps(item.get('seen'), indent=1, ensure_ascii=False, default=str))}</pre>"
                            for item in seen[:MAX_OBSERVATIONS_PER_RULE])
            rid = _e(rule.get("id"))
            parts.append(f'<details id="observation-{rid}" data-rule="{rid}"><summary>{rid}: '
                         f"{_e(rule.get('title'))} ({len(seen)})</summary>{items}"
                         + _more(seen, MAX_OBSERVATIONS_PER_RULE, "observation") + "</details>")
    lead = ("<p>What the target does where the documents leave it open: recorded, never a failure.</p>"
            if parts else "<p>Nothing was observed.</p>")
    return f'<section id="observations"><h2>Observations</h2>{lead}{"".join(parts)}</section>'


def _expectations(report: dict[str, Any]) -> str:
    data, file = report.get("expectations") or {}, (report.get("suite") or {}).get("expectations")
    kinds = (("expected_failures", "Expected failures (excused)"), ("expired", "Expired (these fail the run)"),
             ("unexpected_passes", "Unexpected passes (the deviation is gone: remove the entry)"),
             ("unused", "Unused (nothing in the run spoke of them)"))
    parts = [f"<p>Expectations file: <code>{_e(file)}</code></p>"] if file else []
    for key, title in kinds:
        entries = data.get(key) or []
        if entries:
            rows = (f'<tr data-rule="{_e(x.get("rule"))}"><th scope="row">{_e(x.get("rule"))}</th>'
                    f'<td><code>{_e(x.get("test"))}</code></td><td>{_e(x.get("reason"))}</td>'
                    f'<td>{_e(x.get("expires"))}</td></tr>' for x in entries)
            parts.append(_table(f"{title}: {len(entries)}", ["Rule", "Test", "Reason", "Expires"], rows,
                                attrs=f' data-kind="{key}"'))
    if not any(data.get(key) for key, _ in kinds):
        parts.append("<p>No expectation applied to this run.</p>")
    return f'<section id="expectations"><h2>Expectations</h2>{"".join(parts)}</section>'


def _identifiers(report: dict[str, Any]) -> str:
    """Each identifier the tests used, its value and where it came from: given, or the answer it was read from."""
    found, crawl = report.get("identifiers") or [], report.get("discovery") or {}
    rows = [f'<tr><th scope="row"><code>{_e(i.get("name"))}</code></th>'
            f'<td><code>{_e(_clip(i.get("value"), 120))}</code></td><td>{_e(i.get("source"))}'
            + (f' <code>{_e(i["request"])}</code>' if i.get("request") else "")
            + (f' at <code>{_e(i["pointer"])}</code>' if i.get("pointer") else "") + "</td></tr>" for i in found]
    lead = (f"<p>Discovery sent {_e(crawl.get('requests', 0))} of at most {_e(crawl.get('budget'))} requests.</p>"
            if crawl.get("ran") else "<p>No identifier had to be discovered.</p>")
    body = _table("Identifiers the tests used and their sources", ["Name", "Value", "Source"], rows) if rows else ""
    missing = "".join(f"<li><code>{_e(m.get('name'))}</code>: {_e(m.get('searched'))}</li>"
                      for m in crawl.get("missing") or [])
    body += f"<p>Not found (their tests skip):</p><ul>{missing}</ul>" if missing else ""
    return f'<section id="identifiers"><h2>Identifiers</h2>{lead}{body}</section>'


def _operations(report: dict[str, Any]) -> str:
    rows = [f'<tr><td>{_e(op.get("api"))}</td><th scope="row"><code>{_e(op.get("operation"))}</code></th>'
            + "".join(f'<td class="n">{_e(op.get(key))}</td>' for key in ("requests", "median_ms", "p95_ms", "max_ms"))
            + "</tr>" for op in report.get("operations") or []]
    body = _table("Time the target took to answer, per documented operation",
                  ["API", "Operation", "Requests", "median ms", "p95 ms", "max ms"], rows) if rows \
        else "<p>No documented operation was called.</p>"
    return f'<section id="operations"><h2>Operations</h2>{body}</section>'


def _failed(report: dict[str, Any]) -> bool:
    return any(rule.get("failures") for rule in report.get("rules") or [])


def _sections(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The page's sections in their order: what failed first when anything did, then the scores, then the rest."""
    order = [section for section in SECTIONS if section[0] != "failures"]
    order.insert(0 if _failed(report) else 2, ("failures", "Failures"))
    return ([("history", "History")] if report.get("history") else []) + order


def _history(report: dict[str, Any]) -> str:
    """What changed since the runs of this target kept in the history file, and its score trend."""
    history = report.get("history")
    if not history:
        return ""
    previous = history.get("previous")
    if previous is None:
        lead = f"<p>The first run of <code>{_e(history.get('target'))}</code> kept in the history file.</p>"
    else:
        lead = (f"<p>Since the run of <code>{_e(history.get('target'))}</code> finished "
                f"{_e(previous.get('finished'))} ({_e(previous.get('verdict'))}, score {_pct(previous.get('score'))}"
                f"): {_count(len(history.get('new') or []), 'new failure')}, {_e(len(history.get('fixed') or []))} "
                f"fixed, {_e(len(history.get('still_failing') or []))} still failing.</p>")

    def items(key: str, title: str) -> str:
        entries = history.get(key) or []
        if not entries:
            return ""
        rows = "".join(f'<li data-rule="{_e(e.get("rule"))}"><a href="#{_e(e.get("rule"))}">{_e(e.get("rule"))}</a> '
                       f'({_e(e.get("level"))}) {_e(e.get("title"))}'
                       + (f", failing for {_e(e['runs'])} runs" if e.get("runs") else "")
                       + "</li>" for e in entries)
        return f'<div><strong>{title} ({len(entries)}):</strong> <ul data-kind="{key}">{rows}</ul></div>'

    trend = history.get("trend") or []
    picture = f"<p>Score over the last {_count(len(trend), 'run')}: {trend_svg(trend)}</p>" if trend else ""
    return (f'<section id="history"><h2>History</h2>{lead}{items("new", "New failures")}'
            f'{items("fixed", "Fixed")}{items("still_failing", "Still failing")}{picture}</section>')


def render(report: dict[str, Any]) -> str:
    """The whole page as one string: no external resource, content rendered here, a tiny optional filter."""
    parts = {"history": _history, "scores": _scores, "matrix": _matrix, "failures": _failures, "errors": _errors,
             "observations": _observations, "expectations": _expectations, "identifiers": _identifiers,
             "operations": _operations}
    body = _header(report) + "".join(parts[anchor](report) for anchor, _ in _sections(report))
    body += coverage_section(report)
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>API conformance report</title><style>{STYLE}</style></head>"
            f"<body>{body}<script>{SCRIPT}</script></body></html>\n")
