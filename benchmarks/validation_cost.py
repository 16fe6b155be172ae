"""The cost of validating the largest pages: 10000 blockchains and 2160 metric points."""
from __future__ import annotations

import json
import time

import jsonschema
from werkzeug.test import Client

from conformance.checks.shapes import component, schema_errors
from conformance import specs
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World


def _page(path: str) -> dict:
    return json.loads(Client(ReferenceApp(World(0))).get(path).data)


def _timed(action, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def measure() -> list[tuple[str, str]]:
    rows = []
    started = time.perf_counter()
    for seed in range(10):
        World(seed)
    rows.append(("reference: World(seed) construction, ms", f"{(time.perf_counter() - started) * 100:.1f}"))
    pages = {
        "10000 blockchains": ("data", _page("/v1/networks/mainnet/blockchains?pageSize=10000"), "Blockchain",
                              "blockchains"),
        "2160 metric points": ("metrics", _page("/v2/chains/total/metrics/txCount?timeInterval=hour&pageSize=2160"),
                               "DataPoint", "results"),
    }
    for name, (api, body, schema_name, member) in pages.items():
        schema = {"type": "array", "items": component(api, schema_name)}
        # The reference has fewer blockchains than the route's maximum page: repeat them up to a full page.
        size = 10000 if api == "data" else 2160
        items = (body[member] * (size // max(len(body[member]), 1) + 1))[:size]
        fast = _timed(lambda: schema_errors(items, schema, api=api))
        document = specs.openapi(api)
        slow_validator = jsonschema.Draft202012Validator({**schema, "components": document["components"]})
        slow = _timed(lambda: list(slow_validator.iter_errors(items)), repeat=1)
        rows.append((f"validate {name} ({len(items)} items): jsonschema-rs ms / jsonschema ms",
                     f"{fast * 1000:.1f} / {slow * 1000:.0f}"))
    return rows


if __name__ == "__main__":
    for name, value in measure():
        print(f"{name:72} {value:>20}")
