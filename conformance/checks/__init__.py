"""Checks: small named functions that decide one rule each and raise a Violation that reads like a bug report."""
from __future__ import annotations

from typing import Any, NoReturn

from conformance import evidence
from conformance.clients.http import Exchange
from conformance.errors import SuiteError, Violation
from conformance.rules import load_catalogue


def fail(rule_id: str, summary: str, *, expected: str, received: Any, exchange: Exchange | None = None) -> NoReturn:
    """Raises the Violation of `rule_id`; refuses to fail a target on an `observe` rule."""
    rule = load_catalogue()[rule_id]
    if not rule.gating:
        raise SuiteError(f"{rule_id} is an observe rule: the suite records it and never fails a target on it")
    received_text = received if isinstance(received, str) else _short(received)
    violation = Violation(rule, summary, expected=expected, received=received_text, exchange=exchange)
    evidence.broke(violation, exchange)
    raise violation


def check(condition: object, rule_id: str, summary: str, *, expected: str, received: Any,
          exchange: Exchange | None = None) -> None:
    """Fails `rule_id` with `summary` unless `condition` holds; either way the rule has evidence."""
    if not condition:
        fail(rule_id, summary, expected=expected, received=received, exchange=exchange)
    evidence.held(rule_id, exchange)


held = evidence.held
independently = evidence.independently


def _short(value: Any, limit: int = 400) -> str:
    import json

    try:
        text = json.dumps(value, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
