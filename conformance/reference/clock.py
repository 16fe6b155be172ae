"""The reference's simulated time: the date every world starts from, and the clock a live world advances."""
from __future__ import annotations

#: 2026-05-04T00:00:00Z, a Monday: every interval's alignment is easy to reason about in tests of the reference.
BASE_TIME = 1777852800


class Clock:
    """Simulated UNIX time: frozen unless the world advances."""

    def __init__(self, start: float) -> None:
        self.start = start
        self.now = start

    def tick(self, seconds: float) -> None:
        self.now += seconds
