"""The JSON-RPC 2.0 envelope: results, error objects, echoed ids, and what the documents leave to observation."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

from conformance.checks import check, fail, held
from conformance.clients.http import Exchange

VERSION = "2.0"
#: Members the JSON-RPC 2.0 error object defines; anything else is only recorded (RPC-ENV-017).
ERROR_MEMBERS = ("code", "message")

Observe = Callable[[str, Any], None]


def is_response_object(exchange: Exchange) -> bool:
    """Whether the body is a JSON object carrying a result or an error: the endpoint answers JSON-RPC."""
    if not exchange.is_json():
        return False
    body = exchange.json()
    return isinstance(body, dict) and ("result" in body or "error" in body)


def error_headline(error: Any) -> Any:
    """An error object as a failure's headline shows it: the members JSON-RPC 2.0 defines (code, message, data).
    Anything else a node adds (a stack trace, say) stays in the answer the failure keeps as evidence."""
    if isinstance(error, dict):
        return {name: error[name] for name in ("code", "message", "data") if name in error}
    return error


def response_object(exchange: Exchange, rule_id: str) -> dict[str, Any]:
    """The response body as a JSON object; fails `rule_id` when it is JSON of another kind.

    A body that is not JSON at all stays a suite error (NotJson) unless the rule is about the body itself.
    """
    body = exchange.json()
    check(isinstance(body, dict), rule_id, "the response is not a JSON-RPC response object",
          expected="a JSON object with jsonrpc, id and result or error", received=body, exchange=exchange)
    return body


def result_of(exchange: Exchange, rule_id: str, what: str = "the call", *, served: bool = False) -> Any:
    """The `result` of a successful call; fails `rule_id` when the target answered with an error or no result.

    With `served`, the rule is that the path answers at all: a body that is not JSON fails it too.
    """
    if served:
        check(exchange.is_json(), rule_id, f"{what} is not answered with JSON-RPC", expected="a result",
              received=f"HTTP {exchange.status}: {exchange.text(200)}", exchange=exchange)
    body = response_object(exchange, rule_id)
    if "error" in body and "result" not in body:
        fail(rule_id, f"{what} is answered with an error", expected="a result", received=error_headline(body["error"]),
             exchange=exchange)
    check("result" in body, rule_id, f"{what} is answered without a result", expected="a result member",
          received=body, exchange=exchange)
    return body["result"]


def error_of(exchange: Exchange, rule_id: str, what: str = "the call") -> dict[str, Any]:
    """The error object of a call that must fail; fails `rule_id` when the target answered with a result."""
    body = exchange.json() if exchange.is_json() else None
    if isinstance(body, dict) and "result" in body and "error" not in body:
        fail(rule_id, f"{what} is answered with a result instead of an error",
             expected="a JSON-RPC error object", received=body["result"], exchange=exchange)
    check(isinstance(body, dict) and isinstance(body.get("error"), dict), rule_id,
          f"{what} is not answered with a JSON-RPC error object", expected="a response object with an error member",
          received=body if body is not None else f"HTTP {exchange.status}: {exchange.text(200)}", exchange=exchange)
    return body["error"]  # type: ignore[index]  # check() failed the rule unless body is an object


def is_error(exchange: Exchange) -> bool:
    """Whether the target refused the call: an error object, or an HTTP error without a result."""
    if exchange.is_json():
        body = exchange.json()
        if isinstance(body, dict) and "result" in body and "error" not in body:
            return False
        if isinstance(body, dict) and "error" in body:
            return True
    return (exchange.status or 0) >= 400


def expect_refusal(exchange: Exchange, rule_id: str, what: str) -> None:
    """Fails `rule_id` unless the call was refused (an error object, or an HTTP error status with no result)."""
    if is_error(exchange):
        held(rule_id, exchange)
        return
    received = exchange.json()["result"] if exchange.is_json() and isinstance(exchange.json(), dict) \
        and "result" in exchange.json() else f"HTTP {exchange.status}: {exchange.text(200)}"
    fail(rule_id, f"{what} is not refused", expected="a JSON-RPC error object", received=received,
         exchange=exchange)


# --- the envelope rules, each decided by its own function -------------------------------------------------

def check_version(exchange: Exchange) -> None:
    body = response_object(exchange, "RPC-ENV-012")
    check(body.get("jsonrpc") == VERSION, "RPC-ENV-001", 'the response does not carry jsonrpc "2.0"',
          expected='"jsonrpc": "2.0" (a string)', received=body.get("jsonrpc", "(member absent)"), exchange=exchange)


def check_id_echoed(exchange: Exchange, sent_id: Any, rule_id: str) -> None:
    body = response_object(exchange, "RPC-ENV-012")
    echoed = body.get("id", "(member absent)")
    same = echoed == sent_id and type(echoed) is type(sent_id) or (
        isinstance(sent_id, int) and isinstance(echoed, (int, float)) and not isinstance(echoed, bool)
        and echoed == sent_id)
    check(same, rule_id, "the response does not echo the request id", expected=f"id {sent_id!r}",
          received=f"id {echoed!r}", exchange=exchange)


def check_one_outcome(exchange: Exchange) -> None:
    body = response_object(exchange, "RPC-ENV-012")
    present = [name for name in ("result", "error") if name in body]
    check(len(present) == 1, "RPC-ENV-005", "the response does not carry exactly one of result and error",
          expected="exactly one of result and error", received=f"members {sorted(body)}", exchange=exchange)


def check_error_object(exchange: Exchange) -> None:
    """An error member, when present, is an object with an integer code and a string message."""
    body = response_object(exchange, "RPC-ENV-012")
    if "error" not in body:
        return
    error = body["error"]
    code = error.get("code") if isinstance(error, dict) else None
    integral = isinstance(code, int) and not isinstance(code, bool) or isinstance(code, float) and code.is_integer()
    check(integral, "RPC-ENV-006", "the error object does not carry an integer code",
          expected="error.code an integer", received=error_headline(error), exchange=exchange)
    check(isinstance(error, dict) and isinstance(error.get("message"), str), "RPC-ENV-007",
          "the error object does not carry a string message", expected="error.message a string",
          received=error_headline(error), exchange=exchange)


def check_body_object(exchange: Exchange) -> None:
    """RPC-ENV-012: the body parses as JSON and is an object."""
    parsed = exchange.json() if exchange.is_json() else exchange.text(200)
    check(exchange.is_json() and isinstance(parsed, dict), "RPC-ENV-012", "the response body is not a JSON object",
          expected="a JSON object", received=f"HTTP {exchange.status}: {exchange.text(200)}", exchange=exchange)


def check_content_type(exchange: Exchange) -> None:
    media = exchange.content_type.split(";")[0].strip().lower()
    json_type = media == "application/json" or (media.startswith("application/") and media.endswith("+json"))
    check(json_type, "RPC-ENV-013", "the response does not declare a JSON Content-Type",
          expected="Content-Type application/json", received=exchange.content_type or "(no Content-Type)",
          exchange=exchange)


def check_envelope(exchange: Exchange, sent_id: Any) -> None:
    """Every envelope rule that any response must honour, for a request with id `sent_id`."""
    check_body_object(exchange)
    check_version(exchange)
    check_one_outcome(exchange)
    check_error_object(exchange)
    if sent_id is not None:
        body = exchange.json()
        kind = "RPC-ENV-004" if "error" in body else ("RPC-ENV-003" if isinstance(sent_id, str) else "RPC-ENV-002")
        check_id_echoed(exchange, sent_id, kind)


def record_error(observe: Observe, exchange: Exchange) -> None:
    """Records what the documents leave open about an error answer: code, HTTP status, extra members."""
    body = exchange.json() if exchange.is_json() else None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        observe("RPC-ENV-015", {"code": error.get("code"), "message": error.get("message")})
        observe("RPC-ENV-017", {"members": sorted(set(error) - set(ERROR_MEMBERS)), "data": error.get("data")})
    observe("RPC-ENV-016", {"status": exchange.status})

