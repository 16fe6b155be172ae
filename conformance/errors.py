"""Two kinds of trouble, kept apart: a Violation (the target broke a rule) and a SuiteError (it could not be tested)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.clients.http import Exchange
    from conformance.rules import Rule

#: Exit codes of `conformance run`.
EXIT_CONFORMANT = 0
EXIT_VIOLATION = 1
EXIT_USAGE = 2
EXIT_UNTESTABLE = 3
#: The run stopped before it decided every rule it selected (a signal, --max-duration, --max-requests, an error of
#: the suite itself): the reports hold what it decided, the rest is untested, interrupted.
EXIT_INCOMPLETE = 4


class SuiteError(Exception):
    """The suite could not test the target: unreachable, not JSON, broken spec. Never counted against the target."""

    exit_code = EXIT_UNTESTABLE


class ConfigError(SuiteError):
    """Bad input to the suite itself: an unknown option value, a malformed URL, a missing file."""

    exit_code = EXIT_USAGE


class TargetUnreachable(SuiteError):
    """The target did not answer (connection refused, timeout, DNS failure)."""


class TransportFault(SuiteError):
    """The way to the target failed, not the target's answer: a connection refused or reset, an answer cut off
    mid-body. `sent` is False when the request cannot have reached the target (the connection was refused)."""

    def __init__(self, message: str, *, sent: bool = True) -> None:
        super().__init__(message)
        self.sent = sent
        self.number = 0   # the number of the attempt that met it, in its session (its HAR entry's _id)

    @property
    def kind(self) -> str:
        """refused, reset or cut: what the report counts."""
        return "reset" if self.sent else "refused"


class ConnectionLost(TransportFault, TargetUnreachable):
    """The connection was refused, or reset or closed before the answer began."""


class AnswerCut(TransportFault):
    """The answer's body ended before it was whole: the connection was closed or reset mid-body."""

    @property
    def kind(self) -> str:
        return "cut"


class TargetUnavailable(SuiteError):
    """The target kept answering that it cannot serve now (502, 503, 504) after the suite waited and retried."""


class RateLimited(TargetUnavailable):
    """The target kept answering 429 Too Many Requests after the suite waited as asked and retried."""


class BudgetExhausted(SuiteError):
    """The run spent its request budget or its maximum duration: it stops, and what it decided is reported."""


class RunStopped(BudgetExhausted):
    """The run is stopping (a signal): no request starts any more, and those on the wire are cut off."""


class TargetDown(RunStopped):
    """Nothing but refused or reset connections, cut answers and 5XX answers came back for longer than the outage
    window: the run stops as on a signal, every report written, and the target counts as not tested."""


#: Characters of the answer a violation keeps as evidence.
RESPONSE_KEPT = 2000


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


class Violation(AssertionError):
    """The target broke a rule of the catalogue; reads like a bug report."""

    def __init__(
        self,
        rule: Rule,
        summary: str,
        *,
        expected: str,
        received: str,
        exchange: Exchange | None = None,
    ) -> None:
        self.rule = rule
        self.summary = summary
        self.expected = expected
        self.received = received
        self.reproducer = exchange.curl() if exchange is not None else None
        # The answer itself, beyond what the headline shows (members a node adds to an error, say).
        self.response = f"HTTP {exchange.status}: {exchange.text(RESPONSE_KEPT)}" if exchange is not None else None
        # The request, to tell its answers apart when the test runs again.
        self.request = (exchange.method, exchange.url, getattr(exchange, "request_body", None)) \
            if exchange is not None else None
        # The exchange's number in the run: the HAR archive's entry of it, when one is written.
        self.exchange_id: int | None = getattr(exchange, "number", None) or None
        super().__init__(self.render())

    def render(self) -> str:
        lines = [
            f"[{self.rule.id}] {self.summary}",
            f"Received:  {_clip(self.received)}",
            f"Expected:  {self.expected}",
            f"Rule:      {self.rule.citation()}",
        ]
        if self.reproducer:
            lines.append(f"Reproduce: {self.reproducer}")
        return "\n".join(lines)


class Violations(Violation):
    """Every rule a test found broken, the first one as the headline; each stays charged to its own rule."""

    def __init__(self, violations: list[Violation]) -> None:
        first = violations[0]
        self.all = list(violations)
        super().__init__(first.rule, first.summary, expected=first.expected, received=first.received)
        self.reproducer = first.reproducer
        self.response = first.response
        self.request = first.request
        self.args = (self.render(),)

    def render(self) -> str:
        text = super().render()
        others = getattr(self, "all", [])[1:]
        if not others:
            return text
        lines = [text, f"Also broken in this test ({len(others)}):"]
        lines += [f"  [{v.rule.id}] {v.summary}: received {_clip(v.received, 200)}" for v in others]
        return "\n".join(lines)
