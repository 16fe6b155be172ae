"""The signals that stop the command, handled here and nowhere else: Ctrl-C (SIGINT) and SIGTERM, what a CI runner
or Kubernetes sends on cancel or timeout. Python delivers signals to the main thread only, so each handler is
installed from there, for one phase of the command:

- **starting** (`defer`, `restore`): the imports take a second or more on a busy machine; a signal there is kept
  rather than raised in the middle of an import (a traceback and no report), and the command looks at it once it
  can write its reports;
- **setting up a run** (`raising`): a signal raises KeyboardInterrupt, so that a run stopped while it starts its
  target still writes a report saying so;
- **running** (`Stopping`): the requests on the wire are cut off and the run stops after the tests in flight, as
  pytest stops after a test with --exitfirst; the reports are written at once with every rule decided so far;
- **a fleet waiting for its runs** (`forwarding`): each signal is passed on to every run, which stops as above;
- **ending** (`ending`): the exit code is settled; a signal ends the process at once with it, saying whether the
  reports were written.

In every phase, a second signal stops the process at once, without reports.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from types import FrameType
from typing import Any
from collections.abc import Callable, Iterator

from conformance.errors import EXIT_INCOMPLETE

#: The signals that stop the command, and what the reports say of a run one of them stopped.
STOPS: dict[int, str] = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "stopped (SIGTERM)"}
_kept: list[int] = []


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


SECOND_SIGNAL = b"conformance: stopped at once by a second signal: no report of this run was written\n"


def _exit_at_once(said: bytes = SECOND_SIGNAL, code: int = EXIT_INCOMPLETE) -> None:
    """A second signal: the process ends now, saying so in one line (by default, that it wrote no report: what the
    report folder holds, if anything, is an earlier run's)."""
    with contextlib.suppress(OSError):
        os.write(2, said)
    os._exit(code)


def _keep(number: int, frame: FrameType | None) -> None:
    if _kept:
        _exit_at_once()   # a second signal stops at once, as it does later in a run
    _kept.append(number)


def defer() -> None:
    """Keeps SIGINT and SIGTERM until `restore`."""
    for number in STOPS:
        signal.signal(number, _keep)


def restore() -> int | None:
    """Python's own handling again; returns the signal kept meanwhile, if any."""
    if not _in_main_thread():
        return None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return _kept[0] if _kept else None


@contextlib.contextmanager
def handled(handler: Callable[[int, FrameType | None], Any]) -> Iterator[None]:
    """`handler` for SIGINT and SIGTERM within the block (from the main thread; elsewhere nothing changes), the
    previous handlers after it."""
    previous = {number: signal.signal(number, handler) for number in STOPS} if _in_main_thread() else {}
    try:
        yield
    finally:
        for number, before in previous.items():
            signal.signal(number, before)


def _raise_interrupt(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def raising() -> contextlib.AbstractContextManager[None]:
    """SIGTERM raises KeyboardInterrupt within the block, as Ctrl-C does."""
    return handled(_raise_interrupt)


_ending: list[bytes] = []   # what a signal while the command ends says: whether its reports were written


def ending(code: int, reported: bool) -> contextlib.AbstractContextManager[None]:
    """The run is over and its exit code settled: within the block a signal ends the process at once with that
    code, saying in one line whether the run's reports were written (never a traceback)."""
    said = (b"conformance: stopped at once while ending: the run's reports are written\n" if reported
            else SECOND_SIGNAL)
    _ending[:] = [said]
    return handled(lambda number, frame: _exit_at_once(said, code))


def ended(code: int) -> None:
    """The command returned `code`: a signal while the interpreter shuts down ends the process at once with it,
    never a death by the signal itself."""
    if _in_main_thread():
        # what the run's `ending` said, read once: a later command in this process (a self-test) says its own
        said = _ending.pop() if _ending else b"conformance: stopped at once while ending\n"
        for number in STOPS:
            signal.signal(number, lambda n, frame: _exit_at_once(said, code))


def forwarding(to: Callable[[int], None]) -> contextlib.AbstractContextManager[None]:
    """Each SIGINT and SIGTERM within the block is passed to `to`, with its number."""
    return handled(lambda number, frame: to(number))


class Stopping:
    """The run's stop: why it stopped, and what to do first (cut off the requests on the wire)."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.reported = False   # the run's reports are written: a second signal then loses nothing
        self._callbacks: list[Callable[[str], None]] = []
        self._handling: contextlib.ExitStack | None = None

    def on_stop(self, callback: Callable[[str], None]) -> None:
        self._callbacks.append(callback)
        if self.reason is not None:
            callback(self.reason)

    def stop(self, reason: str) -> None:
        """Stops the run for `reason` (the first reason is the one reported)."""
        if self.reason is None:
            self.reason = reason
        for callback in list(self._callbacks):
            callback(self.reason)

    def install(self) -> None:
        """Handles SIGINT and SIGTERM for the run, until `uninstall`."""
        self._handling = contextlib.ExitStack()
        self._handling.enter_context(handled(self._handle))

    def uninstall(self) -> None:
        if self._handling is not None:
            self._handling.close()
            self._handling = None

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.reason is not None:
            # the second signal: stop at once, with any process the run started
            for child in multiprocessing.active_children():
                child.kill()
            _exit_at_once(b"conformance: stopped at once by a second signal, after the reports were written\n"
                          if self.reported else SECOND_SIGNAL)
        # No KeyboardInterrupt: raised wherever the main thread stands (a garbage collector's callback among them)
        # it may be swallowed; the stop ends the requests, and the session stops after the tests in flight.
        self.stop(STOPS.get(number, f"signal {number}"))
