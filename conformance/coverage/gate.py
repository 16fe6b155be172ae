"""`--min-coverage`: coverage below the minimum, in any dimension of a tested API, fails the gate."""
from __future__ import annotations

from typing import Any

from conformance.coverage.items import REPORTED as DIMENSIONS


def below(coverage: dict[str, Any], minimum: float) -> list[tuple[str, str, float]]:
    """(api, dimension, percent) of every dimension under `minimum`; a dimension with no item is never under."""
    return [(api, dimension, data[dimension]["percent"]) for api, data in coverage.items()
            for dimension in DIMENSIONS if dimension in data   # a report of an older suite lacks the newer ones
            if data[dimension]["percent"] is not None and data[dimension]["percent"] < minimum]


def gate_line(coverage: dict[str, Any], minimum: float | None) -> str | None:
    """One line naming each dimension under the minimum, or None when none is (or no minimum is set)."""
    if minimum is None:
        return None
    low = below(coverage, minimum)
    if not low:
        return None
    return (f"coverage below --min-coverage {minimum:g}%: "
            + ", ".join(f"{api} {dimension} {percent:g}%" for api, dimension, percent in low))
