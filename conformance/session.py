"""Where a run sends its requests: the configured URLs, or an embedded reference target started for it."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Iterator

from conformance.config import Target


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the three APIs (None where not configured) and the EVM chain to test."""

    node_url: str | None
    data_url: str | None
    metrics_url: str | None
    evm_chain: str | None
    samples: dict[str, str] = field(default_factory=dict)
    reference_info: dict | None = None

    def sample(self, name: str) -> str | None:
        """An identifier the operator gave (or the reference advertises) for tests that cannot discover one."""
        return self.samples.get(name)


@contextlib.contextmanager
def open_endpoints(target: Target) -> Iterator[Endpoints]:
    """Yields the endpoints of `target`, running the embedded reference for the duration when it has no URL."""
    if not target.reference:
        yield Endpoints(target.node_url, target.data_url, target.metrics_url, target.evm_chain, dict(target.samples))
        return
    from conformance.reference import ReferenceServer

    with ReferenceServer(seed=target.seed or 0) as server:
        info = server.info()
        yield Endpoints(server.url, server.url, server.url, target.evm_chain or str(info["evm_blockchain_id"]),
                        {**info["samples"], **dict(target.samples)}, reference_info=info)
