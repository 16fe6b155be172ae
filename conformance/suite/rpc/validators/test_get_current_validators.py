"""validators.getCurrentValidators: each validator's shape, and the nodeIDs filter (empty or omitted: all)."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import is_error, is_response_object, record_error
from conformance.checks.served import check_served, probe
from conformance.checks.validators import (METHOD, check_same_entries, check_validator, current_validators,
                                           differing_entries, node_ids, validators_in)
from conformance.clients.jsonrpc import OMIT, JsonRpcClient
from conformance.session import Endpoints

UNKNOWN_NODE = "NodeID-111111111111111111116DBWJs"
#: At most this many validators missing from an answer are asked for one by one.
MAX_CONFIRMED = 8


@pytest.fixture
def everyone(validators: JsonRpcClient) -> list[Any]:
    found, _ = current_validators(validators, {}, "RPC-VAL-002")
    if not node_ids(found):
        pytest.skip("the chain has no current validators to filter by")
    return found


@pytest.mark.rule("RPC-VAL-001")
def test_validators_api_answers_json_rpc(validators: JsonRpcClient) -> None:
    """The validators API answers JSON-RPC calls at /ext/bc/<blockchainID>/validators."""
    exchange = probe(validators, "validators.getCurrentValidators")
    check(is_response_object(exchange), "RPC-VAL-001", "the validators path does not answer JSON-RPC",
          expected="a JSON-RPC response object", received=f"HTTP {exchange.status}: {exchange.text(200)}",
          exchange=exchange)
    check_served(exchange, "validators.getCurrentValidators")


@pytest.mark.rule("RPC-VAL-002", "RPC-VAL-003", "RPC-VAL-004", "RPC-VAL-005", "RPC-VAL-006", "RPC-VAL-007",
                  "RPC-VAL-008", "RPC-VAL-009", "RPC-VAL-010", "RPC-VAL-011", "RPC-VAL-012", "RPC-VAL-018")
def test_each_validator_has_the_documented_shape(validators: JsonRpcClient,
                                                 observe: Callable[[str, Any], None]) -> None:
    """Each current validator carries its documented members in their documented types."""
    found, exchange = current_validators(validators, {}, "RPC-VAL-002")
    for position, validator in enumerate(found):
        check_validator(validator, exchange=exchange, what=f"validators[{position}]")
    percentages = [v.get("uptimePercentage") for v in found if isinstance(v, dict)]
    observe("RPC-VAL-018", {"outside 0..100": [p for p in percentages if isinstance(p, (int, float))
                                              and not isinstance(p, bool) and not 0 <= p <= 100]})


@pytest.mark.rule("RPC-VAL-013", "RPC-VAL-014")
@pytest.mark.parametrize("pick", ["first", "last", "two"])
def test_node_ids_filter_returns_exactly_those(validators: JsonRpcClient, everyone: list[Any], pick: str) -> None:
    """validators.getCurrentValidators with nodeIDs returns those validators and no others."""
    ids = node_ids(everyone)
    wanted = {"first": ids[:1], "last": ids[-1:], "two": ids[:1] + ids[-1:]}[pick]
    exchange = validators.call(METHOD, {"nodeIDs": wanted})
    # A node may refuse a list naming a validator that has left since it was read: only a refusal of validators
    # that are still current is held against it.
    if is_error(exchange) and not set(wanted) <= set(node_ids(current_validators(validators, {}, "RPC-VAL-014")[0])):
        pytest.skip(f"a validator of {wanted} left the validator set during the test")
    found, exchange = validators_in(exchange, "RPC-VAL-013", f"{METHOD} nodeIDs={wanted}")
    extra = sorted(set(node_ids(found)) - set(wanted))
    with independently():  # returning others and dropping one asked for are two deviations, each its own rule
        check(not extra and len(found) == len(node_ids(found)), "RPC-VAL-013",
              "the nodeIDs filter returns other validators", expected=f"only {wanted}",
              received=f"also {extra or [v for v in found if v not in everyone]}", exchange=exchange)
    missing = sorted(set(wanted) - set(node_ids(found)))
    if missing:  # a validator may have left meanwhile: only one still listed unfiltered is held against the target
        missing = sorted(set(missing) & set(node_ids(current_validators(validators, {}, "RPC-VAL-014")[0])))
    check(not missing, "RPC-VAL-014", "the nodeIDs filter drops a current validator", expected=f"each of {wanted}",
          received=f"missing {missing}", exchange=exchange)


@pytest.mark.rule("RPC-VAL-019")
def test_filtered_validators_are_their_entries_in_the_full_list(validators: JsonRpcClient,
                                                                 everyone: list[Any]) -> None:
    """Each validator validators.getCurrentValidators returns for its node ID is the same validator, member for
    member, as the answer without nodeIDs lists under that ID."""
    ids = node_ids(everyone)
    wanted = list(dict.fromkeys(ids[:1] + ids[-1:]))
    differing: dict[str, Any] = {}
    for _ in range(3):  # uptimes and connections change between reads: decide on a filtered read between two lists
        before, _ = current_validators(validators, {}, "RPC-VAL-002")
        exchange = validators.call(METHOD, {"nodeIDs": wanted})
        if is_error(exchange):
            pytest.skip(f"{METHOD} nodeIDs={wanted} is refused (RPC-VAL-014 decides that)")
        found, _ = validators_in(exchange, "RPC-VAL-013", f"{METHOD} nodeIDs={wanted}")
        after, _ = current_validators(validators, {}, "RPC-VAL-002")
        differing = differing_entries(found, before, after)
        if not differing:
            break
    check_same_entries(differing, exchange=exchange)


@pytest.mark.rule("RPC-VAL-015")
def test_empty_node_ids_returns_all(validators: JsonRpcClient) -> None:
    """validators.getCurrentValidators with an empty nodeIDs array returns the same validators as without it."""
    for _ in range(3):  # the validator set may change between reads: decide on two reads that agree
        before, _ = current_validators(validators, {}, "RPC-VAL-015")
        empty, exchange = current_validators(validators, {"nodeIDs": []}, "RPC-VAL-015")
        after, _ = current_validators(validators, {}, "RPC-VAL-015")
        if sorted(node_ids(before)) == sorted(node_ids(after)):
            break
    check(sorted(node_ids(empty)) == sorted(node_ids(before)), "RPC-VAL-015",
          "an empty nodeIDs array does not return every validator",
          expected=f"{len(before)} validators", received=f"{len(empty)} validators: "
          f"missing {sorted(set(node_ids(before)) - set(node_ids(empty)))}", exchange=exchange)


@pytest.mark.rule("RPC-VAL-016")
@pytest.mark.parametrize("params", [OMIT, {}], ids=["params-omitted", "no-nodeIDs"])
def test_without_node_ids_returns_every_validator(validators: JsonRpcClient, params: Any, endpoints: Endpoints) -> None:
    """validators.getCurrentValidators without nodeIDs returns every validator the node knows as current."""
    listed, exchange = current_validators(validators, params, "RPC-VAL-016")
    known = set(node_ids(listed)) | set(node_ids(current_validators(validators, {"nodeIDs": []}, "RPC-VAL-016")[0]))
    if (sampled := endpoints.sample("validator_node_id")) is not None:
        known.add(sampled)
    # Ask for each by ID, alone: a validator that is still current must have been listed. What a node answers
    # for an ID that is no longer current is open (RPC-VAL-017), so an error there confirms nothing.
    for node_id in sorted(known - set(node_ids(listed)))[:MAX_CONFIRMED]:
        alone = validators.call(METHOD, {"nodeIDs": [node_id]})
        if is_error(alone):
            continue
        confirmed = node_ids(validators_in(alone, "RPC-VAL-016", f"{METHOD} nodeIDs=[{node_id}]")[0])
        check(node_id not in confirmed, "RPC-VAL-016", "the answer without nodeIDs leaves out a current validator",
              expected="every current validator", received=f"missing {node_id}", exchange=exchange)


@pytest.mark.rule("RPC-VAL-017")
def test_unknown_node_id_is_recorded(validators: JsonRpcClient, observe: Callable[[str, Any], None]) -> None:
    """The answer for a node ID that is not a current validator is recorded."""
    exchange = validators.call("validators.getCurrentValidators", {"nodeIDs": [UNKNOWN_NODE]})
    body = exchange.json() if exchange.is_json() else None
    observe("RPC-VAL-017", {"answer": body.get("result", "error") if isinstance(body, dict) else exchange.text(100)})
    record_error(observe, exchange)
