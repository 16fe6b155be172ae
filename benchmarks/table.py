"""One row of the benchmark table, and the markdown table they make together."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from collections.abc import Sequence

COLUMNS = ("figure", "wall s", "requests", "suite / bare loop", "value")


@dataclass(frozen=True)
class Row:
    """A measured figure; the suite runs fill wall, requests and ratio, the others only value."""

    figure: str
    wall: str = ""
    requests: str = ""
    ratio: str = ""
    value: str = ""

    def cells(self) -> tuple[str, ...]:
        return self.figure, self.wall, self.requests, self.ratio, self.value


def markdown(rows: Sequence[Row]) -> str:
    """A markdown table whose columns line up in a terminal as well; numbers are right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(COLUMNS, *(row.cells() for row in rows))]
    lines = ["| " + " | ".join(f"{cell:{width}}" for cell, width in zip(COLUMNS, widths)) + " |",
             "|" + "|".join("-" * (width + 1) + (":" if i else "-") for i, width in enumerate(widths)) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell.ljust(width) if not i else cell.rjust(width)
                                       for i, (cell, width) in enumerate(zip(row.cells(), widths))) + " |")
    return "\n".join(lines)


def progress(message: str) -> None:
    """What is being measured now, on stderr, so the table on stdout stays clean for redirection."""
    print(f"bench: {message}", file=sys.stderr, flush=True)


class BenchmarkError(RuntimeError):
    """A measurement could not be taken (the reference did not start, a run could not be parsed)."""
