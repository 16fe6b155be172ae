"""Where a run sends its requests: the configured URLs, or an embedded reference target started for it."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from collections.abc import Iterator

from conformance.config import Target
from conformance.discovery import Identifiers


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the three APIs (None where not configured), the EVM chain when given, and the identifiers."""

    node_url: str | None
    data_url: str | None
    metrics_url: str | None
    evm_chain: str | None
    samples: dict[str, str] = field(default_factory=dict)
    reference_info: dict | None = None
    identifiers: Identifiers = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        given = {**self.samples, **({"evm_chain": self.evm_chain} if self.evm_chain else {})}
        object.__setattr__(self, "identifiers", Identifiers(given))

    def sample(self, name: str) -> str | None:
        """An identifier the operator gave, else the one discovery found (None when neither)."""
        return self.identifiers.get(name)

    def known(self, name: str) -> str | None:
        """An identifier given, or found by a crawl that has run; never starts one."""
        if name in self.identifiers.given:
            return self.identifiers.given[name]
        found = self.identifiers.discovery
        return found.value(name) if found else None

    def missing(self, name: str) -> str:
        """Why a test that needs `name` skips: what discovery searched for it."""
        return self.identifiers.missing(name)


@contextlib.contextmanager
def open_endpoints(target: Target) -> Iterator[Endpoints]:
    """Yields the endpoints of `target`, running the embedded reference for the duration when it has no URL."""
    if not target.reference:
        yield Endpoints(target.node_url, target.data_url, target.metrics_url, target.evm_chain, dict(target.samples))
        return
    from conformance.reference import ReferenceServer

    with ReferenceServer(seed=target.seed or 0) as server:
        info = server.info()
        # The embedded reference is crawled like any target: only its API key (a credential) is taken from it.
        yield Endpoints(server.url, server.url, server.url, target.evm_chain,
                        {**reference_credentials(info), **dict(target.samples)}, reference_info=info)


def reference_credentials(info: dict) -> dict[str, str]:
    """What a run against the embedded reference takes from its info rather than discovery: the key it accepts."""
    key = dict(info.get("samples") or {}).get("data_api_key")
    return {"data_api_key": str(key)} if key else {}
