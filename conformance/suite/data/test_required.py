"""Required parameters: a request without vertexHeight, or without the UTXO body's addresses, is refused."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks
from conformance.suite.data.conftest import DataApi, variant


@pytest.mark.rule("DATA-REQ-001")
def test_vertices_without_vertex_height_are_refused(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """listVerticesByHeight without vertexHeight is refused."""
    exchange = data.once("listVerticesByHeight", {"vertexHeight": None})
    what = "listVerticesByHeight without vertexHeight"
    observe("DATA-ERR-009", {"request": what, "status": checks.refused(exchange, "DATA-REQ-001", what)})


@pytest.mark.rule("DATA-REQ-002")
@pytest.mark.parametrize("body", [variant(None, quick=False, id="no-body"), variant({}, quick=True, id="empty-object"),
                                  variant({"addresses": None}, quick=False, id="null-addresses")])
def test_utxos_without_addresses_are_refused(data: DataApi, observe: Callable[[str, Any], None], body: Any) -> None:
    """listUtxos without the body's addresses is refused."""
    exchange = data.once("listUtxos", body=body)
    observe("DATA-ERR-009", {"request": f"listUtxos with body {body!r}",
                             "status": checks.refused(exchange, "DATA-REQ-002", f"listUtxos with body {body!r}")})
