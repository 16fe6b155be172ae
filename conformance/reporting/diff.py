"""`conformance diff OLD NEW`: what changed between two report.json files, and whether it is a regression.

Before an upgrade this is the one answer that must be right, so a new run that decided less than the old one is
never read as "no regression": the settings that differ are said first, then every way the new run is narrower
(an API not selected, rules no longer decided, coverage that fell, a smaller profile), a regression unless
`--allow-narrower`, then the verdicts that moved.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.coverage.items import REPORTED, STATES
from conformance.errors import ConfigError
from conformance.profiles import PROFILES
from conformance.reporting import undecided
from conformance.reporting.build import NOT_SELECTED, SCHEMA, first_problem
from conformance.reporting.contract import REDACTED, contract_changes

#: The statuses that decide a rule: a check of it held or broke, or (an observe rule) what the target did was seen.
#: Every other status (untested, skip, error, not selected) says the run left the rule open.
DECIDED = frozenset({"pass", "fail", "flaky", "observed"})
#: Rules of one cause are listed one by one up to this many; more are one line with their count (json lists all).
GROUP_AT = 5
#: Tests or requests below this share of the old run's are shown: a live chain or a retried request moves the
#: counts by a few percent from run to run, a fifth fewer is a smaller run.
FEWER = 0.8
#: Options that say where the reports went or how hard the run pushed this machine, not what was decided: a change
#: of them is no line of the diff.
NOT_OF_THE_VERDICTS = frozenset({"report_dir", "har", "history", "concurrency", "max_memory", "draw_ahead"})
#: Options the report records as the run resolved them, in `suite` and `target`: those are compared instead (the
#: seed used, not None for "not given"; the EVM chain found, not only the one given).
RESOLVED = frozenset({"api", "profile", "gate", "seed", "expectations", "evm_chain",
                      "target_url", "node_url", "evm_rpc_url", "data_url", "metrics_url"})
#: An operation's coverage states from the least seen to the most; "unreachable" is none of them (listed apart).
_RANK = {state: rank for rank, state in enumerate(reversed(STATES[:3]))}
_ABSENT = object()


def load_report(path: str | Path) -> dict[str, Any]:
    """A report.json, checked enough to compare; anything else is a usage error naming the file."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such report") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable report.json ({type(exc).__name__})") from None
    if not isinstance(report, dict) or report.get("schema") != SCHEMA or not isinstance(report.get("rules"), list):
        raise ConfigError(f"{path}: not a conformance report (expected schema {SCHEMA})")
    return report


@dataclass
class Change:
    rule: str
    level: str
    title: str
    old: str
    new: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "level": self.level, "title": self.title, "old": self.old, "new": self.new,
                **({"detail": self.detail} if self.detail else {})}

    def text(self, arrow: str = "->", detail: bool = True) -> str:
        return (f"{self.rule} ({self.level}) {self.old} {arrow} {self.new}: {self.title}"
                + (f" — {self.detail}" if detail and self.detail else ""))


@dataclass
class Setting:
    """A setting, or a fact of how a run was made (its APIs, target, suite version), that differs between two
    reports; secrets as the report holds them, `***`."""

    name: str
    old: Any
    new: Any

    def to_json(self) -> dict[str, Any]:
        return {"setting": self.name, "old": self.old, "new": self.new}

    def text(self, arrow: str = "->") -> str:
        return f"{self.name}: {_shown(self.name, self.old)} {arrow} {_shown(self.name, self.new)}"


