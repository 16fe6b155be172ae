"""What a variant is, and the catalogue that the modules defining variants register them into."""
from __future__ import annotations

from typing import ClassVar

from conformance.reference.middleware import Fault

VARIANTS: dict[str, type[Variant]] = {}


class Variant(Fault):
    """An answer the documents allow; subclasses set `reads` and `allowed_by` and override one hook."""

    #: Rule IDs whose tests see what the variant changes: they must still pass.
    reads: ClassVar[tuple[str, ...]] = ()
    #: Why the documents allow it: the words that leave it open, or the silence.
    allowed_by: ClassVar[str] = ""
    #: Identifiers the run is given (--sample NAME=VALUE) so that its tests meet the variant.
    samples: ClassVar[dict[str, str]] = {}


def variant(cls: type[Variant]) -> type[Variant]:
    """Class decorator: adds a variant under its class name."""
    if cls.__name__ in VARIANTS:
        raise ValueError(f"variant {cls.__name__} is registered twice")
    if not cls.reads or not cls.allowed_by:
        raise ValueError(f"variant {cls.__name__} must name the rules it reads and why the documents allow it")
    VARIANTS[cls.__name__] = cls
    return cls
