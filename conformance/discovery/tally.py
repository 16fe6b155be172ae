"""Counting values met in answers, remembering where each was first read."""
from __future__ import annotations

import re
from collections import Counter

from conformance.discovery.crawl import Answer
from conformance.discovery.record import Discovery

EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
#: A primary network address: an optional chain letter, a human-readable part, "1", and bech32 characters.
BECH32_ADDRESS = re.compile(r"^(?:[PXC]-)?[a-z]{1,83}1[02-9ac-hj-np-z]{6,}$")
#: A CB58 identifier (blockchain, subnet, validation and transaction IDs).
CB58 = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,60}$")
NODE_ID = re.compile(r"^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$")


class Tally:
    """Values with how often each was met and the answer and pointer where it was met first."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.where: dict[str, tuple[Answer, str]] = {}

    def add(self, value: str, answer: Answer, at: str) -> None:
        self.counts[value] += 1
        self.where.setdefault(value, (answer, at))

    def ranked(self, *, without: tuple[str | None, ...] = ()) -> list[str]:
        """The values, most often met first (ties: the one met first)."""
        order = {value: n for n, value in enumerate(self.where)}
        return sorted((v for v in self.counts if v not in without), key=lambda v: (-self.counts[v], order[v]))

    def record(self, out: Discovery, name: str, value: str) -> bool:
        answer, at = self.where[value]
        return out.add(name, value, answer.source, answer.request, at)

    def record_top(self, out: Discovery, name: str, *, without: tuple[str | None, ...] = ()) -> str | None:
        """Records the most frequent value for `name`; returns it (None when there is none)."""
        ranked = self.ranked(without=without)
        if not ranked:
            return None
        self.record(out, name, ranked[0])
        return ranked[0]
