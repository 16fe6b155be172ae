"""The reference's own shortcuts change nothing it sends: its identifiers and containers are those of the plain
computation."""
from __future__ import annotations

import os
import random

import pytest

from conformance.reference import ids
from conformance.reference.node import world as node_world
from conformance.reference.world import World


def digit_by_digit_base58(data: bytes) -> str:
    value, out = int.from_bytes(data, "big"), ""
    while value:
        value, rem = divmod(value, 58)
        out = ids.B58_ALPHABET[rem] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def test_base58_is_the_digit_by_digit_encoding() -> None:
    draw = random.Random(5)
    samples = [b"", b"\0", b"\0\0\1", b"\xff" * 40, (58 ** 10).to_bytes(8, "big"), (58 ** 10 - 1).to_bytes(8, "big")]
    samples += [b"\0" * draw.randrange(3) + os.urandom(draw.randrange(41)) for _ in range(500)]
    for data in samples:
        assert ids.base58(data) == digit_by_digit_base58(data), data.hex()


def test_remembered_containers_are_copies_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    index = World(3).node.indexes["index/X/tx"]
    first = index.container(5)
    assert first == index._computed_container(5)
    first["id"] = "rewritten by a fault"
    assert index.container(5) == index._computed_container(5)
    monkeypatch.setattr(node_world, "REMEMBERED_CONTAINERS", 4)
    for i in range(10):
        index.container(i)
    assert len(index._containers) <= 4
