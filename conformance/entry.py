"""The `conformance` command's entry point: signals are kept from the first line, then the command is imported."""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from conformance import signals


def main(argv: Sequence[str] | None = None) -> int:
    signals.defer()
    from conformance.cli import main as command   # the heavy imports, with the signals kept
    try:
        code = command(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader of the output went away (`| head`): what it did not read is dropped, without a traceback, and
        # Python's own flush at exit is pointed elsewhere so that it does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    # The command is done: the process ends here with its code. The interpreter's own shutdown (freeing a large
    # heap, after it has put the signals back to their defaults) would take seconds in which a second Ctrl-C kills
    # the process by the signal, losing the code a CI runner reads.
    signals.ended(code)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
