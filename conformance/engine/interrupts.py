"""A run that is stopped keeps what it decided: Ctrl-C and SIGTERM (what a CI runner or Kubernetes sends on cancel or
timeout) cut off the requests on the wire and stop the run after the tests in flight, as pytest stops after a test
with --exitfirst; the reports are written at once with every rule decided so far. A second Ctrl-C or SIGTERM stops
the process at once, without reports.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from types import FrameType
from typing import Any
from collections.abc import Callable

from conformance.errors import EXIT_INCOMPLETE

SIGNALS: dict[int, str] = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "stopped (SIGTERM)"}


class Stopping:
    """The run's stop: why it stopped, and what to do first (cut off the requests on the wire)."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self._callbacks: list[Callable[[str], None]] = []
        self._previous: dict[int, Any] = {}

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
        """Handles SIGINT and SIGTERM for the run (in the main thread only: Python delivers signals there)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for number in SIGNALS:
            self._previous[number] = signal.getsignal(number)
            signal.signal(number, self._handle)

    def uninstall(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.reason is not None and number in SIGNALS:
            # the second signal: stop at once, with the run's helper processes
            for child in multiprocessing.active_children():
                child.kill()
            os._exit(EXIT_INCOMPLETE)
        # No KeyboardInterrupt: raised wherever the main thread stands (a garbage collector's callback among them)
        # it may be swallowed; the stop ends the requests, and the session stops after the tests in flight.
        self.stop(SIGNALS.get(number, f"signal {number}"))
