"""Admin API checks: logger levels, chain aliases, VM load results and empty-object answers."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.checks import check, independently
from conformance.checks.envelope import result_of
from conformance.checks.shapes import assert_shape, component
from conformance.clients.http import Exchange
from conformance.clients.jsonrpc import JsonRpcClient

#: The level values the document shows; other values are only recorded (RPC-ADM-014).
SAMPLE_LEVELS = ("DEBUG", "INFO")


def empty_object(exchange: Exchange, rule_id: str, method: str) -> None:
    """The result of `method` is the document's {} (an object; extra members are not held against it).

    A refused call stops the test: nothing it was to do happened. A call that succeeded with another result did
    what it was asked, so the test goes on to judge its effects under their own rules.
    """
    result = result_of(exchange, rule_id, method)
    with independently():
        check(isinstance(result, dict), rule_id, f"{method} does not return an object", expected="{}",
              received=result, exchange=exchange)


def logger_levels(admin: JsonRpcClient, rule_id: str, logger: str | None = None) -> dict[str, dict[str, Any]]:
    """loggerLevels of admin.getLoggerLevel (of one logger when `logger` is given), in the documented shape."""
    exchange = admin.call("admin.getLoggerLevel", {} if logger is None else {"loggerName": logger})
    result = result_of(exchange, rule_id, "admin.getLoggerLevel")
    assert_shape("RPC-ADM-011", result, component("admin", "LoggerLevels"), api="admin",
                 what="admin.getLoggerLevel result", exchange=exchange)
    return result["loggerLevels"]


def other_level(level: str) -> str:
    """A documented sample level different from `level`."""
    return SAMPLE_LEVELS[1] if level == SAMPLE_LEVELS[0] else SAMPLE_LEVELS[0]


def chain_aliases(admin: JsonRpcClient, chain: str, rule_id: str) -> list[str]:
    exchange = admin.call("admin.getChainAliases", {"chain": chain})
    result = result_of(exchange, rule_id, "admin.getChainAliases")
    assert_shape("RPC-ADM-009", result, component("admin", "ChainAliases"), api="admin",
                 what="admin.getChainAliases result", exchange=exchange)
    return result["aliases"]


@dataclass(frozen=True)
class ChainFacts:
    """What tells one chain from another through its path: the chain ID and the genesis block's hash (None where
    the path gave none)."""

    chain_id: Any
    genesis: Any


def chain_facts(client: JsonRpcClient) -> ChainFacts:
    """The chain a path serves, read without deciding anything (the blockchain ID's own path is the reference)."""
    from conformance.checks.eth import peek

    genesis = peek(client, "eth_getBlockByNumber", ["0x0", False])
    return ChainFacts(peek(client, "eth_chainId", []), genesis.get("hash") if isinstance(genesis, dict) else None)


def answers_for_chain(client: JsonRpcClient, chain: ChainFacts, rule_id: str, where: str) -> None:
    """An aliased or original path serves the chain: it answers eth_chainId, and its chain ID and genesis block are
    the ones the blockchain ID's own path gave (where that gave none, that it answers is all that can be asked)."""
    exchange = client.call("eth_chainId", [])
    result = result_of(exchange, rule_id, f"eth_chainId at {where}", served=True)
    check(chain.chain_id is None or result == chain.chain_id, rule_id, f"{where} answers for another chain",
          expected=f"eth_chainId {chain.chain_id}, as at the blockchain ID's own path", received=result,
          exchange=exchange)
    if chain.genesis is None:
        return
    exchange = client.call("eth_getBlockByNumber", ["0x0", False])
    body = exchange.json() if exchange.is_json() else None
    found = body.get("result") if isinstance(body, dict) else None
    genesis = found.get("hash") if isinstance(found, dict) else None
    check(genesis == chain.genesis, rule_id, f"{where} answers for another chain",
          expected=f"genesis block {chain.genesis}, as at the blockchain ID's own path", received=f"genesis {genesis}",
          exchange=exchange)


def validator_ids(exchange: Exchange) -> list[str] | None:
    """The node IDs a validators.getCurrentValidators answer lists, sorted; None when it lists none (an error, a
    path that does not answer)."""
    body = exchange.json() if exchange.is_json() else None
    result = body.get("result") if isinstance(body, dict) else None
    listed = result.get("validators") if isinstance(result, dict) else None
    if not isinstance(listed, list):
        return None
    return sorted(v["nodeID"] for v in listed if isinstance(v, dict) and isinstance(v.get("nodeID"), str))


def answers_validators_alike(alias: JsonRpcClient, original: JsonRpcClient, rule_id: str, where: str) -> None:
    """A chain alias serves the chain's validators API too: the validators there are those of the blockchain ID's
    own path, read before and after (the set may change meanwhile). Nothing is asked where the ID's own path lists
    none: the alias can only be held to what the ID serves."""
    before = validator_ids(original.call("validators.getCurrentValidators", {}))
    if before is None:
        return
    exchange = alias.call("validators.getCurrentValidators", {})
    found = validator_ids(exchange)
    after = validator_ids(original.call("validators.getCurrentValidators", {}))
    check(found in (before, after), rule_id, f"{where} does not answer as the blockchain ID's validators path",
          expected=f"the {len(before)} validators the blockchain ID's path lists",
          received=f"{len(found)} validators, {len(set(found) ^ set(before))} of them not the same" if found
          is not None else f"HTTP {exchange.status}: {exchange.text(200)}", exchange=exchange)


def is_blockchain_id(text: str) -> bool:
    """Whether `text` is a CB58 blockchain ID (32 bytes and a checksum), not an alias."""
    import hashlib

    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    if not text or any(char not in alphabet for char in text):
        return False
    value = 0
    for char in text:
        value = value * 58 + alphabet.index(char)
    raw = b"\0" * (len(text) - len(text.lstrip("1"))) + value.to_bytes((value.bit_length() + 7) // 8, "big")
    return len(raw) == 36 and hashlib.sha256(raw[:32]).digest()[-4:] == raw[32:]
