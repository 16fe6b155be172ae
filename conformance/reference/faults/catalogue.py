"""The catalogue of named faults, which each module of faults/ registers its faults into."""
from __future__ import annotations

from conformance.reference.middleware import Fault

REGISTRY: dict[str, type[Fault]] = {}


def register(cls: type[Fault]) -> type[Fault]:
    """Class decorator: adds a fault to the catalogue under its class name."""
    if cls.__name__ in REGISTRY:
        raise ValueError(f"fault {cls.__name__} is registered twice")
    if not cls.breaks:
        raise ValueError(f"fault {cls.__name__} names no rule it breaks")
    REGISTRY[cls.__name__] = cls
    return cls
