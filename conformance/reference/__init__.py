"""The embedded reference target: every API of the three documents over a deterministic synthetic world.

It answers as the documents say, and named faults (`faults/`) each break documented rules so the
self-tests can prove every check of the suite able to fail. No check of the suite lives here.
"""
from __future__ import annotations

from conformance.reference.server import ReferenceServer

__all__ = ["ReferenceServer"]
