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
from typing import TYPE_CHECKING, Any
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from conformance.clients.http import Exchange
    from conformance.errors import Violation

#: Exchanges kept per rule as the evidence that decided it, by a test and by the run's report: enough to look at,
#: bounded whatever the run sends.
EXCHANGES_PER_RULE = 3


def exchange_ref(exchange: Exchange) -> dict[str, Any]:
    """What a report says of one exchange: its number in the run (the HAR archive's `_id`), method, URL without user
    or password, and status (worked out once per exchange: every check that judges it names it)."""
    known = getattr(exchange, "_ref", None)
    if known is not None and known["status"] == exchange.status:
        return known
    parts = urlsplit(exchange.url)
    netloc = parts.netloc.rpartition("@")[2]
    ref = {"id": exchange.number, "method": exchange.method,
           "url": urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), "status": exchange.status}
    exchange._ref = ref   # type: ignore[attr-defined]  # a memo on the exchange, not one of its fields
    return ref


@dataclass
class Ledger:
    """The evidence one test gathered: checks held and broken per rule, and its distinct violations in order."""

    held: Counter[str] = field(default_factory=Counter)
    broke: Counter[str] = field(default_factory=Counter)
    violations: list[Violation] = field(default_factory=list)
    #: Rules whose violation, reported by another test, kept this one from running (a method not served).
    blocked: list[str] = field(default_factory=list)
    #: Rule ID -> the exchanges its checks judged (the one a check names, else the test's latest), not yet reported.
    exchanges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The latest exchange the test completed: what a check that names none judged.
    latest: dict[str, Any] | None = None
    #: (declaration, aspect, operation) of each declared relation a check of it verified, not yet reported.
    verified: set[tuple[str, str, str]] = field(default_factory=set)
    #: The test changes the target's state (it is marked `mutating`): no request of it is ever sent twice.
    changes_state: bool = False

    def hold(self, rule_id: str, exchange: Exchange | None = None) -> None:
        self.held[rule_id] += 1
        self._keep(rule_id, exchange, "held")

    def breach(self, violation: Violation, exchange: Exchange | None = None) -> None:
        self.broke[violation.rule.id] += 1
        self._keep(violation.rule.id, exchange, "broke")
        # Hypothesis replays a failing example; the same deviation seen again is one deviation.
        if not any(_same(violation, seen) for seen in self.violations):
            self.violations.append(violation)

    def saw(self, exchange: Exchange) -> None:
        self.latest = exchange_ref(exchange)

    def _keep(self, rule_id: str, exchange: Exchange | None, check: str) -> None:
        if check == "held" and len(self.exchanges.get(rule_id, ())) >= EXCHANGES_PER_RULE:
            return   # the common case, first: a rule checked thousands of times keeps its first few exchanges
        ref = exchange_ref(exchange) if exchange is not None else self.latest
        if ref is None:
            return
        kept = self.exchanges.setdefault(rule_id, [])
        if any(seen["id"] == ref["id"] for seen in kept):
            return
        # A broken check's exchange always stays: it is the one that decided a failure.
        if len(kept) >= EXCHANGES_PER_RULE:
            if check != "broke" or all(seen["check"] == "broke" for seen in kept):
                return
            kept.remove(next(seen for seen in reversed(kept) if seen["check"] == "held"))
        kept.append({**ref, "check": check})

    def take_verified(self) -> set[tuple[str, str, str]]:
        """The verification marks gathered since the last call; they are reported once."""
        taken, self.verified = self.verified, set()
        return taken

    def take_exchanges(self) -> dict[str, list[dict[str, Any]]]:
        """The exchanges kept since the last call, by rule; they are reported once."""
        taken, self.exchanges = self.exchanges, {}
        return taken

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


def held(rule_id: str, exchange: Exchange | None = None) -> None:
    """A check of `rule_id` held (on `exchange`, when the check names the one it judged)."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.hold(rule_id, exchange)


def saw(exchange: Exchange) -> None:
    """The running test completed `exchange` (a listener of the run's HTTP session)."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.saw(exchange)


def verified(declaration: str, aspect: str, operation: str) -> None:
    """A check of a declared relation (`declaration`, as conformance.meaning names it) held for `operation`: one
    `aspect` of it (held, later page, kept, compared, …) is verified, for the coverage of declared effects."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.verified.add((declaration, aspect, operation))


def blocked_by(rule_id: str) -> None:
    """The running test cannot decide its rules: `rule_id`, reported broken by another test, stands in the way."""
    ledger = _LEDGER.get()
    if ledger is not None and rule_id not in ledger.blocked:
        ledger.blocked.append(rule_id)


def broke(violation: Violation, exchange: Exchange | None = None) -> None:
    """A check broke: `violation` is recorded against its rule (with `exchange`, the answer it judged)."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.breach(violation, exchange)


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
