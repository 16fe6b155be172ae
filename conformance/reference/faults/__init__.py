"""Named faults: each a small class that makes the reference break the rules it names.

A fault wraps the reference's handlers like middleware (conformance/reference/middleware.py); its module registers
it in the catalogue (faults/catalogue.py), which holds every fault once this package has imported its modules.
"""
from __future__ import annotations

from conformance.reference.faults.catalogue import REGISTRY
from conformance.reference.middleware import Fault


def fault_named(name: str) -> Fault:
    try:
        return REGISTRY[name]()
    except KeyError:
        raise KeyError(f"unknown fault {name!r}; `conformance serve-reference --list-faults` lists them") from None


def all_faults() -> list[type[Fault]]:
    return list(REGISTRY.values())


# Importing the modules registers their faults.
from conformance.reference.faults import (  # noqa: E402,F401
    envelope, admin, index, evm, eth, validators, data, metrics, chains, derived)
