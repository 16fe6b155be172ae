"""Deterministic identifiers in the formats real chains use: CB58 and base58 IDs, NodeIDs, 0x hashes, RFC 3339."""
from __future__ import annotations

import hashlib
from datetime import datetime, UTC
from functools import lru_cache

B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
#: every two-digit base58 string, so that one divmod gives two digits
_B58_PAIRS = tuple(a + b for a in B58_ALPHABET for b in B58_ALPHABET)
#: ten digits a chunk: the chunk fits a machine word, and the big-integer divisions drop tenfold
_B58_CHUNK = 58 ** 10


# Pages, walks and probes ask for the same identifiers over and over; a bounded memo keeps a long-lived
# reference's memory flat while sparing it most of the hashing. Every part is a string or a number.
@lru_cache(maxsize=1 << 17)
def digest(*parts: object) -> bytes:
    """32 bytes derived from `parts`; the same parts always give the same bytes."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()


def number(*parts: object, below: int) -> int:
    """A deterministic integer in [0, below)."""
    return int.from_bytes(digest(*parts)[:8], "big") % below


def base58(data: bytes) -> str:
    value = int.from_bytes(data, "big")
    pieces: list[str] = []
    while value:
        value, chunk = divmod(value, _B58_CHUNK)
        for _ in range(5):
            chunk, pair = divmod(chunk, len(_B58_PAIRS))
            pieces.append(_B58_PAIRS[pair])
    # the top chunk is padded with zero digits ("1"); the leading zero bytes are written as "1" each
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + "".join(reversed(pieces)).lstrip("1")


@lru_cache(maxsize=1 << 16)
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
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
