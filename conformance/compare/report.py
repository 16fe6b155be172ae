"""The outcome of a comparison: per API what was sent and what differed, as text for people and as compare.json."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.clients.http import redacted
from conformance.compare.differ import Difference
from conformance.compare.normalize import Outcome
from conformance.compare.requests_plan import Request
from conformance.reporting.write import json_text
from conformance.specs import ALL_APIS

#: Differences printed per request; compare.json carries them all (up to MAX_KEPT).
MAX_SHOWN = 8
MAX_KEPT = 500


@dataclass
class Compared:
    """One request, what each endpoint answered, and where the answers differ."""

    request: Request
    baseline: Outcome
    candidate: Outcome
    differences: list[Difference] = field(default_factory=list)
    skipped: str | None = None            # why the answers could not be compared
    reproduce: dict[str, str] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        return self.skipped is None and not self.differences

    def as_dict(self) -> dict[str, Any]:
        out = {**self.request.as_dict(), "baseline": self.baseline.code, "candidate": self.candidate.code,
               "identical": self.identical, "differences": [d.as_dict() for d in self.differences[:MAX_KEPT]]}
        if len(self.differences) > MAX_KEPT:
            out["differences_left_out"] = len(self.differences) - MAX_KEPT
        if self.skipped:
            out["not_compared"] = self.skipped
        if not self.identical:
            out["reproduce"] = self.reproduce
        return out


@dataclass
class Comparison:
    baseline_url: str                      # each endpoint's URLs, as one line
    candidate_url: str
    apis: tuple[str, ...]
    results: list[Compared] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)       # "<api>: what is not compared, and why"
    stopped: str | None = None             # why the comparison ended before its plan did
    required: tuple[str, ...] = ()         # the APIs --api named: one with nothing to ask leaves it incomplete
    identifiers: dict[str, dict[str, str]] = field(default_factory=dict)   # name -> value asked of both, from where
    identifier_notes: list[str] = field(default_factory=list)            # where the two crawls disagreed
    discovery: dict[str, dict[str, Any]] = field(default_factory=dict)   # role -> its crawl (discovery.listing)
    urls: dict[str, dict[str, str | None]] = field(default_factory=dict)  # role -> API -> base URL

    @property
    def differing(self) -> list[Compared]:
        return [r for r in self.results if r.differences]

    @property
    def unasked(self) -> list[str]:
        """The APIs --api named that had nothing to ask (none of their requests could be formed)."""
        return [api for api in self.required if not self.counts(api)["requests"]]

    def counts(self, api: str) -> dict[str, int]:
        mine = [r for r in self.results if r.request.api == api]
        return {"requests": len(mine), "identical": sum(r.identical for r in mine),
                "differing": sum(bool(r.differences) for r in mine),
                "not_compared": sum(r.skipped is not None for r in mine)}

    def notes_of(self, api: str) -> list[str]:
        return [note.split(": ", 1)[1] for note in self.notes if note.startswith(f"{api}: ")]

    def as_dict(self) -> dict[str, Any]:
        kinds = Counter(d.kind for r in self.results for d in r.differences)
        apis: dict[str, Any] = {api: self.counts(api) for api in self.apis}
        for api, counts in apis.items():
            if not counts["requests"]:
                counts["nothing_asked"] = self.notes_of(api)   # never a silent 0
        return {"baseline": self.baseline_url, "candidate": self.candidate_url, "urls": self.urls,
                "complete": self.stopped is None and not self.unasked, "stopped": self.stopped,
                "differences": sum(kinds.values()), "by_kind": dict(kinds), "apis": apis, "notes": self.notes,
                "identifiers": self.identifiers, "identifier_notes": self.identifier_notes,
                "discovery": self.discovery, "requests": [r.as_dict() for r in self.results]}


def render_text(comparison: Comparison, exit_code: int) -> str:
    lines = ["conformance compare", f"  baseline:  {comparison.baseline_url}",
             f"  candidate: {comparison.candidate_url}", ""]
    if comparison.discovery:
        crawled = ", ".join(f"the {role} {found['requests']}" for role, found in comparison.discovery.items())
        by = Counter(entry["from"] for entry in comparison.identifiers.values())
        lines.append(f"identifiers: {by['given']} given, {by['baseline'] + by['candidate']} discovered "
                     f"(requests: {crawled})")
        lines += [f"  note: {note}" for note in comparison.identifier_notes]
    for api in [a for a in ALL_APIS if a in comparison.apis]:
        counts = comparison.counts(api)
        n = counts["requests"]
        if not n:
            lines.append(f"{api}: nothing compared")
            lines += [f"  {note}" for note in comparison.notes_of(api)]
            continue
        summary = f"{api}: {n} request{'s' if n != 1 else ''} sent to each endpoint, {counts['identical']} " \
                  f"identical, {counts['differing']} differing"
        if counts["not_compared"]:
            summary += f", {counts['not_compared']} not compared"
        lines.append(summary)
        for result in (r for r in comparison.results if r.request.api == api and not r.identical):
            lines += _render_result(result)
        lines += [f"  note: {note}" for note in comparison.notes_of(api)]
    lines.append("")
    if comparison.stopped:
        lines.append(f"stopped early: {comparison.stopped}")
    if comparison.unasked:
        lines.append(f"nothing to ask of {', '.join(comparison.unasked)}, named by --api")
    total = sum(len(r.differences) for r in comparison.results)
    verdict = {0: "no difference", 1: "the endpoints differ", 3: "the comparison is incomplete"}.get(exit_code, "")
    lines.append(f"{total} difference{'s' if total != 1 else ''} in {len(comparison.differing)} of "
                 f"{len(comparison.results)} requests: {verdict} (exit {exit_code})")
    return "\n".join(lines)


def _render_result(result: Compared) -> list[str]:
    request = result.request
    head = " (latest items: compared by shape)" if request.head else ""
    lines = [f"  {request.operation}  {request.describe()}{head}"]
    if result.skipped:
        return lines + [f"    not compared: {result.skipped}"]
    for difference in result.differences[:MAX_SHOWN]:
        lines.append(f"    {difference.kind:<10} {difference.path or '(answer)'}: "
                     f"baseline {difference.baseline} | candidate {difference.candidate}")
    if len(result.differences) > MAX_SHOWN:
        lines.append(f"    … and {len(result.differences) - MAX_SHOWN} more differences (see compare.json)")
    return lines


def write_json(comparison: Comparison, report_dir: Path, secrets: tuple[str, ...] = ()) -> Path:
    path = report_dir / "compare.json"
    path.write_text(json_text(redacted(comparison.as_dict(), secrets)), encoding="utf-8")
    return path
