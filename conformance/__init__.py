"""Contract-conformance suite for a node's JSON-RPC APIs, the chain Data API and the Metrics API."""
from __future__ import annotations

__version__ = "0.1.0"