@dataclass
class Narrowing:
    """One way the new run decided less than the old: a cause shared by the `rules` it left undecided (an API not
    selected, an interruption, `--rule`), a smaller profile, a coverage figure that fell, or the `operations` of
    an API whose coverage fell."""

    kind: str                 # "rules", "profile", "coverage" or "operations"
    what: str
    old: Any = None
    new: Any = None
    unit: str = ""
    rules: list[Change] = field(default_factory=list)
    operations: list[Setting] = field(default_factory=list)   # operation: old state -> new state
    api: str = ""              # of a coverage figure, or of the operations
    dimension: str = ""        # of a coverage figure

    def to_json(self) -> dict[str, Any]:
        if self.kind == "rules":
            return {"kind": self.kind, "what": self.what, "count": len(self.rules),
                    "rules": [c.rule for c in self.rules]}
        if self.kind == "operations":
            return {"kind": self.kind, "what": self.what, "api": self.api, "count": len(self.operations),
                    "operations": [{"operation": o.name, "old": o.old, "new": o.new} for o in self.operations]}
        return {"kind": self.kind, "what": self.what, **({"api": self.api} if self.api else {}),
                **({"dimension": self.dimension} if self.dimension else {}), "old": self.old, "new": self.new}

    def text(self, arrow: str = "->") -> str:
        if self.kind == "rules":
            return self.what + (f": {_count(self.rules, 'rule')} no longer decided" if self.rules else "")
        if self.kind == "operations":
            return f"{self.what}: {_count(self.operations, 'operation')} covered less"
        return f"{self.what}: {self.old}{self.unit} {arrow} {self.new}{self.unit}"

    def details(self, arrow: str = "->") -> list[str]:
        """A line per rule or operation, when few enough to read; their count says the rest (json lists all)."""
        if len(self.rules) + len(self.operations) > GROUP_AT:
            return []
        return [c.text(arrow, detail=False) for c in self.rules] + [o.text(arrow) for o in self.operations]


def _count(items: list[Any], noun: str) -> str:
    return f"{len(items)} {noun}{'s' if len(items) != 1 else ''}"


@dataclass
class ReportDiff:
    #: What the two reports say of how they were run, where it differs: said first, never a regression by itself.
    settings: list[Setting] = field(default_factory=list)
    #: How the contracts the two reports were judged against differ (empty: the same). Said first, never a
    #: regression by itself: a rule's verdicts may have moved because the rule did.
    contract: dict[str, Any] = field(default_factory=dict)
    #: Every way the new run is narrower than the old; a regression unless `allow_narrower`.
    narrowing: list[Narrowing] = field(default_factory=list)
    #: Tests and requests the new run made far fewer of: shown, not a regression (a run may decide as much with fewer).
    fewer: list[Setting] = field(default_factory=list)
    newly_failing: list[Change] = field(default_factory=list)
    failing_untested_before: list[Change] = field(default_factory=list)   # not a regression: nothing to compare
    newly_erroring: list[Change] = field(default_factory=list)
    newly_passing: list[Change] = field(default_factory=list)
    #: Decided before (pass, fail, flaky, observed), now untested, skipped or not selected: each with its cause.
    no_longer_decided: list[Change] = field(default_factory=list)
    #: Undecided before, decided now (the new run is wider there): each with why it was not decided before.
    newly_decided: list[Change] = field(default_factory=list)
    observations: list[Change] = field(default_factory=list)
    slower: list[dict[str, Any]] = field(default_factory=list)
    allow_narrower: bool = False

    @property
    def narrower(self) -> bool:
        return bool(self.narrowing)

    @property
    def regressed(self) -> bool:
        # A rule that now errors stays a regression under --allow-narrower: the target, not the selection, kept
        # it from being decided.
        return bool(self.newly_failing or self.newly_erroring or self.slower
                    or (self.narrowing and not self.allow_narrower))

    def to_json(self) -> dict[str, Any]:
        return {"regressed": self.regressed, "narrower": self.narrower, "allow_narrower": self.allow_narrower,
                "settings": [s.to_json() for s in self.settings],
                "same_contract": not self.contract, "contract": self.contract,
                "narrowing": [n.to_json() for n in self.narrowing], "fewer": [s.to_json() for s in self.fewer],
                **{name: [c.to_json() for c in getattr(self, name)]
                   for name in ("newly_failing", "failing_untested_before", "newly_erroring", "newly_passing",
                                "no_longer_decided", "newly_decided", "observations")},
                "slower": self.slower}


def _first_problem(rule: dict[str, Any]) -> str:
    return first_problem(rule)[:300]


#: Free text in an observation (an error's message, a body excerpt) changes with the data, not the behaviour.
_FREE_TEXT = frozenset({"message", "body"})
#: A member that measures the run's own clock (how old an answer is, how long it took) changes with the minute the
#: run was made; one that is a URL changes with where the target was reached (its host and port), not what it did.
_MEASURED = re.compile(r"(^|_)(age|elapsed|duration|latency)(_|$)|_ms$")
_AUTHORITY = re.compile(r"^[a-z][a-z0-9+.-]*://[^/?#]*", re.IGNORECASE)


