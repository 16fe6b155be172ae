"""Deterministic identifiers in the formats real chains use: CB58 and base58 IDs, NodeIDs, 0x hashes, RFC 3339."""
from __future__ import annotations

import hashlib
from datetime import datetime, timezone

B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def digest(*parts: object) -> bytes:
    """32 bytes derived from `parts`; the same parts always give the same bytes."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()


def number(*parts: object, below: int) -> int:
    """A deterministic integer in [0, below)."""
    return int.from_bytes(digest(*parts)[:8], "big") % below


def base58(data: bytes) -> str:
    value = int.from_bytes(data, "big")
    out = ""
    while value:
        value, rem = divmod(value, 58)
        out = B58_ALPHABET[rem] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def cb58(data: bytes) -> str:
    """base58 with a 4-byte SHA-256 checksum, the form of chain, transaction and container IDs."""
    return base58(data + hashlib.sha256(data).digest()[-4:])


def cb58_id(*parts: object) -> str:
    return cb58(digest(*parts))


def node_id(*parts: object) -> str:
    return "NodeID-" + cb58(digest("node", *parts)[:20])


def hex_hash(*parts: object) -> str:
    return "0x" + digest(*parts).hex()


def evm_address(*parts: object) -> str:
    return "0x" + digest("address", *parts)[:20].hex()


def rfc3339(seconds: float) -> str:
    """UTC time with microseconds and a Z, as the Index API writes acceptance times."""
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
