"""eth_getChainConfig: every documented member of the chain config, the precompile configs and the upgrades."""
from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import is_response_object, result_of
from conformance.checks.eth import peek
from conformance.checks.members import check_member, check_members, properties, required
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

CONFIG = properties("evm", "ChainConfig")
FORK_BLOCKS = ("homesteadBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
               "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock")
PRECOMPILE_CONFIGS = tuple(name for name, schema in CONFIG.items()
                           if schema.get("$ref") == "#/components/schemas/PrecompileConfig")
UPGRADE = properties("evm", "PrecompileUpgradeConfig")
#: Members nodes leave out when empty or false are optional in the specs: checked only when present.
OPTIONAL = {name: frozenset(properties("evm", name)) - required("evm", name)
            for name in ("ChainConfig", "PrecompileConfig", "Upgrades", "PrecompileUpgradeConfig")}


@pytest.fixture
def chain_config(evm: JsonRpcClient) -> tuple[dict[str, Any], Exchange]:
    exchange = evm.call("eth_getChainConfig", [])
    result = result_of(exchange, "RPC-EVM-008", "eth_getChainConfig")
    check(isinstance(result, dict), "RPC-EVM-008", "eth_getChainConfig gives no object", expected="a chain config",
          received=result, exchange=exchange)
    return result, exchange


@pytest.mark.rule("RPC-EVM-032")
def test_evm_chain_answers_json_rpc(evm: JsonRpcClient) -> None:
    """The EVM chain RPC answers JSON-RPC calls at /ext/bc/<blockchainID>/rpc."""
    exchange = evm.call("eth_getChainConfig", [])
    check(is_response_object(exchange), "RPC-EVM-032", "the EVM chain path does not answer JSON-RPC",
          expected="a JSON-RPC response object", received=f"HTTP {exchange.status}: {exchange.text(200)}",
          exchange=exchange)


@pytest.mark.rule("RPC-EVM-008", "RPC-EVM-009", "RPC-EVM-010", "RPC-EVM-011", "RPC-EVM-012", "RPC-EVM-013")
def test_chain_config_members(chain_config: tuple[dict[str, Any], Exchange]) -> None:
    """eth_getChainConfig gives chainId, feeConfig, allowFeeRecipients, the fork blocks, eip150Hash and
    subnetEVMTimestamp."""
    config, exchange = chain_config
    what = "eth_getChainConfig result"
    # Each member is its own rule: one in the wrong form leaves the others to be decided.
    with independently():
        check_member("RPC-EVM-008", config, "chainId", CONFIG["chainId"], api="evm", what=what, exchange=exchange)
    with independently():
        check_member("RPC-EVM-009", config, "feeConfig", {"type": "object"}, api="evm", what=what, exchange=exchange)
        check_members("RPC-EVM-009", config["feeConfig"], tuple(properties("evm", "FeeConfig")), "evm", "FeeConfig",
                      what="feeConfig", exchange=exchange)
    with independently():
        check_member("RPC-EVM-010", config, "allowFeeRecipients", CONFIG["allowFeeRecipients"], api="evm",
                     what=what, exchange=exchange, optional="allowFeeRecipients" in OPTIONAL["ChainConfig"])
    with independently():
        check_members("RPC-EVM-011", config, FORK_BLOCKS, "evm", "ChainConfig", what=what, exchange=exchange)
    with independently():
        check_member("RPC-EVM-012", config, "eip150Hash", CONFIG["eip150Hash"], api="evm", what=what,
                     exchange=exchange, optional="eip150Hash" in OPTIONAL["ChainConfig"])
    check_member("RPC-EVM-013", config, "subnetEVMTimestamp", CONFIG["subnetEVMTimestamp"], api="evm", what=what,
                 exchange=exchange)


