"""Identifiers of the forms the documents' chains use, made up so that they name nothing: a filter's value that
matches no object must still be one a target accepts as well-formed, or its refusal decides nothing.

CB58 (base58 with a four-byte SHA-256 checksum) for blockchain, transaction and node IDs; bech32 (BIP-173, with its
checksum) for primary network addresses, with their chain prefix; 0x hex for EVM addresses and hashes. Each is made
from a digest of the value it stands in for: the same value always gives the same stand-in.
"""
from __future__ import annotations

import hashlib
import re

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_NODE_ID = re.compile(r"^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$")
_BECH32 = re.compile(r"^((?:[PXC]-)?)([a-z]{1,83})1[02-9ac-hj-np-z]{6,}$")
_CB58 = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,60}$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")


def base58(data: bytes) -> str:
    value = int.from_bytes(data, "big")
    digits = ""
    while value:
        value, digit = divmod(value, 58)
        digits = B58[digit] + digits
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + digits


def cb58(data: bytes) -> str:
    return base58(data + hashlib.sha256(data).digest()[-4:])


def _polymod(values: list[int]) -> int:
    generator = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for bit in range(5):
            check ^= generator[bit] if (top >> bit) & 1 else 0
    return check


def bech32(hrp: str, data: bytes) -> str:
    """`data` as a bech32 string of human-readable part `hrp`, with its checksum (BIP-173)."""
    bits, acc, words = 0, 0, []
    for byte in data:
        acc, bits = acc << 8 | byte, bits + 8
        while bits >= 5:
            bits -= 5
            words.append(acc >> bits & 31)
    if bits:
        words.append(acc << (5 - bits) & 31)
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    mod = _polymod(expanded + words + [0] * 6) ^ 1
    checksum = [mod >> 5 * (5 - i) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32[w] for w in words + checksum)


def unmatched(value: str) -> str:
    """A value of the same form as `value` that names nothing; a form this module does not know is turned back to
    front (or marked, when it reads the same backwards)."""
    seed = hashlib.sha256(b"names nothing\x1f" + value.encode()).digest()
    if _NODE_ID.match(value):
        return "NodeID-" + cb58(seed[:20])
    if (found := _BECH32.match(value)) is not None:
        return found.group(1) + bech32(found.group(2), seed[:20])
    if _HEX.match(value):
        digits = len(value) - 2
        return "0x" + (seed * (digits // 64 + 1)).hex()[:digits]
    if _CB58.match(value):
        return cb58(seed)
    for sep in ("-",):
        head, found_sep, tail = value.partition(sep)
        if found_sep and len(tail) > 5 and tail != tail[::-1]:
            return head + found_sep + tail[::-1]
    return value[::-1] if len(value) > 5 and value != value[::-1] else f"zz{value[::-1]}zz"
