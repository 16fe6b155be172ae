"""Every documented index path answers, and the legacy X/vtx index stays readable and frozen."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.envelope import is_error, is_response_object, result_of
from conformance.checks.index import (REREADS, IndexAt, accepted, first_id, holds, index_paths, legacy_paths,
                                      replacements)
from conformance.clients.jsonrpc import JsonRpcClient

#: Path -> the rule that it answers JSON-RPC; the legacy path has its own rule (still readable).
PATH_RULES = dict(zip(index_paths(), ["RPC-IDX-030", "RPC-IDX-031", "RPC-IDX-032", "RPC-IDX-033", "RPC-IDX-034"]))


@pytest.mark.parametrize("path", [pytest.param(path, marks=pytest.mark.rule(rule), id=path.removeprefix("/ext/"))
                                  for path, rule in PATH_RULES.items()])
def test_index_path_answers_json_rpc(path: str, rpc_at: Callable[[str], JsonRpcClient],
                                     index_served: set[str]) -> None:
    """Each documented Index API path answers JSON-RPC calls while the Index API is enabled."""
    if not index_served:
        pytest.skip("the Index API is not enabled on this node (no index path answers JSON-RPC)")
    exchange = rpc_at(path).call("index.getContainerRange", {"startIndex": 0, "numToFetch": 0, "encoding": "hex"})
    check(is_response_object(exchange) and exchange.status != 404, PATH_RULES[path],
          f"{path} does not answer JSON-RPC although other index paths do",
          expected="a JSON-RPC response object", received=f"HTTP {exchange.status}: {exchange.text(200)}",
          exchange=exchange)


@pytest.fixture
def legacy(rpc_at: Callable[[str], JsonRpcClient], index_served: set[str]) -> IndexAt:
    path = legacy_paths()[0]
    if path not in index_served:
        pytest.skip(f"{path} does not answer (the Index API is not enabled, or RPC-IDX-034 fails)")
    return IndexAt(path, rpc_at(path))


@pytest.mark.rule("RPC-IDX-034")
def test_legacy_index_is_readable(legacy: IndexAt) -> None:
    """The legacy X/vtx index serves its first container when it holds any."""
    last = legacy.last_position()
    if last is None:
        pytest.skip(f"{legacy.path} holds no containers on this node")
    result_of(legacy.by_index(0), "RPC-IDX-034", "index.getContainerByIndex 0 on the legacy index")


@pytest.fixture
def replacement(rpc_at: Callable[[str], JsonRpcClient]) -> IndexAt:
    path = next(server["x-replaced-by"] for server in _servers() if server.get("x-frozen"))
    return IndexAt(path, rpc_at(path))


@pytest.mark.rule("RPC-IDX-035")
def test_legacy_index_holds_no_container_of_its_replacement(legacy: IndexAt, replacement: IndexAt) -> None:
    """The legacy X/vtx index holds none of the containers /ext/index/X/block accepted since it replaced it."""
    exchange = replacement.last_accepted()
    newest = exchange.json().get("result") if not is_error(exchange) and isinstance(exchange.json(), dict) else None
    if not isinstance(newest, dict) or not isinstance(newest.get("id"), str):
        pytest.skip(f"{replacement.path} holds no containers to look for")
    answer = legacy.is_accepted(newest["id"])
    # An isAccepted that is true of anything is RPC-IDX-042's deviation: the legacy index must show it holds the
    # container (an index for it, and that container at that index) before it counts as gaining it.
    gained = accepted(answer) is True and holds(legacy, newest["id"])
    check(not gained, "RPC-IDX-035", f"the legacy index {legacy.path} holds the newest container of "
          f"{replacement.path}", expected="isAccepted false (or an error) on the legacy index",
          received=f"isAccepted {accepted(answer)!r}", exchange=answer)


@pytest.mark.rule("RPC-IDX-043")
def test_each_path_serves_its_own_containers(rpc_at: Callable[[str], JsonRpcClient], index_served: set[str]) -> None:
    """No two index paths give the same first container: each path looks up the containers of its own index."""
    firsts: dict[str, str] = {}
    for path in (p for p in index_paths() if p in index_served):
        found = first_id(IndexAt(path, rpc_at(path)))
        if found is not None:
            firsts[path] = found
    if len(firsts) < 2:
        pytest.skip("fewer than two index paths give a first container")
    # The legacy path serving its replacement's containers is RPC-IDX-035's deviation: that pair is decided there.
    replaced = {frozenset(pair) for pair in replacements().items()}
    paths = list(firsts)
    for position, path in enumerate(paths):
        same = [other for other in paths[position + 1:] if firsts[other] == firsts[path]
                and frozenset((path, other)) not in replaced]
        check(not same, "RPC-IDX-043", f"{path} and {', '.join(same)} give the same first container",
              expected="each index path its own containers (a block of one chain, a transaction of another)",
              received=f"index.getContainerByIndex 0 gives {firsts[path]} at each of {[path, *same]}")


@pytest.mark.rule("RPC-IDX-035")
def test_legacy_index_gains_no_containers(legacy: IndexAt, replacement: IndexAt) -> None:
    """The legacy X/vtx index gains no containers, even while /ext/index/X/block advances."""
    block = replacement
    first = legacy.last_position()
    for _ in range(REREADS):
        block.last_position()
        later = legacy.last_position()
        check(first is None or later is None or later <= first, "RPC-IDX-035",
              f"the legacy index {legacy.path} gained containers", expected=f"last accepted index stays {first}",
              received=f"last accepted index {later}")


def _servers() -> list[dict]:
    from conformance import specs

    return specs.openrpc("index")["servers"]