def _without_free_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_free_text(v) for k, v in value.items() if k not in _FREE_TEXT and not _MEASURED.search(k)}
    if isinstance(value, list):
        return [_without_free_text(v) for v in value]
    if isinstance(value, str) and _AUTHORITY.match(value):
        return _AUTHORITY.sub("", value)
    return value


def _seen(rule: dict[str, Any]) -> list[str]:
    return sorted({json.dumps(_without_free_text(o.get("seen")), sort_keys=True, default=str)
                   for o in rule.get("observations", [])})


def compare_reports(old: dict[str, Any], new: dict[str, Any], *, slower_factor: float = 2.0,
                    slower_ms: float = 100.0, allow_narrower: bool = False) -> ReportDiff:
    """Settings and contract first; rules compared by ID; an operation is slower when its median grew by
    `slower_factor` AND `slower_ms`. With `allow_narrower` a narrower new run is shown but is no regression."""
    result = ReportDiff(settings=setting_changes(old, new), contract=contract_changes(old, new),
                        fewer=_fewer(old, new), allow_narrower=allow_narrower)
    old_apis, new_apis = _apis(old), _apis(new)
    before = {rule["id"]: rule for rule in old["rules"]}
    for rule in new["rules"]:
        was = before.get(rule["id"])
        if was is None:
            continue   # a rule the old catalogue had not: the contract's changes name it
        change = Change(rule["id"], rule["level"], rule["title"], was["status"], rule["status"])
        if was["status"] in DECIDED and rule["status"] == "error":
            change.detail = _first_problem(rule)
            result.newly_erroring.append(change)
        elif was["status"] in DECIDED and rule["status"] not in DECIDED:
            change.detail = _why_undecided(rule, old_apis, new)
            result.no_longer_decided.append(change)
        elif rule["status"] == "fail" and was["status"] != "fail":
            change.detail = _first_problem(rule)
            (result.failing_untested_before if was["status"] in ("untested", NOT_SELECTED)
             else result.newly_failing).append(change)
        elif rule["status"] == "pass" and was["status"] in ("fail", "flaky"):
            result.newly_passing.append(change)
        elif rule["status"] in DECIDED and was["status"] not in DECIDED:
            change.detail = _why_undecided_before(was, new_apis)
            result.newly_decided.append(change)
        if rule["level"] == "observe" and rule["status"] == was["status"] == "observed":
            old_seen, new_seen = _seen(was), _seen(rule)
            if old_seen != new_seen:
                gone = [s for s in old_seen if s not in new_seen]
                came = [s for s in new_seen if s not in old_seen]
                change.old, change.new = "; ".join(gone)[:500] or "-", "; ".join(came)[:500] or "-"
                result.observations.append(change)
    result.narrowing = _narrowing(old, new, result.no_longer_decided)
    old_ops = {(op["api"], op["operation"]): op for op in old.get("operations", [])}
    for op in new.get("operations", []):
        was = old_ops.get((op["api"], op["operation"]))
        if (was and op["median_ms"] > was["median_ms"] * slower_factor
                and op["median_ms"] - was["median_ms"] > slower_ms):
            result.slower.append({"api": op["api"], "operation": op["operation"],
                                  "old_median_ms": was["median_ms"], "new_median_ms": op["median_ms"]})
    return result


# How the runs were made ---------------------------------------------------------------------------------------

def _how_run(report: dict[str, Any], urls: bool) -> dict[str, Any]:
    """What a report says of how its run was made, by setting name: the facts the run resolved (suite version,
    target, APIs, profile, gate, seed used, EVM chain found) over the options as given, then the versions the
    target answered with. A name the report does not record is left out; the URLs too unless `urls`."""
    suite, target = report.get("suite") or {}, report.get("target") or {}
    options = suite.get("options") or {}
    reference = target.get("reference", _ABSENT)
    out: dict[str, Any] = {
        "suite version": suite.get("version", _ABSENT),
        "target": reference if reference is _ABSENT else ("the embedded reference" if reference else "a live target"),
        **({f"{name.replace('_', '-')}-url": url for name, url in (target.get("urls") or {}).items()} if urls else {}),
        "evm-chain": target.get("evm_chain", _ABSENT),
        "api": target.get("apis", _ABSENT),
        **{name: suite.get(name, _ABSENT) for name in ("profile", "gate", "seed", "expectations")},
        **{name.replace("_", "-"): _redacted(name, value) for name, value in options.items()
           if name not in RESOLVED and name not in NOT_OF_THE_VERDICTS},
        **{f"{side} version": found for side, found in (target.get("versions") or {}).items()},
    }
    return {name: value for name, value in out.items() if value is not _ABSENT}


