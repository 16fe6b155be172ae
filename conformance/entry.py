"""The `conformance` command's entry point: signals are kept from the first line, then the command is imported."""
from __future__ import annotations

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
    return code
