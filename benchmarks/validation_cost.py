"""The cost of validating the largest pages the documents allow: blockchains and metric points."""
from __future__ import annotations

import json
import time
from typing import Any
from collections.abc import Callable

import jsonschema
from werkzeug.test import Client

from benchmarks.table import BenchmarkError, Row, markdown
from conformance import specs
from conformance.checks.shapes import component, schema_errors
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World

#: api, route, concrete path (without pageSize), item schema, member holding the items
PAGES = (
    ("data", "/v1/networks/{network}/blockchains", "/v1/networks/mainnet/blockchains", "Blockchain", "blockchains"),
    ("metrics", "/v2/chains/{chainId}/metrics/{metric}", "/v2/chains/total/metrics/txCount?timeInterval=hour",
     "DataPoint", "results"),
)


def largest_page(api: str, route: str) -> int:
    """The route's pageSize maximum, read from its OpenAPI document so the figure follows the spec."""
    document = specs.openapi(api)
    for parameter in document["paths"][route]["get"]["parameters"]:
        if "$ref" in parameter:
            parameter = document["components"]["parameters"][parameter["$ref"].rsplit("/", 1)[1]]
        if parameter["name"] == "pageSize":
            return int(parameter["schema"]["maximum"])
    raise KeyError(f"{route} has no pageSize parameter")


def _timed(action: Callable[[], Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def measure() -> list[Row]:
    started = time.perf_counter()
    for seed in range(10):
        World(seed)
    rows = [Row("reference: World(seed) construction", value=f"{(time.perf_counter() - started) * 100:.1f} ms")]
    client = Client(ReferenceApp(World(0)))
    for api, route, path, schema_name, member in PAGES:
        size = largest_page(api, route)
        body = json.loads(client.get(f"{path}{'&' if '?' in path else '?'}pageSize={size}").data)
        # The reference may hold fewer items than the route's largest page: repeat them up to a full page.
        items = (body[member] * (size // max(len(body[member]), 1) + 1))[:size]
        schema = {"type": "array", "items": component(api, schema_name)}
        if errors := schema_errors(items, schema, api=api):
            raise BenchmarkError(f"the reference's {schema_name} page is not valid: {errors[0]}")
        fast = _timed(lambda: schema_errors(items, schema, api=api))  # noqa: B023 - timed here, at once
        slow_validator = jsonschema.Draft202012Validator({**schema, "components": specs.openapi(api)["components"]})
        slow = _timed(lambda: list(slow_validator.iter_errors(items)), repeat=1)  # noqa: B023 - timed here, at once
        rows.append(Row(f"validating a page of {size:,} {schema_name} objects: jsonschema-rs / jsonschema",
                        value=f"{fast * 1000:,.1f} ms / {slow * 1000:,.0f} ms"))
    return rows


if __name__ == "__main__":
    print(markdown(measure()))
