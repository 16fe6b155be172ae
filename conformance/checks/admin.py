"""Admin API checks: logger levels, chain aliases, VM load results and empty-object answers."""
from __future__ import annotations

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


def answers_for_chain(client: JsonRpcClient, chain: Any, rule_id: str, where: str) -> None:
    """An aliased or original path serves the chain: eth_chainId there answers, with `chain`, the chain ID the
    blockchain ID's own path gave (None when it gave none: then that it answers is all that can be asked)."""
    exchange = client.call("eth_chainId", [])
    result = result_of(exchange, rule_id, f"eth_chainId at {where}", served=True)
    check(chain is None or result == chain, rule_id, f"{where} answers for another chain",
          expected=f"eth_chainId {chain}, as at the blockchain ID's own path", received=result, exchange=exchange)


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