def _redacted(name: str, value: Any) -> Any:
    """A secret option as `***` whatever the report holds: a report written by hand or an older suite may hold it."""
    if name == "api_key":
        return REDACTED if value else None
    if name == "sample" and isinstance(value, list):
        return [f"{item.partition('=')[0]}={REDACTED}" if "key" in item.partition("=")[0].lower() else item
                for item in value]
    return value


def setting_changes(old: dict[str, Any], new: dict[str, Any]) -> list[Setting]:
    """Every setting and fact of how the runs were made that differs, in the order a reader asks about them. The
    URLs of two runs against the embedded reference are not compared: it listens on a new port each time."""
    both_reference = all((report.get("target") or {}).get("reference") is True for report in (old, new))
    before, after = _how_run(old, urls=not both_reference), _how_run(new, urls=not both_reference)
    return [Setting(name, before[name], value) for name, value in after.items()
            if name in before and before[name] != value]


def _shown(name: str, value: Any) -> str:
    if value is None or value == []:
        return "every rule" if name == "rule" else "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)


def _apis(report: dict[str, Any]) -> list[str]:
    return list((report.get("target") or {}).get("apis") or [])


def _fewer(old: dict[str, Any], new: dict[str, Any]) -> list[Setting]:
    before, after = old.get("summary") or {}, new.get("summary") or {}
    return [Setting(name, before[name], after[name]) for name in ("tests", "requests")
            if isinstance(before.get(name), int) and isinstance(after.get(name), int)
            and after[name] < before[name] * FEWER]


# What the new run no longer decided -------------------------------------------------------------------------

def _why_undecided(rule: dict[str, Any], old_apis: list[str], new: dict[str, Any]) -> str:
    """Why the new run left open a rule the old one decided, in words every rule of that cause shares: per API, so
    that the many rules of one API not selected read as one line."""
    apis = rule.get("api") or ["?"]
    if rule["status"] == NOT_SELECTED:
        # a rule of several APIs is not selected when none of them is: named after one the old run tested
        return f"API {next((api for api in apis if api in old_apis), apis[0])} not selected"
    return f"{apis[0]}: {undecided.cause(rule, new.get('suite'))}"


def _why_undecided_before(rule: dict[str, Any], new_apis: list[str]) -> str:
    """Why the old run had left open a rule the new one decides (`rule` as the old report has it)."""
    apis = rule.get("api") or ["?"]
    if rule["status"] == NOT_SELECTED:
        return f"API {next((api for api in apis if api in new_apis), apis[0])} now selected"
    return f"{apis[0]}: {rule['status']} before"


def _by_cause(changes: list[Change]) -> dict[str, list[Change]]:
    """Changes grouped by their detail (the cause), in the order first met."""
    groups: dict[str, list[Change]] = {}
    for change in changes:
        groups.setdefault(change.detail, []).append(change)
    return groups


def _narrowing(old: dict[str, Any], new: dict[str, Any], undecided: list[Change]) -> list[Narrowing]:
    """A smaller profile; the rules no longer decided, per cause; an API tested before and not now (named even when
    it decided no rule); each coverage figure that fell."""
    out = []
    old_profile, new_profile = (old.get("suite") or {}).get("profile"), (new.get("suite") or {}).get("profile")
    if old_profile in PROFILES and new_profile in PROFILES and _size(new_profile) < _size(old_profile):
        out.append(Narrowing("profile", "smaller profile", old_profile, new_profile))
    # The APIs not selected first, in the old run's order, each named even when it decided no rule.
    groups: dict[str, list[Change]] = {f"API {api} not selected": [] for api in _apis(old) if api not in _apis(new)}
    for cause, changes in _by_cause(undecided).items():
        groups.setdefault(cause, []).extend(changes)
    out += [Narrowing("rules", cause, rules=changes) for cause, changes in groups.items()]
    return out + _coverage_fell(old, new)


def _size(profile: str) -> tuple[int, int, int]:
    """How much a profile does: cases per property test, pages per walk, items sampled (they grow together)."""
    chosen = PROFILES[profile]
    return chosen.examples, chosen.pages, chosen.sample


