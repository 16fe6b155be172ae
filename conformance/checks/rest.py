"""REST checks shared by the Data API and Metrics API suites: JSON answers, error bodies, correct refusals.

Each API documents its own error body (`message` is a string in the Data API and an array of strings in the
Metrics API) and its own rule IDs, so every check takes the API's name and looks its rules up in ERROR_RULES.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from conformance import specs
from conformance.checks import check, fail, held, independently
from conformance.clients.http import Exchange
from conformance.errors import SuiteError


@dataclass(frozen=True)
class ErrorRules:
    """The catalogue rule that decides each part of one API's error answers."""

    body_object: str                 # the body is a JSON object
    content_type: str                # the response declares a JSON Content-Type
    message: str                     # `message` has the documented type
    message_kind: str                # "string" | "strings" (an array of strings)
    error_type: str                  # `error` is a string
    status_code_type: str            # `statusCode` is an integer
    status_code_value: str           # `statusCode` equals the HTTP status
    phrases: Mapping[int, str] = field(default_factory=dict)   # status -> rule deciding `error` at that status
    known_status: str | None = None  # every error status is one the document lists


ERROR_RULES: dict[str, ErrorRules] = {
    "metrics": ErrorRules(
        body_object="MET-ENV-003", content_type="MET-ENV-004", message="MET-ERR-001", message_kind="strings",
        error_type="MET-ERR-002", status_code_type="MET-ERR-003", status_code_value="MET-ERR-003",
        phrases={400: "MET-ERR-005", 404: "MET-ERR-007"}),
    "data": ErrorRules(
        body_object="DATA-ERR-001", content_type="DATA-ERR-002", message="DATA-ERR-003", message_kind="string",
        error_type="DATA-ERR-006", status_code_type="DATA-ERR-004", status_code_value="DATA-ERR-005",
        phrases={status: "DATA-ERR-007" for status in (400, 401, 403, 404, 429, 500, 502, 503)},
        known_status="DATA-ERR-008"),
}


@cache
def documented_phrases(api: str) -> dict[int, str]:
    """Status -> the `error` phrase the API's OpenAPI document gives for it (from components.responses)."""
    document = specs.openapi(api)
    phrases: dict[int, str] = {}
    for response in document.get("components", {}).get("responses", {}).values():
        schema = response.get("content", {}).get("application/json", {}).get("schema", {})
        properties: dict[str, Any] = {}
        for part in schema.get("allOf", [schema]):
            properties.update(specs.resolve(document, part).get("properties", {}))
        status, phrase = properties.get("statusCode", {}).get("const"), properties.get("error", {}).get("const")
        if isinstance(status, int) and isinstance(phrase, str):
            phrases[status] = phrase
    return phrases


# JSON answers -----------------------------------------------------------------------------------------------

def is_json_media_type(content_type: str) -> bool:
    """Whether a Content-Type value names JSON: application/json or a +json suffix, any parameters."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def assert_json_content_type(rule_id: str, exchange: Exchange, *, what: str = "the response") -> None:
    """Fails `rule_id` unless the response declares a JSON Content-Type."""
    check(is_json_media_type(exchange.content_type), rule_id, f"{what} does not declare a JSON Content-Type",
          expected="Content-Type: application/json", received=exchange.content_type or "no Content-Type header",
          exchange=exchange)


def assert_json_object(rule_id: str, exchange: Exchange, *, what: str = "the response body") -> dict[str, Any]:
    """The body as a dict; fails `rule_id` when it is not JSON or not a JSON object."""
    if not exchange.is_json():
        fail(rule_id, f"{what} is not JSON", expected="a JSON object", received=exchange.text(200),
             exchange=exchange)
    body = exchange.json()
    check(isinstance(body, dict), rule_id, f"{what} is not a JSON object", expected="a JSON object",
          received=body, exchange=exchange)
    return body


# Error bodies -----------------------------------------------------------------------------------------------

def error_body_problems(body: Any, status: int, *, api: str) -> list[tuple[str, str, str]]:
    """Every way `body` (already parsed) breaks `api`'s documented error body: (rule ID, problem, expected)."""
    rules = ERROR_RULES[api]
    if not isinstance(body, dict):
        return [(rules.body_object, "the error body is not a JSON object", "a JSON object")]
    problems: list[tuple[str, str, str]] = []
    message = body.get("message")
    if rules.message_kind == "strings":
        if not (isinstance(message, list) and all(isinstance(item, str) for item in message)):
            problems.append((rules.message, "message is not an array of strings", "message: an array of strings"))
    elif not isinstance(message, str):
        problems.append((rules.message, "message is not a string", "message: a string"))
    error = body.get("error")
    if not isinstance(error, str):
        problems.append((rules.error_type, "error is not a string", "error: a string naming the error type"))
    else:
        phrase = documented_phrases(api).get(status)
        if phrase is not None and status in rules.phrases and error != phrase:
            problems.append((rules.phrases[status], f"error is not the phrase documented for {status}",
                             f'error: "{phrase}"'))
    code = body.get("statusCode")
    if not isinstance(code, int) or isinstance(code, bool):
        problems.append((rules.status_code_type, "statusCode is not an integer", f"statusCode: {status}"))
    elif code != status:
        problems.append((rules.status_code_value, "statusCode differs from the HTTP status", f"statusCode: {status}"))
    return problems


