"""eth_getActiveRulesAt and the deprecated eth_getActivePrecompilesAt, with and without a timestamp; and the rules a
timestamp selects are those of that moment."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import is_error, result_of
from conformance.checks.served import plainly_unknown
from conformance.checks.evm_extras import check_active_at, check_active_rules, check_none_before, precompile_times
from conformance.checks.shapes import assert_shape, component
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient


def active_rules(evm: JsonRpcClient, params: list[Any], rule_id: str) -> tuple[dict[str, Any], Exchange]:
    """The eth_getActiveRulesAt result for `params`, checked member by member."""
    exchange = evm.call("eth_getActiveRulesAt", params)
    result = result_of(exchange, rule_id, f"eth_getActiveRulesAt {params}")
    return check_active_rules(result, what="eth_getActiveRulesAt result", exchange=exchange), exchange


def block_time(evm: JsonRpcClient, tag: str) -> int | None:
    """A block's timestamp through the standard eth_getBlockByNumber (its shape is only observed)."""
    exchange = evm.call("eth_getBlockByNumber", [tag, False])
    result = exchange.json().get("result") if exchange.is_json() and isinstance(exchange.json(), dict) else None
    stamp = result.get("timestamp") if isinstance(result, dict) else None
    try:
        return int(stamp, 16) if isinstance(stamp, str) else None
    except ValueError:
        return None


@pytest.mark.rule("RPC-EVM-022", "RPC-EVM-023", "RPC-EVM-024", "RPC-EVM-025")
def test_active_rules_without_timestamp(evm: JsonRpcClient) -> None:
    """eth_getActiveRulesAt without a timestamp answers with ethRules, networkRules and precompiles."""
    active_rules(evm, [], "RPC-EVM-025")


@pytest.mark.rule("RPC-EVM-022", "RPC-EVM-023", "RPC-EVM-024", "RPC-EVM-026")
@pytest.mark.parametrize("timestamp", ["zero", "genesis", "head"])
def test_active_rules_at_timestamp(evm: JsonRpcClient, timestamp: str) -> None:
    """eth_getActiveRulesAt answers with an unsigned integer timestamp."""
    value = 0 if timestamp == "zero" else block_time(evm, "0x0" if timestamp == "genesis" else "latest")
    if value is None:
        pytest.skip("eth_getBlockByNumber gives no block timestamp")
    active_rules(evm, [value], "RPC-EVM-026")


@pytest.mark.rule("RPC-EVM-027")
def test_active_rules_default_to_the_latest_block(evm: JsonRpcClient) -> None:
    """eth_getActiveRulesAt without a timestamp gives the rules at the latest block timestamp."""
    before = block_time(evm, "latest")
    exchange = evm.call("eth_getActiveRulesAt", [])
    if is_error(exchange):
        pytest.skip("eth_getActiveRulesAt without a timestamp is refused (RPC-EVM-025 decides that)")
    default = result_of(exchange, "RPC-EVM-027", "eth_getActiveRulesAt without a timestamp")
    after = block_time(evm, "latest")
    if before is None or after is None:
        pytest.skip("eth_getBlockByNumber gives no latest block timestamp")
    # The head may move during the reads: the default must match the rules at one of the head's timestamps.
    candidates = [result_of(evm.call("eth_getActiveRulesAt", [stamp]), "RPC-EVM-026", "eth_getActiveRulesAt")
                  for stamp in sorted({before, after})]
    check(default in candidates, "RPC-EVM-027", "eth_getActiveRulesAt without a timestamp differs from the rules "
          "at the latest block timestamp", expected=f"the rules at timestamp {after}: {candidates[-1]}",
          received=default, exchange=exchange)


@pytest.mark.rule("RPC-EVM-028", "RPC-EVM-029")
@pytest.mark.parametrize("params", [[], "head"], ids=["default", "timestamp"])
def test_active_precompiles_when_served(evm: JsonRpcClient, params: Any, observe: Callable[[str, Any], None]) -> None:
    """eth_getActivePrecompilesAt, when still served, maps config names to adminAddresses and blockTimestamp."""
    if params == "head":
        stamp = block_time(evm, "latest")
        params = [stamp] if stamp is not None else [0]
    exchange = evm.call("eth_getActivePrecompilesAt", params)
    observe("RPC-EVM-029", {"served": not is_error(exchange), "unknown method": plainly_unknown(exchange)})
    if is_error(exchange):
        pytest.skip("eth_getActivePrecompilesAt (deprecated) is not served")
    result = result_of(exchange, "RPC-EVM-028", "eth_getActivePrecompilesAt")
    assert_shape("RPC-EVM-028", result, component("evm", "ActivePrecompiles"), api="evm",
                 what="eth_getActivePrecompilesAt result", exchange=exchange)