def _coverage_fell(old: dict[str, Any], new: dict[str, Any]) -> list[Narrowing]:
    """Each dimension of an API, and each operation, that both runs measured and the new one showed less of."""
    before, after = old.get("coverage") or {}, new.get("coverage") or {}
    out = []
    for api, now in after.items():
        was = before.get(api)
        if was is None:
            continue
        for dimension in REPORTED:
            old_percent = (was.get(dimension) or {}).get("percent")
            new_percent = (now.get(dimension) or {}).get("percent")
            if old_percent is not None and new_percent is not None and new_percent < old_percent:
                out.append(Narrowing("coverage", f"coverage of {api} {dimension.replace('_', ' ')} fell",
                                     old_percent, new_percent, unit="%", api=api, dimension=dimension))
        old_detail = was.get("detail") or {}
        fell = []
        for operation, entry in (now.get("detail") or {}).items():
            old_state = str((old_detail.get(operation) or {}).get("status"))
            new_state = str(entry.get("status"))
            if old_state in _RANK and new_state in _RANK and _RANK[new_state] < _RANK[old_state]:
                fell.append(Setting(operation, old_state.replace("_", " "), new_state.replace("_", " ")))
        if fell:
            out.append(Narrowing("operations", api, operations=fell, api=api))
    return out


# Text and markdown --------------------------------------------------------------------------------------------

_SECTIONS = (("newly_failing", "Newly failing rules"),
             ("failing_untested_before", "Failing rules the old report did not test"),
             ("newly_erroring", "Rules that can no longer be tested"),
             ("newly_passing", "Newly passing rules"),
             ("observations", "Observations that changed"))


def _verdict(diff: ReportDiff) -> str:
    if diff.regressed:
        return "REGRESSED"
    return "no regression (narrower, allowed by --allow-narrower)" if diff.narrower else "no regression"


def _narrowing_title(diff: ReportDiff) -> str:
    count = len(diff.no_longer_decided)
    return ("Narrower than the old run" + (f" ({_count(diff.no_longer_decided, 'rule')} no longer decided)" if count
                                           else "")
            + (", allowed by --allow-narrower" if diff.allow_narrower else ", a regression without --allow-narrower"))


def render_text(diff: ReportDiff, old_name: str, new_name: str) -> str:
    lines = [f"conformance diff: {old_name} -> {new_name}: {_verdict(diff)}"]
    if diff.settings:
        lines.append(f"Settings that changed ({len(diff.settings)}):")
        lines += [f"  {setting.text()}" for setting in diff.settings]
    lines += contract_text(diff.contract)
    if diff.narrowing:
        lines.append(f"{_narrowing_title(diff)}:")
        for narrowing in diff.narrowing:
            lines.append(f"  {narrowing.text()}")
            lines += [f"    {line}" for line in narrowing.details()]
    if diff.fewer:
        lines.append("Smaller run (not a regression by itself): " + "; ".join(s.text() for s in diff.fewer))
    for name, title in _SECTIONS:
        changes = getattr(diff, name)
        if changes:
            lines.append(f"{title} ({len(changes)}):")
            lines += [f"  {c.text()}" for c in changes]
    if diff.newly_decided:
        lines.append(f"Newly decided rules ({len(diff.newly_decided)}):")
        for cause, changes in _by_cause(diff.newly_decided).items():
            lines.append(f"  {cause}: {_count(changes, 'rule')}")
            lines += [f"    {c.text(detail=False)}" for c in _listed(changes)]
    if diff.slower:
        lines.append(f"Slower operations ({len(diff.slower)}):")
        lines += [f"  {s['api']} {s['operation']}: median {s['old_median_ms']:g} ms -> {s['new_median_ms']:g} ms"
                  for s in diff.slower]
    return "\n".join(lines)


def _listed(changes: list[Change]) -> list[Change]:
    """The rules of one cause worth a line each: all of a few, none of many (their count says it; json lists them)."""
    return changes if len(changes) <= GROUP_AT else []


