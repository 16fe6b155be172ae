"""report.html: one self-contained page a vendor can hand over, fully readable with scripts off.

The page is templates/report.html on the layout every page shares (see pages.py): every value goes through the
template's autoescape. What is worked out here is what the page shows, never how: the order of its sections, the
rules grouped by API, clipped text.
"""
from __future__ import annotations

import json
from typing import Any

from jinja2 import Undefined

from conformance.coverage.render import html_section as coverage_section
from conformance.history.trend import picture
from conformance.reporting import pages
from conformance.reporting.build import API_STATUSES, STATUSES

#: Bounds that keep a page of a large run light; report.json keeps everything.
MAX_TEXT = 4_000                 # characters of one message, expected or received value, or observation
MAX_REPRODUCER = 16_000
MAX_FAILURES_PER_RULE = 20
FAILURES_OPEN = 3                # failures of one rule shown unfolded; the rest wait in a <details>
MAX_OBSERVATIONS_PER_RULE = 20

#: The page's only script, which its policy admits by hash.
SCRIPT = pages.SCRIPT
VERDICTS = {"conformant": "✓ Conformant", "violations": "✗ Violations: the target broke at least one rule",
            "untestable": "! Could not be tested", "incomplete": "… Incomplete: the run stopped before it was done"}
SECTIONS = (("scores", "Scores"), ("matrix", "Rules"), ("failures", "Failures"), ("errors", "Errors"),
            ("observations", "Observations"), ("expectations", "Expectations"), ("identifiers", "Identifiers"),
            ("operations", "Operations"))
SCORE_HEAD = (["API", "score: required rules passed/tested", "score %", "operations exercised", "rules exercised"]
              + [f"{pages.MARKS[s]} {s}" for s in API_STATUSES])


def _clip(value: Any, limit: int = MAX_TEXT) -> str:
    """The text of a value, cut at `limit` characters with a note of how many more report.json has."""
    text = "" if value is None or isinstance(value, Undefined) else str(value)
    if len(text) <= limit:
        return pages.dash(text)
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters in report.json)"


def _as_json(value: Any) -> str:
    return json.dumps(None if isinstance(value, Undefined) else value, indent=1, ensure_ascii=False, default=str)


def _anchor(rule: dict[str, Any]) -> str:
    """Where a rule's ID in the matrix leads: its failure, its error or its observation, else nowhere."""
    if rule.get("failures"):
        return "failure-"
    if rule.get("errors"):
        return "error-"
    return "observation-" if rule.get("observations") else ""


def _matrix(report: dict[str, Any]) -> dict[str, Any]:
    """The rules under the first of their APIs this run tested; those of APIs it did not select apart."""
    rules, tested = report.get("rules") or [], list((report.get("target") or {}).get("apis") or [])
    groups: dict[str, list[dict[str, Any]]] = {api: [] for api in tested}
    for rule in rules:
        apis = rule.get("api") or ["—"]
        home = next((api for api in apis if api in tested), apis[0])
        groups.setdefault(home, []).append(rule)
    folded = [(api, mine) for api, mine in groups.items() if mine and api not in tested]
    return {"counts": {status: sum(rule.get("status") == status for rule in rules) for status in STATUSES},
            "tested": [(api, mine) for api, mine in groups.items() if mine and api in tested],
            "folded": folded, "folded_rules": sum(len(mine) for _, mine in folded)}


def _contract(suite: dict[str, Any]) -> dict[str, Any] | None:
    """How many files the run was judged against are pinned, and which documents were not found."""
    pinned = suite.get("contract")
    if pinned is None:
        return None
    missing = [name for name, digest in pinned.items() if digest is None]
    return {"pinned": len(pinned) - len(missing), "missing": missing}


def _sections(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The page's sections in their order: what failed first when anything did, then the scores, then the rest."""
    failed = any(rule.get("failures") for rule in report.get("rules") or [])
    order = [section for section in SECTIONS if section[0] != "failures"]
    order.insert(0 if failed else 2, ("failures", "Failures"))
    return ([("history", "History")] if report.get("history") else []) + order


def render(report: dict[str, Any]) -> str:
    """The whole page as one string: no external resource, content rendered here, a tiny optional filter."""
    trend = (report.get("history") or {}).get("trend")
    return pages.render(
        "report.html", report=report, sections=_sections(report), matrix=_matrix(report),
        contract=_contract(report.get("suite") or {}), coverage=coverage_section(report),
        picture=picture(trend) if trend else None, verdicts=VERDICTS, api_statuses=API_STATUSES, score_head=SCORE_HEAD,
        anchor=_anchor, clip=_clip, as_json=_as_json, max_reproducer=MAX_REPRODUCER,
        max_failures=MAX_FAILURES_PER_RULE, failures_open=FAILURES_OPEN, max_observations=MAX_OBSERVATIONS_PER_RULE)
