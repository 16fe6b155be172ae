"""summary.md: the run in a few lines, fit for a pull-request comment or a CI job summary."""
from __future__ import annotations

from typing import Any

from conformance.coverage.render import markdown_lines as coverage_lines
from conformance.reporting.build import API_STATUSES, NOT_SELECTED, first_problem, ridden_line
from conformance.reporting import undecided

VERDICTS = {"conformant": "✅ conformant", "violations": "❌ violations", "untestable": "⚠️ could not be tested",
            "incomplete": "⏸️ incomplete"}
MAX_FAILURES = 40  # a pull-request comment has a size limit; report.html has them all


def _fence(text: str) -> str:
    return "```sh\n" + text.replace("```", "` ` `") + "\n```"


def _identifiers(report: dict[str, Any]) -> list[str]:
    """One line on the identifiers used (given, discovered and in how many requests, missing), their table folded."""
    found, crawl = report.get("identifiers") or [], report.get("discovery") or {}
    if not found and not crawl.get("missing"):
        return []
    given = sum(i.get("source") == "given" for i in found)
    line = (f"Identifiers: {len(found) - given} discovered in {crawl.get('requests', 0)} requests, {given} given"
            + (f" · not found: {', '.join(m['name'] for m in crawl['missing'])}" if crawl.get("missing") else ""))
    rows = [f"| `{i['name']}` | `{i['value']}` | {i['source']}" + (f" `{i['pointer']}`" if i.get("pointer") else "")
            + " |" for i in found]
    return [line, "", "<details><summary>identifiers and their sources</summary>", "", "| name | value | source |",
            "|---|---|---|", *rows, "", "</details>", ""]


def _history(history: dict[str, Any] | None) -> list[str]:
    """What changed since the previous runs of this target: new and fixed rules, those failing for several runs."""
    if not history:
        return []
    if history.get("previous") is None:
        return [f"History of `{history['target']}`: the first run kept; every failure is new.", ""]
    lines = [f"History of `{history['target']}` since the run of {history['previous']['finished']}: "
             f"{len(history['new'])} new, {len(history['fixed'])} fixed, "
             f"{len(history['still_failing'])} still failing", ""]
    for key, title in (("new", "New failures"), ("fixed", "Fixed")):
        if history[key]:
            lines += [f"**{title}:** " + ", ".join(f"{e['rule']} ({e['level']})" for e in history[key]), ""]
    if history["still_failing"]:
        lines += ["**Still failing:** " + ", ".join(f"{e['rule']} ({e['runs']} runs)"
                                                    for e in history["still_failing"]), ""]
    return lines


def render(report: dict[str, Any]) -> str:
    summary, suite, target = report["summary"], report["suite"], report["target"]
    where = "the embedded reference target" if target["reference"] else ", ".join(
        f"{name} `{url}`" for name, url in target["urls"].items() if url)
    lines = [f"## API conformance: {VERDICTS.get(summary['verdict'], summary['verdict'])}", "",
             f"Target: {where} · profile `{suite['profile']}` · gate `{suite['gate']}` · "
             f"suite {suite['version']} · {suite['finished']}", ""]
    if suite.get("aborted"):
        lines += [f"**The run stopped before testing:** {suite['aborted']}", ""]
    if suite.get("interrupted"):
        lines += [f"**The run stopped early:** {suite['interrupted']}; the rules it did not reach are untested.", ""]
    ridden = ridden_line(suite)
    if ridden:
        lines += [f"**On the way to the target:** {ridden}.", ""]
    lines += [f"Tests: {summary['passed']} passed, {summary['failed']} failed, {summary['errors']} errors, "
              f"{summary['skipped']} skipped"
              + (f", {summary['flaky']} flaky" if summary.get("flaky") else "")
              + (f", {summary['expected_failures']} expected failures" if summary["expected_failures"] else "")
              + f" · {summary['requests']} requests", ""]
    lines += _identifiers(report)
    lines += coverage_lines(report)
    if report["apis"]:
        lines += ["| API | score (required rules passed / tested) | " + " | ".join(API_STATUSES) + " | operations |",
                  "|---|---|" + "---|" * len(API_STATUSES) + "---|"]
        for api, data in report["apis"].items():
            score = data["score"]
            ratio = f"{score['ratio']:.1%}" if score["ratio"] is not None else "—"
            ops = data["coverage"]["operations"]
            decided = f", {score['tested']} of {score['required']} decided" if "required" in score else ""
            lines.append(f"| {api} | {ratio} ({score['passed']}/{score['tested']}{decided}) | "
                         + " | ".join(str(data["statuses"].get(s, 0)) for s in API_STATUSES)
                         + f" | {ops['exercised']}/{ops['total']} |")
        lines.append("")
    left_open = undecided.lines(report)
    if left_open:
        lines += ["**Not decided:**", ""] + [f"- {line}" for line in left_open] + [""]
    not_selected = sum(rule["status"] == NOT_SELECTED for rule in report["rules"])
    if not_selected:
        lines += [f"{not_selected} rules of APIs not selected in this run are left out.", ""]
    lines += _history(report.get("history"))
    failing = [rule for rule in report["rules"] if rule["status"] in ("fail", "error")]
    if failing:
        lines += [f"### Failing rules ({len(failing)})", ""]
        for rule in failing[:MAX_FAILURES]:
            excused = " *(expected)*" if rule.get("expected") else ""
            first = (rule.get("failures") or rule.get("errors") or [{}])[0]
            what = first_problem(rule)
            counts = rule.get("evidence") or {}
            lines.append(f"- **{rule['id']}** ({rule['level']}, {rule['status']}){excused}: {rule['title']}"
                         + (f" — {what}" if what else "")
                         + f" · checks held {counts.get('held', 0)}, broke {counts.get('broke', 0)}")
            if first.get("reproducer"):
                lines += ["  <details><summary>reproduce</summary>", "", "  " + _fence(first["reproducer"])
                          .replace("\n", "\n  "), "", "  </details>"]
        if len(failing) > MAX_FAILURES:
            lines.append(f"- … and {len(failing) - MAX_FAILURES} more (see report.html)")
        lines.append("")
    expectations = report.get("expectations", {})
    notes = [("Expired expectations (these fail the run)", expectations.get("expired", [])),
             ("Unexpected passes (the deviation is gone: remove the entry)", expectations.get("unexpected_passes", []))]
    for title, entries in notes:
        if entries:
            lines += [f"### {title}", ""] + [f"- {e['rule']}" + (f" `{e['test']}`" if e.get("test") else "")
                                             + f" — {e['reason']} (expires {e['expires']})" for e in entries] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"
