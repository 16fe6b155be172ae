"""Every declared effect of the node JSON-RPC methods' parameters that a call can show, checked on every endpoint of
the method: derived from `x-effects` in specs/openrpc/*.json, one test per declaration and kind of check."""
from __future__ import annotations

import json

from typing import Any
from collections.abc import Callable

import pytest

from conformance import specs
from conformance.checks import check, effects, independently, live
from conformance.checks.served import SERVED_RULES
from conformance.checks.eth import for_want_of_data
from conformance.clients.http import Exchange
from conformance.meaning import declarations, members
from conformance.meaning.declarations import Declaration
from conformance.profiles import Profile
from conformance.suite.rpc.conftest import declared_endpoints
from conformance.suite.rpc.effect_calls import RpcEffectCalls, equal_results

EFFECTS = [effect for api in specs.RPC_APIS for effect in declarations.checked(declarations.effects(api))]


def cases(kind: str) -> list[Any]:
    return [pytest.param(effect, marks=pytest.mark.rule(effect.rule), id=effect.id)
            for effect in EFFECTS if effect.kind == kind]


@pytest.fixture
def endpoints_of(request: pytest.FixtureRequest, profile: Profile) -> Callable[[Declaration], list[RpcEffectCalls]]:
    """The endpoints the test's declaration is checked on, made while the test is set up: every index path the
    node serves (the first in quick), else the API's one endpoint."""
    effect: Declaration = request.node.callspec.params["effect"]
    if effect.api != "index" and effect.subject in SERVED_RULES:
        # a method not served skips, blocked by the rule that says it is
        request.getfixturevalue("require_served")(effect.subject)
    found = [RpcEffectCalls(client, profile.exhaustive)
             for client in declared_endpoints(request, effect.api, profile)]
    return lambda declaration: found


@pytest.mark.parametrize("effect", cases("echo"))
def test_the_answer_is_the_one_asked_for(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                        effect: Declaration) -> None:
    """For each value tried (from the answers of the declared source call), the result's member names it."""
    normalise = members.Normaliser(numeric=bool(effect.get("numeric")), case="insensitive")
    judged = 0
    for calls in endpoints_of(effect):
        for value in calls.source_values(effect):
            exchange = calls.call(effect, {effect.name: value})
            found = members.first(calls.result(exchange), effect.get("member"))
            if found is None:
                continue
            judged += 1
            with independently():
                check(normalise(found) == normalise(value), effect.rule,
                      f"{effect.subject} with {effect.name}={value!r} answers another {effect.get('member')}",
                      expected=f"{effect.get('member')} {value!r}", received=f"{effect.get('member')} {found!r}",
                      exchange=exchange)
                effects.verified(effect)
    if not judged:
        pytest.skip(f"no value of {effect.name} to ask {effect.subject} for")


@pytest.mark.parametrize("effect", cases("filter"))
def test_a_filter_keeps_only_what_it_names(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                          effect: Declaration) -> None:
    """For a value taken from the unfiltered answer (and two at once, for a list), every item is one it names and
    the items it was taken from are kept; a value that names nothing is answered with no item."""
    normalise = members.Normaliser(case=effect.get("case", "exact"))
    for calls in endpoints_of(effect):
        everything = calls.items(effect, calls.result(calls.call(effect, {effect.name: None})))
        values = [(v, item) for item in everything for v in members.values(item, effect.get("member"))]
        if not values:
            pytest.skip(f"{effect.subject} lists nothing to filter by {effect.name}")
        tried: list[tuple[Any, list[Any]]] = [(values[0][0], [values[0][1]])]
        if effect.get("list") and len(values) > 1:
            tried.append(([values[0][0], values[-1][0]], [values[0][1], values[-1][1]]))
        tried.append((members.unmatched(str(values[0][0])), []))
        for value, sources in tried:
            sent = value if not effect.get("list") or isinstance(value, list) else [value]
            exchange = calls.call(effect, {effect.name: sent})
            body = exchange.json() if exchange.is_json() else None
            if not sources and (not isinstance(body, dict) or "error" in body):
                continue   # a value that names nothing may be refused
            items = calls.items(effect, calls.result(exchange))
            with independently():
                effects.assert_filter_on_every_page(effect, [(exchange, items)], sent, normalise)
            if sources:
                with independently():
                    rule = effect.get("keeps_all" if len(sources) > 1 else "keeps", effect.rule)
                    key = _key(effect)
                    effects.assert_items_kept(effect, [(exchange, items)], key, sources, complete=True,
                                              value=sent, rule=rule)