#: Timestamps eth_getActiveRulesAt is asked at, against the activation timestamp of each precompile the rules at the
#: head list: exactly at it (active from then on), one second before it (not yet active), and the genesis block's.
ACTIVATION_EDGES = ["at-activation", "before-activation", "genesis"]


def rules_at(evm: JsonRpcClient, stamp: int) -> tuple[Any, Exchange]:
    """The eth_getActiveRulesAt answer at `stamp`; a refusal is RPC-EVM-026's (any unsigned timestamp is answered)."""
    exchange = evm.call("eth_getActiveRulesAt", [stamp])
    return result_of(exchange, "RPC-EVM-026", f"eth_getActiveRulesAt [{stamp}]"), exchange


@pytest.mark.rule("RPC-EVM-037")
@pytest.mark.parametrize("edge", ACTIVATION_EDGES)
def test_precompiles_are_active_from_their_activation_timestamp(evm: JsonRpcClient, edge: str) -> None:
    """eth_getActiveRulesAt at a timestamp lists each precompile from its activation timestamp on, and no
    precompile before its activation: the timestamp selects the moment the rules describe."""
    if edge == "genesis":
        stamp = block_time(evm, "0x0")
        if stamp is None:
            pytest.skip("eth_getBlockByNumber gives no genesis block timestamp")
        rules, exchange = rules_at(evm, stamp)
        check_none_before(stamp, rules, exchange=exchange)
        return
    head = block_time(evm, "latest")
    if head is None:
        pytest.skip("eth_getBlockByNumber gives no latest block timestamp")
    activations = precompile_times(rules_at(evm, head)[0])
    edges = {name: stamp for name, stamp in activations.items() if edge == "at-activation" or stamp > 0}
    if not edges:
        pytest.skip("the rules at the head list no precompile" + ("" if not activations else " activated after 0"))
    for name, stamp in sorted(edges.items(), key=lambda item: item[1]):
        if edge == "at-activation":
            rules, exchange = rules_at(evm, stamp)
            check_active_at(name, stamp, rules, exchange=exchange)
        else:
            rules, exchange = rules_at(evm, stamp - 1)
            check_none_before(stamp - 1, rules, exchange=exchange)


@pytest.mark.rule("RPC-EVM-039")
@pytest.mark.parametrize("moment", ["default", "head", "genesis"])
def test_the_deprecated_method_names_the_precompiles_its_replacement_names(
        evm: JsonRpcClient, moment: str, require_served: Callable[[str], None]) -> None:
    """eth_getActivePrecompilesAt, while a node still serves it, and eth_getActiveRulesAt, which replaces it, asked
    about one moment name the same precompiles: one is the other's replacement, not another answer."""
    require_served("eth_getActiveRulesAt")  # the replacement not served is RPC-EVM-035's, not this rule's
    stamp = None if moment == "default" else block_time(evm, "latest" if moment == "head" else "0x0")
    if moment != "default" and stamp is None:
        pytest.skip("eth_getBlockByNumber gives no block timestamp")
    params = [] if stamp is None else [stamp]
    old = evm.call("eth_getActivePrecompilesAt", params)
    if is_error(old):
        pytest.skip("eth_getActivePrecompilesAt (deprecated) is not served (RPC-EVM-029 records it)")
    named = result_of(old, "RPC-EVM-028", "eth_getActivePrecompilesAt")
    rules = result_of(evm.call("eth_getActiveRulesAt", params), "RPC-EVM-026", "eth_getActiveRulesAt")
    replaced = rules.get("precompiles") if isinstance(rules, dict) else None
    if not isinstance(named, dict) or not isinstance(replaced, dict):
        pytest.skip("a result is not a map of precompiles (RPC-EVM-024 and 028 decide that)")
    check(set(named) == set(replaced), "RPC-EVM-039", "eth_getActivePrecompilesAt and eth_getActiveRulesAt name "
          f"other precompiles at {'the latest block' if stamp is None else stamp}",
          expected=f"the precompiles of eth_getActiveRulesAt: {sorted(replaced)}", received=sorted(named),
          exchange=old)
