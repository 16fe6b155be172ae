"""Whether the target serves a method the document lists, probed once per run, so its absence is reported once.

A documented method that answers a well-formed call (its lightest params) with an error is not served, whatever
the code: nodes say "method not found" as -32601, as HTTP 404, as -32004 "method not supported" (EIP-1474) or
as a code of their own. One test, the one carrying the rule that the method is served, fails with "method not
served: eth_feeConfig"; every other test of that method skips, blocked by that rule, and its rules stay untested
rather than charged with one more symptom of the same deviation.
"""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance import evidence, specs
from conformance.checks import check
from conformance.checks.envelope import error_headline, is_response_object
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.reporting.outcomes import test_id
from conformance.rules import load_catalogue

METHOD_NOT_FOUND = -32601
EVM_RPC = "the EVM chain RPC"
#: Method -> the rule that the target serves it. Only methods the document lists without condition are here:
#: the deprecated eth_getActivePrecompilesAt may be gone (RPC-EVM-029), and standard methods need no probe.
SERVED_RULES = {"eth_feeConfig": "RPC-EVM-033", "eth_getChainConfig": "RPC-EVM-034",
                "eth_getActiveRulesAt": "RPC-EVM-035", "validators.getCurrentValidators": "RPC-VAL-001"}


#: The rules whose tests decide whether a method (None: the EVM chain RPC path at all) is served: the verdicts of the
#: tests of that method depend on them (blocked when they fail), so a selection of rules keeps them
#: (conformance.plugin.collection).
PREREQUISITES: dict[str, str | None] = {**{rule: method for method, rule in SERVED_RULES.items()}, "RPC-EVM-032": None}


def not_served(exchange: Exchange) -> bool:
    """Whether a well-formed call was not served: HTTP 404, an answer that is not JSON-RPC, or an error object
    instead of a result."""
    if exchange.status == 404 or not is_response_object(exchange):
        return True
    body = exchange.json()
    return isinstance(body.get("error"), dict) and "result" not in body


def plainly_unknown(exchange: Exchange) -> bool:
    """Whether the answer is the one JSON-RPC 2.0 reserves for an unknown method (-32601), or HTTP 404."""
    if exchange.status == 404:
        return True
    body = exchange.json() if exchange.is_json() else None
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and error.get("code") == METHOD_NOT_FOUND


def probe_params(method: str) -> Any:
    """The lightest params the method takes: none of its optional ones, in its documented structure."""
    api = "validators" if method.startswith("validators.") else "evm"
    return [] if specs.rpc_method(api, method).get("paramStructure") == "by-position" else {}


#: A second well-formed call of each method with optional params, every param given: a node that refuses the
#: lightest form but answers this one serves the method and breaks the rule that the params are optional.
FULLER_PARAMS: dict[str, Any] = {"eth_feeConfig": ["latest"], "eth_getActiveRulesAt": [0],
                                 "validators.getCurrentValidators": {"nodeIDs": []}}


def probe(client: JsonRpcClient, method: str) -> Exchange:
    """The answer that decides whether `method` is served: a well-formed call with its lightest params; when that
    is refused with anything but the plain "method not found", the fuller form, and the lightest once more (a
    gateway's or a restarting node's one-off error is not an absence)."""
    exchange = client.call(method, probe_params(method))
    if not not_served(exchange) or plainly_unknown(exchange):
        return exchange
    if method in FULLER_PARAMS:
        fuller = client.call(method, FULLER_PARAMS[method])
        if not not_served(fuller):
            return fuller
    return client.call(method, probe_params(method))


def check_served(exchange: Exchange, method: str) -> None:
    """Fails the rule that `method` is served when the target refuses a well-formed call of it."""
    rule_id = SERVED_RULES[method]
    body = exchange.json() if exchange.is_json() else None
    check(not not_served(exchange), rule_id, f"method not served: {method}",
          expected=f"a result for a well-formed call of {method}",
          received=error_headline(body.get("error")) if isinstance(body, dict)
          else f"HTTP {exchange.status}: {exchange.text(200)}",
          exchange=exchange)


def needs_evm_rpc(rule_ids: list[str]) -> bool:
    """Whether the rules are the EVM chain RPC's own (not the envelope rules every API shares)."""
    catalogue = load_catalogue()
    return any(rid in catalogue and catalogue[rid].apis == ("evm",) and rid != "RPC-EVM-032" for rid in rule_ids)


def methods_needed(rule_ids: list[str]) -> list[str]:
    """The listed methods whose answers the rules decide: rules that apply to one method only."""
    catalogue = load_catalogue()
    found = [catalogue[rid].applies_to[0] for rid in rule_ids if rid in catalogue
             and len(catalogue[rid].applies_to) == 1]
    return [method for method in dict.fromkeys(found) if method in SERVED_RULES]


class ServedMethods:
    """One run's memo of what the target serves, and which test reports each thing it does not."""

    def __init__(self, once: Callable[..., Any]) -> None:
        # The run's cache (the `once` fixture): tests running at once probe a method once.
        self._once = once
        self._reporters: dict[str, str] = {}

    def require(self, item: pytest.Item, method: str, client: JsonRpcClient) -> None:
        """Skips `item`, blocked by the rule that `method` is served, when it is not and another test reports it."""
        absent = self._once(lambda: not_served(probe(client, method)), client.url, method)
        self._skip_unless_reporter(item, method, absent, SERVED_RULES[method], f"{method} is not served")

    def require_evm_rpc(self, item: pytest.Item, client: JsonRpcClient) -> None:
        """Skips `item` when the EVM chain RPC path does not answer JSON-RPC at all (RPC-EVM-032 reports it)."""
        def absent() -> bool:
            exchange = client.call("eth_chainId", [])
            return exchange.status == 404 or not is_response_object(exchange)
        self._skip_unless_reporter(item, EVM_RPC, self._once(absent, client.url), "RPC-EVM-032",
                                   "the EVM chain RPC does not answer JSON-RPC")

    def _skip_unless_reporter(self, item: pytest.Item, key: str, absent: bool, rule_id: str, reason: str) -> None:
        """The reporter is the test carrying `rule_id` when the run selected one; otherwise the first test to ask,
        which runs and fails on its own rule."""
        if not absent:
            return
        if key not in self._reporters:
            carriers = [other.nodeid for other in item.session.items if _carries(other, rule_id)]
            self._reporters[key] = carriers[0] if carriers else item.nodeid
        reporter = self._reporters[key]
        if reporter != item.nodeid and not _carries(item, rule_id):
            evidence.blocked_by(rule_id)
            pytest.skip(f"blocked by {rule_id}: {reason} (reported by {test_id(reporter)})")


def _carries(item: pytest.Item, rule_id: str) -> bool:
    return any(rule_id in mark.args for mark in item.iter_markers("rule"))

