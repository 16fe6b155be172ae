"""Signals that arrive while the command starts are kept, not raised in the middle of an import: the imports take a
second or more on a busy machine, and a Ctrl-C or SIGTERM there would otherwise end the command with a traceback
and no report. The run looks at what was kept once it can write its reports, and stops then."""
from __future__ import annotations

import os
import signal
import threading
from types import FrameType

from conformance.errors import EXIT_INCOMPLETE

STOPS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []


def _keep(number: int, frame: FrameType | None) -> None:
    if _received:
        os._exit(EXIT_INCOMPLETE)   # a second signal stops at once, as it does later in a run
    _received.append(number)


def defer() -> None:
    """Keeps SIGINT and SIGTERM until `restore` (Python delivers signals to the main thread only)."""
    for number in STOPS:
        signal.signal(number, _keep)


def restore() -> int | None:
    """Python's own handling again; returns the signal kept meanwhile, if any."""
    if threading.current_thread() is not threading.main_thread():
        return None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return _received[0] if _received else None
