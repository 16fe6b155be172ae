"""The encoding parameter: only hex is accepted; the answer without it is recorded."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks.envelope import expect_refusal, is_error
from conformance.checks.index import IndexAt
from conformance.rules import load_catalogue
from conformance.suite.rpc.conftest import Known

METHODS = ["index.getContainerByID", "index.getContainerByIndex", "index.getContainerRange", "index.getIndex",
           "index.getLastAccepted", "index.isAccepted"]
#: Encodings nodes know besides hex (hexc is hex by another name, hexnc hex without its checksum; older versions
#: knew cb58 and json): "The `encoding` parameter accepts only `hex`", so the Index API takes none of them.
OTHER_ENCODINGS = [*(pytest.param(name) for name in ("hexc", "hexnc")),
                   # those that nodes refuse already: a further variant of a decided rule
                   *(pytest.param(name, marks=pytest.mark.exhaustive) for name in ("cb58", "json"))]
#: The methods that must refuse them, those that return containers; the others' answers are recorded.
REFUSING = [method for method in METHODS if method in load_catalogue()["RPC-IDX-015"].applies_to]
RECORDED = [method for method in METHODS if method in load_catalogue()["RPC-IDX-041"].applies_to]


def params_for(method: str, known: Known) -> dict[str, Any]:
    """Params of `method` that are valid apart from the encoding."""
    params: dict[str, dict[str, Any]] = {
        "index.getContainerByID": {"id": known.container.get("id")},
        "index.getContainerByIndex": {"index": known.last},
        "index.getContainerRange": {"startIndex": known.last, "numToFetch": 1},
        "index.getIndex": {"id": known.container.get("id")},
        "index.getLastAccepted": {},
        "index.isAccepted": {"id": known.container.get("id")}}
    return params[method]


@pytest.mark.rule("RPC-IDX-015")
@pytest.mark.parametrize("encoding", OTHER_ENCODINGS)
@pytest.mark.parametrize("method", REFUSING)
def test_encoding_other_than_hex_is_rejected(index_at: IndexAt, known: Known, method: str, encoding: str) -> None:
    """An Index API method that returns containers rejects an encoding other than hex."""
    exchange = index_at.client.call(method, {**params_for(method, known), "encoding": encoding})
    expect_refusal(exchange, "RPC-IDX-015", f"{method} with encoding {encoding!r}")


@pytest.mark.rule("RPC-IDX-041")
@pytest.mark.parametrize("encoding", OTHER_ENCODINGS)
@pytest.mark.parametrize("method", RECORDED)
def test_encoding_other_than_hex_is_recorded(index_at: IndexAt, known: Known, method: str, encoding: str,
                                             observe: Callable[[str, Any], None]) -> None:
    """What a method whose result carries nothing encoded answers to an encoding other than hex is recorded."""
    exchange = index_at.client.call(method, {**params_for(method, known), "encoding": encoding})
    observe("RPC-IDX-041", {"path": index_at.path, "method": method, "encoding": encoding,
                            "refused": is_error(exchange)})


@pytest.mark.rule("RPC-IDX-016")
@pytest.mark.parametrize("method", METHODS)
def test_call_without_encoding_is_recorded(index_at: IndexAt, known: Known, method: str,
                                           observe: Callable[[str, Any], None]) -> None:
    """The answer of an Index API call without encoding is recorded."""
    exchange = index_at.client.call(method, params_for(method, known))
    observe("RPC-IDX-016", {"path": index_at.path, "method": method, "refused": is_error(exchange)})
