"""How long the target took to answer each documented operation, and the versions its answers named."""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from conformance.clients.http import Exchange
from conformance.operations import operation_of


@dataclass
class OperationTimes:
    """Latencies per operation, in milliseconds, with the server and client versions the answers named."""

    times: dict[str, list[float]] = field(default_factory=dict)   # "api operation" -> [ms, ...]
    servers: set[str] = field(default_factory=set)                 # Server headers seen
    client_versions: set[str] = field(default_factory=set)         # web3_clientVersion results seen

    def record(self, exchange: Exchange) -> None:
        if exchange.status is None:
            return   # an attempt that got no answer: its time is not the operation's
        found = operation_of(exchange)
        if found is not None:
            self.times.setdefault(f"{found[0]} {found[1]}", []).append(round(exchange.elapsed * 1000, 3))
            if found[1] == "web3_clientVersion" and exchange.status == 200 and len(exchange.body) < 4096:
                result = exchange.json().get("result") if exchange.is_json() else None
                if isinstance(result, str) and isinstance(exchange.json(), dict):
                    self.client_versions.add(result[:200])
        server = exchange.response_headers.get("server")
        if server and len(self.servers) < 20:
            self.servers.add(server[:200])

    def summary(self) -> list[dict[str, Any]]:
        """One entry per operation: api, operation, requests, median/p95/max milliseconds."""
        out = []
        for key in sorted(self.times):
            api, operation = key.split(" ", 1)
            values = sorted(self.times[key])
            p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
            out.append({"api": api, "operation": operation, "requests": len(values),
                        "median_ms": round(statistics.median(values), 3), "p95_ms": p95, "max_ms": values[-1]})
        return out
