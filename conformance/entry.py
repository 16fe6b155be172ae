"""The `conformance` command's entry point: signals are kept from the first line, then the command is imported."""
from __future__ import annotations

from collections.abc import Sequence

from conformance import signals


def main(argv: Sequence[str] | None = None) -> int:
    signals.defer()
    from conformance.cli import main as command   # the heavy imports, with the signals kept
    return command(argv)