def assert_error_body(exchange: Exchange, *, api: str) -> dict[str, Any]:
    """Fails the first broken rule of `api`'s error body (JSON object, message, error, statusCode); returns it."""
    rules = ERROR_RULES[api]
    status = exchange.status or 0
    if rules.known_status is not None:
        check(status in documented_phrases(api), rules.known_status, f"the error status {status} is not documented",
              expected=f"one of {sorted(documented_phrases(api))}", received=status, exchange=exchange)
    body = assert_json_object(rules.body_object, exchange, what=f"the body of the {status} error")
    problems = error_body_problems(body, status, api=api)
    for rule_id, problem, expected in problems:
        with independently():   # each member of the body is its own rule: one wrong member hides no other
            fail(rule_id, problem, expected=expected, received=body, exchange=exchange)
    for rule_id in decided_rules(body, status, api=api, problems=problems):
        held(rule_id, exchange)
    return body


def body_rules(rules: ErrorRules, status: int, api: str) -> list[str]:
    """The rules an error body of `status` is checked against (besides being a JSON object)."""
    out = [rules.message, rules.error_type, rules.status_code_type, rules.status_code_value]
    if status in rules.phrases and status in documented_phrases(api):
        out.append(rules.phrases[status])
    return list(dict.fromkeys(out))


def decided_rules(body: dict[str, Any], status: int, *, api: str,
                  problems: list[tuple[str, str, str]]) -> list[str]:
    """The error-body rules this body was found to keep: checked, not broken, and decidable (the phrase needs a
    string `error`, the value of statusCode an integer one)."""
    rules = ERROR_RULES[api]
    broken = {rule_id for rule_id, _, _ in problems}
    undecided = set()
    if rules.error_type in broken:
        undecided.add(rules.phrases.get(status))      # no phrase to compare
    if rules.status_code_type in broken and rules.status_code_value != rules.status_code_type:
        undecided.add(rules.status_code_value)        # no integer to compare with the status
    return [rule_id for rule_id in body_rules(rules, status, api) if rule_id not in broken | undecided]


def assert_refused(exchange: Exchange, *, rule_id: str, api: str, statuses: Collection[int] | None = None,
                   body: bool = True, what: str = "the request") -> None:
    """Fails `rule_id` unless the request was correctly refused: a 4XX (one of `statuses` when given), never a
    2XX, 3XX or 5XX; then, with `body`, checks the documented error body under its own rules.

    A 429 that outlasts the client's retries decides nothing and is a suite error, never a verdict.
    """
    status = exchange.status or 0
    if status == 429 and 429 not in (statuses or ()):
        raise SuiteError(f"{exchange.method} {exchange.url}: rate limited (429) after retries; cannot decide {rule_id}")
    if statuses is not None:
        expected = " or ".join(map(str, sorted(statuses)))
        check(status in statuses, rule_id, f"{what} is not refused with {expected}", expected=f"status {expected}",
              received=f"status {status}: {exchange.text(300)}", exchange=exchange)
    else:
        check(400 <= status < 500, rule_id, f"{what} is not refused with a 4XX status",
              expected="a 4XX status with the documented error body", received=f"status {status}: {exchange.text(300)}",
              exchange=exchange)
    if body:
        assert_error_body(exchange, api=api)


def assert_success(exchange: Exchange, *, rule_id: str, what: str = "the request") -> None:
    """Fails `rule_id` unless the request was served with a 2XX status (a 429 after retries is a suite error)."""
    status = exchange.status or 0
    if status == 429:
        raise SuiteError(f"{exchange.method} {exchange.url}: rate limited (429) after retries; cannot decide {rule_id}")
    check(200 <= status < 300, rule_id, f"{what} is not served", expected="a 2XX status",
          received=f"status {status}: {exchange.text(300)}", exchange=exchange)
