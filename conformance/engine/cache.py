"""What a run reads once: a value computed the first time a test asks for it, and handed to every later asker.

One API for every cache of the run, keyed by its caller: `once(compute, *key)` is the value of `compute()` for
the place in the code that wrote `compute` (its module, function and line) and `key`, so two caches never share
an entry by accident of a free-form name. Tests that run at once and ask together wait for one computation
(single flight); a computation that raises stores nothing, so the next caller tries again, as it would in a
sequential run. Test code reaches it through the `once` fixture (conformance.plugin), never by importing it.
"""
from __future__ import annotations

import contextlib
import contextvars
import threading
from collections import OrderedDict
from typing import Any, TypeVar
from collections.abc import Callable, Hashable, Iterator

from conformance.engine.memory import MemoryBound, kept_size
from conformance.errors import SuiteError

T = TypeVar("T")
#: Values computed afresh for one observation (a test run again to see whether a deviation shows again), in place
#: of the run's: nothing the run read before is reused inside it.
_FRESH: contextvars.ContextVar[dict[Hashable, Any] | None] = contextvars.ContextVar("conformance_fresh", default=None)


def site(compute: Callable[..., Any]) -> tuple[str, str, int]:
    """Where `compute` was written: a lambda or a nested function is known by its place in the code."""
    code = getattr(compute, "__code__", None)
    line = code.co_firstlineno if code is not None else 0
    return getattr(compute, "__module__", "?"), getattr(compute, "__qualname__", repr(compute)), line


class RunCache:
    """Values computed once per run, however many threads ask at the same time; under memory pressure (`memory`),
    the least recently used are let go of, and computed again if asked for again."""

    def __init__(self, memory: MemoryBound | None = None) -> None:
        self.values: OrderedDict[Hashable, Any] = OrderedDict()
        self.sizes: dict[Hashable, int] = {}
        self.memory = memory
        self._locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def __call__(self, compute: Callable[[], T], *key: Hashable) -> T:
        full = (site(compute), key)
        fresh = _FRESH.get()
        if fresh is not None:
            if full not in fresh:
                fresh[full] = compute()
            return fresh[full]  # values keep the type their compute gave
        try:
            value = self.values[full]
        except KeyError:
            pass
        except TypeError:
            raise SuiteError(f"a run-wide cache at {':'.join(map(str, site(compute)))} was given a key that cannot "
                             f"be one: {key!r}") from None
        else:
            with self._lock:
                if full in self.values:
                    self.values.move_to_end(full)
            return value  # values keep the type their compute gave
        with self._lock:
            lock = self._locks.setdefault(full, threading.Lock())
        with lock:
            if full in self.values:
                return self.values[full]
            value = self.values[full] = compute()
            if self.memory is not None:
                size = self.sizes[full] = kept_size(value)
                self.memory.keep(size)
        self._relieve(keep=full)
        return value

    @contextlib.contextmanager
    def fresh(self) -> Iterator[dict[Hashable, Any]]:
        """Inside the block (this thread and what it starts), every value is computed again, once, and not stored
        in the run's cache: an observation made afresh. `refresh` may then put what it saw in place of the run's."""
        values: dict[Hashable, Any] = {}
        token = _FRESH.set(values)
        try:
            yield values
        finally:
            _FRESH.reset(token)

    def refresh(self, values: dict[Hashable, Any]) -> None:
        """Puts values computed afresh in place of the run's: a later test reads what the latest observation saw,
        not an odd answer it disproved."""
        with self._lock:
            for full, value in values.items():
                if full in self.values:
                    self.values[full] = value
                    if self.memory is not None:
                        size = kept_size(value)
                        self.memory.keep(size - self.sizes.get(full, 0))
                        self.sizes[full] = size

    def _relieve(self, keep: Hashable) -> None:
        """Lets go of the least recently used values while the process presses on the memory bound."""
        if self.memory is None:
            return
        while self.memory.pressed():
            with self._lock:
                oldest = next((key for key in self.values if key != keep), None)
                if oldest is None:
                    return
                del self.values[oldest]
                size = self.sizes.pop(oldest, 0)
            self.memory.let_go(size)