@pytest.mark.parametrize("effect", cases("default"))
def test_an_omitted_parameter_answers_as_its_default(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                                    effect: Declaration) -> None:
    """The method without the parameter answers as with its documented default."""
    for calls in endpoints_of(effect):
        value = effect.get("value")
        if value == "latest-block-timestamp":
            block = calls.peek("eth_getBlockByNumber", ["latest", False])
            value = members.number(block.get("timestamp")) if isinstance(block, dict) else None
            if value is None:
                pytest.skip("the latest block's timestamp cannot be read")
        sent = {effect.name: value}
        outcome = live.agree_while_live(_sender(calls, effect, sent), _sender(calls, effect, {}),
                                        equal_results(_comparable(effect), effect))
        effects.assert_same_answer(effect, outcome.agreed, outcome.first, outcome.second,
                                   what=f"{effect.name}={value!r} and {effect.name} omitted",
                                   exchange=outcome.exchange)


@pytest.mark.parametrize("effect", cases("projection"))
def test_a_projection_changes_only_its_members(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                              effect: Declaration) -> None:
    """Each value of the parameter answers alike outside the members it is declared to change."""
    changed = set(effect.get("members", ()))

    def outside(result: Any) -> Any:
        return members.canonical({k: v for k, v in result.items() if k not in changed}) \
            if isinstance(result, dict) else members.canonical(result)
    for calls in endpoints_of(effect):
        values = calls.source_values(_source_of(effect)) or [None]
        other = {p["name"]: v for p in specs.rpc_method(effect.api, effect.subject)["params"]
                 if p["name"] != effect.name for v in values[:1]}
        outcome = live.agree_while_live(_sender(calls, effect, {**other, effect.name: False}),
                                        _sender(calls, effect, {**other, effect.name: True}),
                                        equal_results(outside, effect))
        effects.assert_same_answer(effect, outcome.agreed, outcome.first, outcome.second,
                                   what=f"{effect.name} false and true, outside {sorted(changed)},",
                                   exchange=outcome.exchange)


def _sender(calls: RpcEffectCalls, effect: Declaration, values: dict[str, Any]) -> Callable[[], Exchange]:
    return lambda: calls.call(effect, values)


@pytest.mark.parametrize("effect", cases("spelling"))
def test_each_spelling_answers_as_the_one_it_stands_for(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                                       effect: Declaration) -> None:
    """A past block asked by its number and by its hash gets the same answer (where both forms are answered)."""
    for calls in endpoints_of(effect):
        head = members.number(calls.peek("eth_blockNumber", []))
        if not isinstance(head, int) or head < 1:
            pytest.skip(for_want_of_data("eth_blockNumber gives no block to ask about"))
        block = calls.peek("eth_getBlockByNumber", [hex(head - 1), False])
        if not isinstance(block, dict) or not isinstance(block.get("hash"), str):
            pytest.skip(f"block {head - 1} cannot be read")
        other = _others(calls, effect, block)
        by_number = calls.call(effect, {**other, effect.name: hex(head - 1)})
        by_hash = calls.call(effect, {**other, effect.name: block["hash"]})
        first, second = (equal_results(members.canonical)(e) for e in (by_number, by_hash))
        if isinstance(second, tuple) and effect.api == "evm" and effect.subject.startswith("eth_get"):
            # a block hash also goes as EIP-1898's object, the form some nodes take it in
            by_hash = calls.call(effect, {**other, effect.name: {"blockHash": block["hash"]}})
            second = equal_results(members.canonical)(by_hash)
        if any(isinstance(v, tuple) for v in (first, second)):
            pytest.skip(f"{effect.subject} does not answer both forms of a block: its own rules say whether it must")
        effects.assert_same_answer(effect, first == second, first, second,
                                   what=f"block {head - 1} by number and by hash", exchange=by_hash)


@pytest.mark.parametrize("effect", cases("bound"))
def test_a_range_starts_at_its_bound(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                     effect: Declaration) -> None:
    """A range whose start is placed on an item's own position holds it first; one a step later does not hold it;
    no item lies before the start."""
    for calls in endpoints_of(effect):
        everything = calls.result(calls.call(effect, {effect.name: 0, "numToFetch": 4}))
        found = [members.number(v) for v in members.values(everything, effect.get("member"))]
        positions = [n for n in found if isinstance(n, int)]
        if len(positions) < 3:
            pytest.skip(f"{effect.subject} holds fewer than three items to place a bound on")
        at = positions[1]
        for start, holds in ((at, True), (at + 1, False)):
            exchange = calls.call(effect, {effect.name: start, "numToFetch": 2})
            got = [members.number(v) for v in members.values(calls.result(exchange), effect.get("member"))]
            with independently():
                check(all(n is None or n >= start for n in got) and (at in got) == holds and (
                      not got or got[0] == start), effect.rule,
                      f"{effect.subject} with {effect.name}={start} does not start at {start}",
                      expected=f"positions from {start}{', the item at ' + str(at) + ' first' if holds else ''}",
                      received=f"positions {got}", exchange=exchange)
                effects.verified(effect)