def render_markdown(diff: ReportDiff, old_name: str, new_name: str) -> str:
    verdict = ("❌ regressed" if diff.regressed
               else "✅ no regression" + (" (narrower, allowed by `--allow-narrower`)" if diff.narrower else ""))
    lines = [f"## Conformance diff: {verdict}", "", f"`{old_name}` → `{new_name}`", ""]
    if diff.settings:
        lines += [f"### Settings that changed ({len(diff.settings)})", "", "| setting | before | after |",
                  "|---|---|---|"]
        lines += [f"| {s.name} | `{_shown(s.name, s.old)}` | `{_shown(s.name, s.new)}` |" for s in diff.settings]
        lines.append("")
    lines += contract_markdown(diff.contract)
    if diff.narrowing:
        lines += [f"### {_narrowing_title(diff).replace('--allow-narrower', '`--allow-narrower`')}", ""]
        for narrowing in diff.narrowing:
            lines.append(f"- {narrowing.text('→')}")
            lines += [f"  - {line}".replace("\n", " ") for line in narrowing.details("→")]
        lines.append("")
    if diff.fewer:
        lines += ["Smaller run (not a regression by itself): " + "; ".join(s.text("→") for s in diff.fewer), ""]
    for name, title in _SECTIONS:
        changes = getattr(diff, name)
        if changes:
            lines += [f"### {title} ({len(changes)})", "", "| rule | level | before | after | title |",
                      "|---|---|---|---|---|"]
            lines += [f"| {c.rule} | {c.level} | {c.old} | {c.new} | {c.title} |".replace("\n", " ") for c in changes]
            lines.append("")
    if diff.newly_decided:
        lines += [f"### Newly decided rules ({len(diff.newly_decided)})", ""]
        for cause, changes in _by_cause(diff.newly_decided).items():
            lines.append(f"- {cause}: {_count(changes, 'rule')}")
            lines += [f"  - {c.text('→', detail=False)}".replace("\n", " ") for c in _listed(changes)]
        lines.append("")
    if diff.slower:
        lines += ["### Slower operations", "",
                  "| API | operation | median before | median after |", "|---|---|---|---|"]
        lines += [f"| {s['api']} | {s['operation']} | {s['old_median_ms']:g} ms | {s['new_median_ms']:g} ms |"
                  for s in diff.slower]
    return "\n".join(lines) + "\n"


def _rule_change_text(change: dict[str, Any]) -> str:
    if change["change"] != "changed":
        return f"{change['rule']} {change['change']}: {change['title']}"
    parts = []
    for name in change["fields"]:
        if name == "level":
            parts.append(f"level {change['level']['old']} -> {change['level']['new']}")
        elif name == "quote_sha256":
            parts.append("quote reworded")
        elif name == "title":
            parts.append(f"title was {change['old_title']!r}")
        else:
            parts.append(f"{name} changed")
    return f"{change['rule']} {'; '.join(parts)}: {change['title']}"


# The suite's version is one of the settings, said there; these say what else of the contract changed.

def contract_text(contract: dict[str, Any]) -> list[str]:
    """The lines that say the two reports were judged against different contracts, and how; none when the same."""
    if not contract:
        return []
    lines = ["The reports were judged against different contracts: verdicts of changed rules are not comparable."]
    if "unpinned" in contract:
        lines.append(f"  the {contract['unpinned']} report pins no contract")
    files = contract.get("files", {})
    for kind in ("changed", "added", "removed"):
        if files.get(kind):
            lines.append(f"  files {kind}: {', '.join(files[kind])}")
    rules = contract.get("rules", [])
    if rules:
        lines.append(f"Rules whose contract changed ({len(rules)}):")
        lines += [f"  {_rule_change_text(change)}" for change in rules]
    return lines


def contract_markdown(contract: dict[str, Any]) -> list[str]:
    if not contract:
        return []
    lines = ["### ⚠️ Different contracts", "",
             "The two reports were judged against different contracts: verdicts of changed rules are not comparable.",
             ""]
    if "unpinned" in contract:
        lines.append(f"- the {contract['unpinned']} report pins no contract")
    files = contract.get("files", {})
    for kind in ("changed", "added", "removed"):
        if files.get(kind):
            lines.append(f"- files {kind}: " + ", ".join(f"`{name}`" for name in files[kind]))
    rules = contract.get("rules", [])
    if rules:
        lines += ["", f"#### Rules whose contract changed ({len(rules)})", ""]
        lines += [f"- {_rule_change_text(change)}".replace("\n", " ") for change in rules]
    return lines + [""]
