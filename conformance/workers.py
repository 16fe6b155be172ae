"""Parallel workers (pytest-xdist) share the run instead of each repeating it.

The process that starts the workers makes one folder for the run and hands its path to each of them. In it the
workers keep the run's rate schedule and request count (conformance.clients.shared_limits), so `--rate-limit` and
`--max-requests` hold for the run as a whole, and the answers the suite reads once per run (`Once.shared`: shared
pages, walks, probes), so that a request one worker sent is not sent again by another.
"""
from __future__ import annotations

import hashlib
import pickle
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Hashable, TypeVar

import pytest

from conformance.clients.shared_limits import AVAILABLE, SharedLimits

T = TypeVar("T")
#: workerinput key of the run's folder.
WIRE_KEY = "conformance_run_folder"
PLUGIN_NAME = "conformance-workers"


class RunFolder:
    """In the process that starts pytest-xdist workers: the run's folder, handed to each worker, removed at the end."""

    def __init__(self) -> None:
        self.path: Path | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix="conformance-run-"))
        node.workerinput[WIRE_KEY] = str(self.path)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)


def install(config: pytest.Config) -> None:
    """Gives a run that may start pytest-xdist workers a folder they share (where files can be locked)."""
    if AVAILABLE and not hasattr(config, "workerinput") and config.pluginmanager.has_plugin("xdist"):
        config.pluginmanager.register(RunFolder(), PLUGIN_NAME)
    folder = run_folder(config)
    _SHARED.folder = folder / "once" if folder is not None else None


def run_folder(config: pytest.Config) -> Path | None:
    """The folder the processes of this run share: in a worker whose controller made one, else None."""
    folder = getattr(config, "workerinput", {}).get(WIRE_KEY)
    return Path(folder) if folder and AVAILABLE else None


def shared_limits(config: pytest.Config) -> SharedLimits | None:
    """The run's rate schedule and request count, in a worker whose controller shares them."""
    folder = run_folder(config)
    return SharedLimits(folder / "limits") if folder is not None else None


class _Shared:
    folder: Path | None = None


_SHARED = _Shared()


def computed_once_per_run(namespace: str, key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()`, or what another worker of the run computed for the same namespace and key (any picklable
    value); in a process without workers, `compute()`."""
    folder = _SHARED.folder
    if folder is None:
        return compute()
    import fcntl

    folder.mkdir(exist_ok=True)
    digest = hashlib.sha256(pickle.dumps((namespace, key))).hexdigest()[:32]
    stored = folder / f"{digest}.pickle"
    with _thread_lock(digest), open(folder / f"{digest}.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # the others wait for the one worker that sends it
        try:
            if stored.exists():
                return pickle.loads(stored.read_bytes())
            value = compute()
            try:
                data = pickle.dumps(value)
            except (pickle.PicklingError, TypeError, AttributeError):
                return value   # not a value that travels: this worker keeps it to itself
            partial = stored.with_suffix(".partial")
            partial.write_bytes(data)
            partial.replace(stored)
            return value
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_LOCK = threading.Lock()


def _thread_lock(digest: str) -> threading.Lock:
    """A lock per key for the threads of this process (the file lock is this process's, shared by its threads)."""
    with _THREAD_LOCKS_LOCK:
        return _THREAD_LOCKS.setdefault(digest, threading.Lock())