@pytest.mark.rule("RPC-EVM-014", "RPC-EVM-015")
def test_configured_precompiles(chain_config: tuple[dict[str, Any], Exchange]) -> None:
    """A configured precompile config carries adminAddresses (0x addresses) and an integer blockTimestamp."""
    config, exchange = chain_config
    configured = [name for name in PRECOMPILE_CONFIGS if name in config]
    if not configured:
        pytest.skip("no precompile is configured in this chain config")
    admin_schema = properties("evm", "PrecompileConfig")
    for name in configured:
        with independently():
            check_member("RPC-EVM-014", config[name], "adminAddresses", admin_schema["adminAddresses"], api="evm",
                         what=name, exchange=exchange, optional="adminAddresses" in OPTIONAL["PrecompileConfig"])
        check_member("RPC-EVM-015", config[name], "blockTimestamp", admin_schema["blockTimestamp"], api="evm",
                     what=name, exchange=exchange)


@pytest.mark.rule("RPC-EVM-016", "RPC-EVM-017", "RPC-EVM-018", "RPC-EVM-019", "RPC-EVM-020", "RPC-EVM-021")
def test_precompile_upgrades(chain_config: tuple[dict[str, Any], Exchange]) -> None:
    """upgrades.precompileUpgrades is an array of one-key objects, each with adminAddresses, blockTimestamp, disable."""
    config, exchange = chain_config
    check_member("RPC-EVM-016", config, "upgrades", {"type": "object"}, api="evm", what="eth_getChainConfig result",
                 exchange=exchange)
    check_member("RPC-EVM-017", config["upgrades"], "precompileUpgrades",
                 {"type": "array", "items": {"type": "object"}}, api="evm", what="upgrades", exchange=exchange,
                 optional="precompileUpgrades" in OPTIONAL["Upgrades"])
    for position, entry in enumerate(config["upgrades"].get("precompileUpgrades", [])):
        check(len(entry) == 1, "RPC-EVM-018", f"precompileUpgrades[{position}] does not have exactly one key",
              expected="one key naming a precompile config", received=sorted(entry), exchange=exchange)
        (name, value), = entry.items()
        what = f"precompileUpgrades[{position}].{name}"
        with independently():
            check_member("RPC-EVM-019", value, "adminAddresses", UPGRADE["adminAddresses"], api="evm", what=what,
                         exchange=exchange, optional="adminAddresses" in OPTIONAL["PrecompileUpgradeConfig"])
        with independently():
            check_member("RPC-EVM-020", value, "blockTimestamp", UPGRADE["blockTimestamp"], api="evm", what=what,
                         exchange=exchange)
        check_member("RPC-EVM-021", value, "disable", UPGRADE["disable"], api="evm", what=what, exchange=exchange,
                     optional="disable" in OPTIONAL["PrecompileUpgradeConfig"])


@pytest.mark.rule("RPC-EVM-038")
def test_chain_config_is_the_config_of_this_chain(evm: JsonRpcClient,
                                                  chain_config: tuple[dict[str, Any], Exchange]) -> None:
    """eth_getChainConfig at a chain's path gives that chain's config: its chainId is what eth_chainId gives there."""
    config, exchange = chain_config
    answered = peek(evm, "eth_chainId", [])
    if not (isinstance(answered, str) and re.fullmatch(r"0x[0-9a-fA-F]+", answered)):
        pytest.skip("eth_chainId gives no hex chain ID to compare with (RPC-ETH-001 decides its form)")
    if not isinstance(config.get("chainId"), int) or isinstance(config.get("chainId"), bool):
        pytest.skip("the chain config carries no integer chainId (RPC-EVM-008 decides its form)")
    check(config["chainId"] == int(answered, 16), "RPC-EVM-038",
          "eth_getChainConfig gives the config of another chain than the one answering at this path",
          expected=f"chainId {int(answered, 16)} (eth_chainId {answered} at the same path)",
          received=f"chainId {config['chainId']}", exchange=exchange)


@pytest.mark.rule("RPC-EVM-030")
@pytest.mark.parametrize("method", ["eth_chainId", "eth_blockNumber"])
def test_standard_methods_are_recorded(evm: JsonRpcClient, method: str, observe: Callable[[str, Any], None]) -> None:
    """Standard Ethereum methods answer; their results are recorded, not decided."""
    exchange = evm.call(method, [])
    body = exchange.json() if exchange.is_json() else None
    observe("RPC-EVM-030", {"method": method, "answer": body.get("result", body.get("error"))
                            if isinstance(body, dict) else exchange.text(100)})
