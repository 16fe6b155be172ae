"""Evidence: what each check found for its rule while a test ran, held or broke.

A rule's verdict comes from here, not from the marks a test carries: a rule passes only when some check of it
held and none broke. Checks record into the ledger of the running test; outside a test (the compare command, a
self-test calling a check directly) nothing is recorded and checks behave as before.
"""
from __future__ import annotations

import contextlib
import contextvars
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from collections.abc import Iterator

if TYPE_CHECKING:
    from conformance.errors import Violation


@dataclass
class Ledger:
    """The evidence one test gathered: checks held and broken per rule, and its distinct violations in order."""

    held: Counter[str] = field(default_factory=Counter)
    broke: Counter[str] = field(default_factory=Counter)
    violations: list[Violation] = field(default_factory=list)
    #: Rules whose violation, reported by another test, kept this one from running (a method not served).
    blocked: list[str] = field(default_factory=list)

    def hold(self, rule_id: str) -> None:
        self.held[rule_id] += 1

    def breach(self, violation: Violation) -> None:
        self.broke[violation.rule.id] += 1
        # Hypothesis replays a failing example; the same deviation seen again is one deviation.
        if not any(_same(violation, seen) for seen in self.violations):
            self.violations.append(violation)

    def counts(self) -> dict[str, list[int]]:
        """Rule ID -> [held, broke], for the rules this test gathered evidence on."""
        return {rule: [self.held[rule], self.broke[rule]] for rule in sorted(set(self.held) | set(self.broke))}


def _same(a: Violation, b: Violation) -> bool:
    return a.rule.id == b.rule.id and a.summary == b.summary and a.received == b.received


_LEDGER: contextvars.ContextVar[Ledger | None] = contextvars.ContextVar("conformance_ledger", default=None)


def current() -> Ledger | None:
    return _LEDGER.get()


@contextlib.contextmanager
def recording(ledger: Ledger) -> Iterator[Ledger]:
    """Checks run inside this block record into `ledger`."""
    token = _LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _LEDGER.reset(token)


def held(rule_id: str) -> None:
    """A check of `rule_id` held."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.hold(rule_id)


def blocked_by(rule_id: str) -> None:
    """The running test cannot decide its rules: `rule_id`, reported broken by another test, stands in the way."""
    ledger = _LEDGER.get()
    if ledger is not None and rule_id not in ledger.blocked:
        ledger.blocked.append(rule_id)


def broke(violation: Violation) -> None:
    """A check broke: `violation` is recorded against its rule."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.breach(violation)


@contextlib.contextmanager
def independently() -> Iterator[None]:
    """A block of checks the rest of the test does not depend on: its violation is recorded and the test goes on.

    The test still fails at its end, with every violation it recorded, the first one as its headline. Outside
    a test (no ledger) the violation propagates as usual, so it is never lost.
    """
    from conformance.errors import Violation

    try:
        yield
    except Violation:
        if _LEDGER.get() is None:
            raise
