"""Known deviations: a YAML list of {rule, test?, reason, expires}; expected failures do not fail the run."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterable

import yaml

from conformance.errors import ConfigError
from conformance.reporting.build import first_problem
from conformance.reporting.outcomes import TestOutcome
from conformance.rules import Catalogue


@dataclass(frozen=True)
class Expectation:
    rule: str
    reason: str
    expires: dt.date
    test: str | None = None

    def matches(self, test: TestOutcome) -> bool:
        """Whether this entry speaks of `test`: it carries the rule, broke it or checked it, and the test ID fits
        when given."""
        if self.rule not in test.rules and self.rule not in test.broken_rules and self.rule not in test.evidence:
            return False
        if self.test is None:
            return True
        return (test.id == self.test or test.id.startswith(self.test + "[")
                or test.id.split("::")[-1].split("[")[0] == self.test)

    def expired(self, today: dt.date) -> bool:
        return self.expires < today

    def to_json(self) -> dict[str, Any]:
        out = {"rule": self.rule, "reason": self.reason, "expires": self.expires.isoformat()}
        if self.test:
            out["test"] = self.test
        return out


#: Expectations files shipped with the suite, by the name `--expectations` also takes.
SHIPPED = {path.stem: path for path in sorted((Path(__file__).parent / "known").glob("*.yaml"))}


def located(path: str | Path) -> Path:
    """The file `--expectations` names: a path, or the name of a file shipped with the suite (`stock-ethereum`)."""
    given = Path(path)
    return SHIPPED[str(path)] if not given.exists() and str(path) in SHIPPED else given


def load(path: str | Path, catalogue: Catalogue) -> list[Expectation]:
    """Reads and checks an expectations file; anything malformed is a ConfigError naming the entry."""
    where = f"--expectations: {path}"
    path = located(path)
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read it ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{where}: not valid YAML{at}") from None
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ConfigError(f"{where}: expected a YAML list of entries {{rule, test, reason, expires}}")
    return [_entry(item, number, where, catalogue) for number, item in enumerate(raw, start=1)]


def _entry(item: Any, number: int, where: str, catalogue: Catalogue) -> Expectation:
    here = f"{where}: entry {number}"
    if not isinstance(item, dict):
        raise ConfigError(f"{here}: expected a mapping with rule, reason and expires")
    unknown = sorted(set(item) - {"rule", "test", "reason", "expires"})
    if unknown:
        raise ConfigError(f"{here}: unknown key {', '.join(map(str, unknown))}")
    rule, reason, expires, test = item.get("rule"), item.get("reason"), item.get("expires"), item.get("test")
    if not isinstance(rule, str) or rule not in catalogue:
        raise ConfigError(f"{here}: rule {rule!r} is not in the rule catalogue")
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigError(f"{here}: a reason is required")
    if isinstance(expires, str):
        try:
            expires = dt.date.fromisoformat(expires)
        except ValueError:
            expires = None
    if not isinstance(expires, dt.date) or isinstance(expires, dt.datetime):
        raise ConfigError(f"{here}: expires must be a date, YYYY-MM-DD")
    if test is not None and not isinstance(test, str):
        raise ConfigError(f"{here}: test must be a test ID string")
    return Expectation(rule=rule, reason=reason.strip(), expires=expires, test=test)


@dataclass
class Verdicts:
    """What the expectations made of a run."""

    #: (test ID, rule ID) -> the entry that excuses that test's violation of (or error on) that rule
    excused: dict[tuple[str, str], Expectation] = field(default_factory=dict)
    expired: list[Expectation] = field(default_factory=list)
    unexpected_passes: list[Expectation] = field(default_factory=list)
    unused: list[Expectation] = field(default_factory=list)            # nothing in the run spoke of them

    def excuses_test(self, test: TestOutcome) -> bool:
        """Whether every problem of a failed or erroring test is excused."""
        if test.outcome == "failed":
            return all((test.id, rule) in self.excused for rule in test.broken_rules or test.rules)
        if test.outcome == "error":
            return any((test.id, rule) in self.excused for rule in test.rules)
        return False

    def excuse_of(self, test: TestOutcome) -> str | None:
        """The reason that excuses every problem of `test`, if one does."""
        if not self.excuses_test(test):
            return None
        entries = [self.excused[(test.id, rule)] for rule in test.broken_rules or test.rules
                   if (test.id, rule) in self.excused]
        return "; ".join(dict.fromkeys(entry.reason for entry in entries))

    def to_json(self) -> dict[str, Any]:
        return {"expected_failures": [{**entry.to_json(), "test": test} for (test, _), entry in self.excused.items()],
                "expired": [e.to_json() for e in self.expired],
                "unexpected_passes": [e.to_json() for e in self.unexpected_passes],
                "unused": [e.to_json() for e in self.unused]}


def excuse(entries: Iterable[Expectation], test: TestOutcome, today: dt.date) -> str | None:
    """The reason an expectation excuses every problem of one test as it ends, as `apply` will decide it for the
    report (pytest's line and the terminal count the test as excused from then on)."""
    return apply(entries, [test], today).excuse_of(test)


def apply(entries: Iterable[Expectation], tests: Iterable[TestOutcome], today: dt.date) -> Verdicts:
    verdicts = Verdicts()
    tests = list(tests)
    for entry in entries:
        if entry.expired(today):
            verdicts.expired.append(entry)
            continue
        concerned = [test for test in tests if entry.matches(test)]
        # Each violation stays under its own rule: an entry excuses its rule's, never the other rules' of a test.
        failing = [test for test in concerned if entry.rule in test.broken_rules
                   or (test.outcome == "error" and entry.rule in test.rules)]
        for test in failing:
            verdicts.excused.setdefault((test.id, entry.rule), entry)
        if not failing:
            if any(test.outcome != "skipped" and (test.evidence.get(entry.rule, [0])[0] or test.outcome == "passed")
                   for test in concerned):
                verdicts.unexpected_passes.append(entry)
            else:
                verdicts.unused.append(entry)
    return verdicts


class _PlainDumper(yaml.SafeDumper):
    """Writes every entry's date in full instead of as a YAML alias of the first one."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def from_report(report: dict[str, Any], *, days: int = 90, today: dt.date | None = None) -> str:
    """A starting expectations file: one entry per failing or erroring rule of `report`, expiring in `days`."""
    expires = (today or dt.date.today()) + dt.timedelta(days=days)
    lines = ["# Known deviations of this target from the API documents, for `conformance run --expectations`.",
             f"# Written from a report of {report.get('suite', {}).get('finished', 'a run')}; review every reason.",
             "# An entry excuses the failures of its rule (of one test only, with `test:`) until it expires."]
    entries = []
    for rule in report.get("rules", []):
        if rule.get("status") not in ("fail", "error"):
            continue
        what = first_problem(rule)
        entries.append({"rule": rule["id"],
                        "reason": f"TODO: why this deviation is accepted ({rule['status']}: {what})"[:300],
                        "expires": expires})
    if not entries:
        return "\n".join(lines) + "\n[]\n"
    body = yaml.dump(entries, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=120)
    return "\n".join(lines) + "\n" + body
