"""Where a run sends its requests: the configured URLs, or an embedded reference target started for it."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator

from conformance.config import Target


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the three APIs (None where not configured) and the EVM chain to test."""

    node_url: str | None
    data_url: str | None
    metrics_url: str | None
    evm_chain: str | None
    reference_info: dict | None = None


@contextlib.contextmanager
def open_endpoints(target: Target) -> Iterator[Endpoints]:
    """Yields the endpoints of `target`, running the embedded reference for the duration when it has no URL."""
    if not target.reference:
        yield Endpoints(target.node_url, target.data_url, target.metrics_url, target.evm_chain)
        return
    from conformance.reference import ReferenceServer

    with ReferenceServer(seed=target.seed or 0) as server:
        info = server.info()
        yield Endpoints(server.url, server.url, server.url, target.evm_chain or str(info["evm_blockchain_id"]),
                        reference_info=info)
