"""The synthetic world behind the reference target, deterministic from a seed, optionally growing."""
from __future__ import annotations

import threading

from conformance.reference import ids
from conformance.reference.clock import BASE_TIME, Clock


class World:
    """Everything the reference serves; sub-worlds per document build their data lazily from the seed."""

    #: Simulated seconds that pass on each advance of a live world.
    STEP_SECONDS = 2.0

    def __init__(self, seed: int = 0) -> None:
        from conformance.reference.data_api.world import DataWorld
        from conformance.reference.metrics_api.world import MetricsWorld
        from conformance.reference.node.world import NodeWorld

        self.seed = seed
        self.lock = threading.RLock()
        self.clock = Clock(BASE_TIME + 3600 * 24 * 30 + 7 * 3600 + 1234.5 + 60 * (seed % 50))
        self.evm_chain_id = 43000 + seed % 1000 + 117          # an L1's EVM chain ID
        self.evm_blockchain_id = ids.cb58_id(seed, "evm-blockchain")
        self.evm_subnet_id = ids.cb58_id(seed, "evm-subnet")
        self.node = NodeWorld(self)
        self.data = DataWorld(self)
        self.metrics = MetricsWorld(self)

    def samples(self) -> dict[str, str]:
        """Identifiers an operator would give a run against this target (--sample NAME=VALUE)."""
        out: dict[str, str] = {"evm_chain_id": str(self.evm_chain_id)}
        for part in (self.node, self.data, self.metrics):
            out.update(getattr(part, "samples", dict)())
        return out

    def advance(self) -> None:
        """One step of a live chain: time passes, containers, blocks and metric points appear."""
        with self.lock:
            self.clock.tick(self.STEP_SECONDS)
            self.node.advance()
            self.data.advance()
            self.metrics.advance()
