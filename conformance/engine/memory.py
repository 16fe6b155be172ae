"""The run's memory bound (`--max-memory`): what the run keeps stays under it whatever the target sends.

Each answer's body is capped as it is read, and a large one is kept, once parsed, as its head and tail with its
size and digest. What the run reads once and keeps for later tests (pages, walks) is let go of, least recently
used first, whenever the process's resident memory passes most of the bound (a test that needs it again asks
the target again); and while it stays there, one test at a time runs.
"""
from __future__ import annotations

import os
import resource
import threading

#: The share of the bound past which the run lets go of what it keeps.
PRESSED_AT = 0.6


def resident_bytes() -> int:
    """The process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return peak_bytes()


def peak_bytes() -> int:
    """The process's peak resident memory so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class MemoryBound:
    """The bound, and what the run did to stay under it."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.evicted = 0          # values the run let go of
        self._lock = threading.Lock()

    def pressed(self) -> bool:
        return resident_bytes() > PRESSED_AT * self.max_bytes

    def let_go(self) -> None:
        with self._lock:
            self.evicted += 1