def _key(effect: Declaration) -> Callable[[Any], str]:
    return lambda item: str(members.first(item, effect.get("member")))


def _comparable(effect: Declaration) -> Callable[[Any], Any]:
    if effect.get("items"):
        return lambda result: sorted(str(members.first(item, effect.get("member")))
                                     for item in _items_of(effect, result))
    return members.canonical


def _items_of(effect: Declaration, result: Any) -> list[Any]:
    found = members.first(result, effect.get("items"))
    return found if isinstance(found, list) else []


def _source_of(effect: Declaration) -> Declaration:
    """The echo declaration of the same method (its values are the ones a projection is tried on)."""
    for other in EFFECTS:
        if other.subject == effect.subject and other.kind == "echo":
            return other
    return effect


def _others(calls: RpcEffectCalls, effect: Declaration, block: dict[str, Any]) -> dict[str, Any]:
    """The other parameters of a method asked at a block: an account that block knows, for the account methods."""
    names = [p["name"] for p in specs.rpc_method(effect.api, effect.subject)["params"]]
    if "address" not in names:
        return {}
    full = calls.peek("eth_getBlockByNumber", [block.get("number"), True])
    txs = [tx for tx in (full or {}).get("transactions") or [] if isinstance(tx, dict)] if isinstance(full, dict) \
        else []
    found = [tx.get("from") for tx in txs[:1]] + [block.get("miner")]
    address = next((a for a in found if isinstance(a, str) and len(a) == 42), None)
    if address is None:
        pytest.skip("no account to ask about at that block")
    return {"address": address}




@pytest.mark.parametrize("effect", [case for case in cases("moment") if case.values[0].get("changed_at")])
def test_a_moment_in_history_is_as_the_chain_was(endpoints_of: Callable[[Declaration], list[RpcEffectCalls]],
                                               effect: Declaration) -> None:
    """One step before the last moment the answer says it changed, the method answers otherwise than now (what
    changed then was not yet in force); where that moment is the answer's last change, at it the method answers as
    now."""
    compared = effect.get("compare")

    def value(result: Any) -> Any:
        return members.canonical(members.first(result, compared) if compared else result)
    for calls in endpoints_of(effect):
        now = calls.result(calls.call(effect, {effect.name: None}), effect.subject)
        points = [int(n) for n in (members.number(v) for v in members.values(now, effect.get("changed_at")))
                  if isinstance(n, (int, float))]
        if not points:
            pytest.skip(f"{effect.subject} names no moment it changed at")
        last = max(points)
        sent = hex(last) if effect.get("at") == "block" else last
        at_change = calls.call(effect, {effect.name: sent})
        if effect.get("last_change"):   # the moment the answer names is its last change: nothing changed since
            with independently():
                check(value(calls.result(at_change)) == value(now), effect.rule,
                      f"{effect.subject} at {sent}, its last change, answers otherwise than now",
                      expected=str(value(now))[:300], received=str(value(calls.result(at_change)))[:300],
                      exchange=at_change)
                effects.verified(effect)
        else:   # what is in force now took force at a moment it names, by the last of them: so it is at that moment
            missing = sorted(entries(value(now)) - entries(value(calls.result(at_change))))
            with independently():
                check(not missing, effect.rule, f"{effect.subject} at {sent}, the latest moment its answer names "
                      f"a change at, leaves out what it answers now", expected=f"{sorted(entries(value(now)))[:10]} "
                      f"in force at {sent}", received=f"{missing[:10]} missing", exchange=at_change)
                effects.verified(effect)
        if last > 0:
            before = hex(last - 1) if effect.get("at") == "block" else last - 1
            exchange = calls.call(effect, {effect.name: before})
            check(value(calls.result(exchange)) != value(now), effect.rule,
                  f"{effect.subject} at {before}, before its last change, already answers as now",
                  expected=f"not {str(value(now))[:300]} (it changed at {last})",
                  received=str(value(calls.result(exchange)))[:300], exchange=exchange)
            effects.verified(effect)


def entries(value: Any) -> set[str]:
    """What an answer lists: an object's member names, a list's items (as their JSON text)."""
    if isinstance(value, dict):
        return set(value)
    if isinstance(value, list):
        return {json.dumps(item, sort_keys=True, default=str) for item in value}
    return set()
