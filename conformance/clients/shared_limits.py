"""One rate limit and one request budget for all the processes of a run (pytest-xdist workers).

The process that starts the workers makes a folder for the run and hands its path to each of them; in it, a
16-byte file holds the run's next free start time and the requests sent so far. A process reads and writes it
under an exclusive lock (fcntl), so `--rate-limit` and `--max-requests` hold for the run as a whole, whatever the
number of workers. time.monotonic is the machine's clock since boot, the same in every process.
"""
from __future__ import annotations

import contextlib
import os
import struct
import threading
import time
from pathlib import Path
from typing import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the workers share the run's limits out among themselves
    fcntl = None  # type: ignore[assignment]

#: Whether this platform can share the limits (fcntl locks); elsewhere each worker takes its share of them.
AVAILABLE = fcntl is not None
_STATE = struct.Struct("<dq")   # next free start (time.monotonic), requests sent


class SharedLimits:
    """The run's rate schedule and request count, kept in `path` and locked for each change."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        self._threads = threading.Lock()   # a process's threads share its lock on the file: take turns first

    @contextlib.contextmanager
    def _locked(self) -> Iterator[tuple[float, int]]:
        with self._threads:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                data = os.pread(self._fd, _STATE.size, 0)
                yield _STATE.unpack(data) if len(data) == _STATE.size else (0.0, 0)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _write(self, next_start: float, sent: int) -> None:
        os.pwrite(self._fd, _STATE.pack(next_start, sent), 0)

    def reserve(self, interval: float) -> float:
        """The start time of the next request, `interval` after the one before it in any process."""
        with self._locked() as (next_start, sent):
            start = max(time.monotonic(), next_start)
            self._write(start + interval, sent)
        return start

    def take(self, budget: int | None) -> bool:
        """Counts one request; False, counting nothing, when the run has sent `budget` already."""
        with self._locked() as (next_start, sent):
            if budget is not None and sent >= budget:
                return False
            self._write(next_start, sent + 1)
        return True

    @property
    def sent(self) -> int:
        with self._locked() as (_, sent):
            return sent

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
