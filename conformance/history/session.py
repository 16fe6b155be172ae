"""What a run does with its history file: reads what failed before (for --fail-on new), then, once its report is
built, adds what changed to it and keeps the run."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.config import Target
from conformance.history import store
from conformance.history.naming import history_name


@dataclass(frozen=True)
class RunHistory:
    path: str
    target: str
    fail_on_new: bool

    @classmethod
    def of(cls, target: Target, reference: bool = False) -> RunHistory | None:
        """The history of this run's target, or None when the run keeps none (no --history)."""
        if not target.history:
            return None
        return cls(target.history, history_name(target, reference), target.fail_on == "new")

    def old_failures(self) -> frozenset[str]:
        """Rules whose failures do not fail the gate: under --fail-on new, those failing before this run."""
        return store.old_failures(self.path, self.target) if self.fail_on_new else frozenset()

    def keep(self, report: dict[str, Any]) -> dict[str, Any]:
        """Adds `history` (new, fixed, still failing, trend) to `report`, then records the run; returns it."""
        report["history"] = store.changes(self.path, self.target, report)
        store.record(self.path, self.target, report)
        return report["history"]
