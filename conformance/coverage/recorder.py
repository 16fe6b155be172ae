"""Listens to every exchange of a run and keeps, per API, counters for the items of the contract it showed.

What is kept is one small tally per documented item (never a body, never a value), so a long run's coverage takes
the same memory as a short one's. Reading an exchange happens outside the lock; only the counting is shared.
"""
from __future__ import annotations

import threading
from typing import Any, Protocol

from conformance import specs
from conformance.clients.http import Exchange
from conformance.coverage.items import DIMENSIONS, Shape, Tally, Update, summary
from conformance.coverage.openapi import RestModel
from conformance.coverage.openrpc import RpcModel
from conformance.operations import operation_of

#: Statuses answered that the document does not list, kept per operation up to this many.
MAX_UNDOCUMENTED = 20


class ApiModel(Protocol):
    def shapes(self) -> dict[str, dict[str, dict[str, Shape]]]: ...

    def observe(self, operation: str, exchange: Exchange) -> list[Update]: ...


def model_of(api: str, has_key: bool) -> ApiModel:
    return RestModel(api, has_key) if api in specs.REST_APIS else RpcModel(api, has_key)


class ApiCoverage:
    """The tallies of one API: operation -> dimension -> item -> Tally."""

    def __init__(self, model: ApiModel) -> None:
        self.model = model
        self.tallies = {operation: {dimension: {item: Tally(shape) for item, shape in items.items()}
                                    for dimension, items in dims.items()}
                        for operation, dims in model.shapes().items()}
        self.undocumented: dict[str, set[int]] = {}

    def apply(self, updates: list[Update]) -> None:
        for update in updates:
            tally = self.tallies.get(update.operation, {}).get(update.dimension, {}).get(update.item)
            if tally is not None:
                tally.add(update)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {dimension: summary([tally for dims in self.tallies.values()
                                                   for tally in dims[dimension].values()])
                               for dimension in DIMENSIONS}
        detail: dict[str, Any] = {}
        for operation, dims in sorted(self.tallies.items()):
            entry: dict[str, Any] = {"status": dims["operations"]["answered"].status}
            for dimension in DIMENSIONS[1:]:
                entry[dimension] = {item: tally.to_json() for item, tally in dims[dimension].items()}
            if operation in self.undocumented:
                entry["undocumented_statuses"] = sorted(self.undocumented[operation])
            detail[operation] = entry
        out["detail"] = detail
        return out


class CoverageRecorder:
    """The run's coverage: `record` is an HttpSession listener, `report` the report's `coverage` section."""

    def __init__(self, has_key: bool = False) -> None:
        self.has_key = has_key
        self._apis: dict[str, ApiCoverage] = {}
        self._lock = threading.Lock()

    def _api(self, api: str) -> ApiCoverage:
        with self._lock:
            if api not in self._apis:
                self._apis[api] = ApiCoverage(model_of(api, self.has_key))
            return self._apis[api]

    def record(self, exchange: Exchange) -> None:
        found = operation_of(exchange)
        if found is None:
            return
        api, operation = found
        coverage = self._api(api)
        updates = coverage.model.observe(operation, exchange)
        status = exchange.status
        with self._lock:
            coverage.apply(updates)
            if status is not None and operation in coverage.tallies and not any(
                    update.dimension == "responses" for update in updates):
                seen = coverage.undocumented.setdefault(operation, set())
                if len(seen) < MAX_UNDOCUMENTED and api in specs.REST_APIS:
                    seen.add(status)

    def report(self, apis: tuple[str, ...] | list[str]) -> dict[str, Any]:
        """`coverage.<api>`: per dimension covered, partial, total, unreachable and percent, and the detail."""
        out = {}
        for api in apis:
            if api not in specs.ALL_APIS:
                continue
            coverage = self._api(api)
            with self._lock:
                out[api] = coverage.to_json()
        return out
