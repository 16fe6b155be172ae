"""The run's memory bound (`--max-memory`): what the run keeps stays under it whatever the target sends.

Each answer's body is capped as it is read; a large one is read while few others are (the client's slots of large
answers) and kept, once parsed, as its head and tail with its size and digest, every long text of its parsed value
shortened the same way. What the run reads once and keeps for later tests (pages, walks, series) is counted as it
is kept, by what its answers weigh, and let go of, least recently used first, whenever that count passes most of
the bound (a test that needs it again asks the target again). The count, not the process's resident memory, is
what the run steers by: resident memory does not fall when Python frees memory, and a run steering by it would let
go of everything for the rest of the run. A run whose resident memory still passed the bound says so.
"""
from __future__ import annotations

import ctypes
import functools
import os
import resource
import threading
from typing import Any

#: The share of the bound past which the run lets go of what it keeps.
PRESSED_AT = 0.6
#: More than a run's process holds as it starts (the interpreter and the suite's modules).
FRESH_PROCESS = 256 * 2**20


#: glibc's mallopt parameters, and the size from which a block is its own mapping, handed back when freed.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_OWN_MAPPING_FROM = 2**20


@functools.cache
def hand_back_large_blocks() -> bool:
    """Makes every block of a megabyte or more (an answer's body, its text, its parsed strings) a mapping of its own,
    returned to the system when freed (glibc; elsewhere nothing changes). By default glibc raises that threshold
    once a large block is freed and serves the next ones from its heap, which threads holding other answers keep
    fragmented: resident memory then grows with how many answers are in flight at once (a loaded machine) rather
    than with what the run holds (measured: a peak 50 % higher under load, the same with this)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    own_mapping = mallopt(_M_MMAP_THRESHOLD, _OWN_MAPPING_FROM)
    return bool(own_mapping) and bool(mallopt(_M_TRIM_THRESHOLD, 4 * _OWN_MAPPING_FROM))


def resident_bytes() -> int:
    """The process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return peak_bytes()


def peak_bytes() -> int:
    """The peak resident memory of the process's program so far (Linux: its high-water mark since it started;
    the resource usage's maximum would also count the process it was forked from, before it ran this program)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class MemoryBound:
    """The bound, what the run keeps, and what it did to stay under the bound."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.evicted = 0          # values the run let go of
        self.kept = 0             # bytes the run's cache holds, as counted
        self.most_kept = 0
        # A run inside a process that held more before it (a self-test's) is charged only with what it adds.
        self._peak_before = peak_bytes()
        self._held_before = max(0, resident_bytes() - FRESH_PROCESS)
        self._lock = threading.Lock()

    def pressed(self) -> bool:
        return self.kept > PRESSED_AT * self.max_bytes

    def keep(self, size: int) -> None:
        with self._lock:
            self.kept += size
            self.most_kept = max(self.most_kept, self.kept)

    def let_go(self, size: int = 0) -> None:
        with self._lock:
            self.evicted += 1
            self.kept -= size

    def exceeded(self) -> str | None:
        """Why the run did not stay under the bound, when its resident memory passed it."""
        peak = peak_bytes()
        if peak <= self._peak_before or peak - self._held_before <= self.max_bytes:
            return None
        return (f"the run's memory reached {peak // 2**20} MB, above --max-memory {self.max_bytes // 2**20} MB: what "
                f"it decided stands, but the bound did not hold")


def kept_size(value: Any, depth: int = 6, seen: set[int] | None = None) -> int:
    """About what keeping `value` costs: the answers inside it (anything with `kept_bytes`), found through lists,
    tuples, dicts and the fields of objects, each counted once."""
    seen = set() if seen is None else seen
    if depth < 0 or id(value) in seen:
        return 0
    seen.add(id(value))
    weigh = getattr(value, "kept_bytes", None)
    if callable(weigh):
        return int(weigh())
    if isinstance(value, (list, tuple, set)):
        return sum(kept_size(member, depth - 1, seen) for member in value)
    if isinstance(value, dict):
        return sum(kept_size(member, depth - 1, seen) for member in value.values())
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict):
        return sum(kept_size(member, depth - 1, seen) for member in fields.values())
    return 0
