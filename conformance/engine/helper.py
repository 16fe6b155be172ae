"""Cases drawn ahead: a helper process on another core draws the cases of generated tests while the run sends its
requests.

Drawing a case costs more processor time than the request it becomes (a negative Data API case, several times
more); on one core the run waits for every draw. Once the tests are collected, a helper process forked from the
run draws, in the order of the tests, the cases of every generated test whose sources need nothing the run learns
later (a test whose sources are made from a discovered value draws, or reads, its cases itself), and hands them
back pickled (a generated request as the request it becomes, a `WireCase`). A test takes its cases from the helper
or, when the helper did not draw them, draws them itself: the cases are the same either way, under the same seed.

The helper runs only where it helps and is safe: on Linux, forked once the tests are collected while no thread of
the run but the request watchdog exists (an embedded reference target serving from the run's process keeps it
off), with more than one usable core, when the run asks for it (`--draw-ahead`, the default). It ends with the run,
however the run ends; a helper that stalls is given up on once, after `WAIT_SECONDS`.

Cases drawn are kept on disk (conformance.engine.store), so the helper draws only the tests no run drew before:
tests whose cases are kept read them themselves, and a fleet's runs, started together, split the drawing between
their helpers through the store's claims.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import threading
import time
import warnings
from typing import Any
from collections.abc import Mapping

import pytest

from conformance import signals
from conformance.engine.cases import draw, kept_as, sources_at_collection
from conformance.engine.store import CaseStore
from conformance.profiles import Profile

PLUGIN_NAME = "conformance-draw-ahead"
#: How long a test waits for the helper to reach it before the run gives up on the helper.
WAIT_SECONDS = 120.0


class DrawAhead:
    """In the run's process: starts the helper once the tests are collected, receives its cases and hands them
    to the tests."""

    def __init__(self, profile: Profile, store: CaseStore | None = None, seed: int = 0) -> None:
        self.profile = profile
        self.store = store
        self.seed = seed
        self._drawn: dict[str, bytes | None] = {}
        self._expected: set[str] = set()
        self._ended = False
        self._lock = threading.Condition()
        self._process: Any = None
        self._reader: threading.Thread | None = None
        self.taken = 0   # tests that took the helper's cases

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Tests whose cases are kept read them themselves: the helper draws only what no run has drawn yet.
        plans = [(item.nodeid, sources) for item in session.items
                 if (sources := sources_at_collection(item, self.profile)) is not None
                 and not (self.store is not None and self.store.has(kept_as(item.nodeid)))]
        if not plans or not _fork_safe():
            return
        context = multiprocessing.get_context("fork")
        receiving, sending = context.Pipe(duplex=False)
        self._process = context.Process(target=_draw_all, args=(plans, self.profile, self.store, self.seed, sending),
                                        name=PLUGIN_NAME, daemon=True)
        try:
            with warnings.catch_warnings():
                # Python 3.12 warns of any fork beside other threads; `_fork_safe` allowed only the watchdog's
                warnings.simplefilter("ignore", DeprecationWarning)
                self._process.start()
        except OSError:    # no process to spare: every test draws its own cases
            self._process = None
            return
        finally:
            sending.close()
        self._expected = {key for key, _ in plans}
        self._reader = threading.Thread(target=self._receive, args=(receiving,), name=PLUGIN_NAME, daemon=True)
        self._reader.start()

    def _receive(self, receiving: Any) -> None:
        try:
            while True:
                key, payload = pickle.loads(receiving.recv_bytes())
                with self._lock:
                    self._drawn[key] = payload
                    self._lock.notify_all()
        except (EOFError, OSError, pickle.UnpicklingError):
            pass
        finally:
            receiving.close()
            with self._lock:
                self._ended = True
                self._lock.notify_all()

    def take(self, key: str) -> list[dict[str, Any]] | None:
        """The cases the helper drew for test `key`, once it has; None when it did not draw them."""
        if key not in self._expected:
            return None
        with self._lock:
            if not self._lock.wait_for(lambda: key in self._drawn or self._ended, timeout=WAIT_SECONDS):
                self._ended = True   # a helper that stalls is given up on: the later tests do not wait for it
            payload = self._drawn.pop(key, None)
        if payload is None:
            return None
        try:
            cases: list[dict[str, Any]] = pickle.loads(payload)
        except Exception:
            return None
        with self._lock:
            self.taken += 1
        return cases

    def stop(self) -> None:
        """Ends the helper (the run is over, or stopping)."""
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join(timeout=5)
            if self._process.is_alive():
                self._process.kill()
        if self._reader is not None:
            self._reader.join(timeout=5)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.stop()


def _fork_safe() -> bool:
    """Whether this process may fork: the child keeps only this thread, and a lock another thread holds stays held
    in it. The only other thread allowed is the HTTP client's deadline watchdog, which the child never uses."""
    from conformance.clients.deadline import is_watchdog

    return all(thread is threading.current_thread() or is_watchdog(thread) for thread in threading.enumerate())


def _draw_all(plans: list[tuple[str, Mapping[str, Any]]], profile: Profile, store: CaseStore | None, seed: int,
              sending: Any) -> None:
    """In the helper: reads or draws each test's cases in turn (keeping what it draws) and sends them, as each is
    ready; a test another run claimed is read once that run has kept it. A test whose cases cannot be drawn, or do
    not read back, is sent as None: it draws them itself, and reports what went wrong."""
    signals.ignore_in_helper()
    sources_of = dict(plans)
    waiting: list[str] = []

    def send(key: str, cases: list[dict[str, Any]] | None) -> None:
        sending.send_bytes(pickle.dumps((key, pickle.dumps(cases) if cases is not None else None)))

    def ready(key: str) -> bool:
        if store is None:
            send(key, _drawn(sources_of[key], profile, seed))
            return True
        name = kept_as(key)
        kept = store.get(name)
        if kept is None:
            if not store.claim(name):
                return False    # another run is drawing them
            kept = _drawn(sources_of[key], profile, seed)
            if kept is None:
                store.release(name)
            else:
                store.put(name, kept)
        send(key, kept)
        return True

    try:
        for key, _ in plans:
            waiting = [other for other in waiting if not ready(other)]
            if not ready(key):
                waiting.append(key)
        while waiting:
            time.sleep(0.02)
            waiting = [other for other in waiting if not ready(other)]
    except OSError:   # the run ended first
        pass
    finally:
        sending.close()


def _drawn(sources: Mapping[str, Any], profile: Profile, seed: int) -> list[dict[str, Any]] | None:
    try:
        return draw(sources, profile, seed)
    except Exception:
        return None


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def install(config: pytest.Config, wanted: bool, profile: Profile, store: CaseStore | None = None,
            seed: int = 0) -> DrawAhead | None:
    """Registers the helper where the run asks for it and it can help."""
    if wanted and sys.platform.startswith("linux") and usable_cores() > 1:
        ahead = DrawAhead(profile, store, seed)
        config.pluginmanager.register(ahead, PLUGIN_NAME)
        return ahead
    return None
