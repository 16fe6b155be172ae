"""Fixtures of the node JSON-RPC suite: the index paths, discovered containers, and whether Admin is enabled."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks.envelope import is_response_object
from conformance.checks.index import IndexAt, index_paths, position
from conformance.checks.served import ServedMethods, methods_needed, needs_evm_rpc, not_served
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.plugin import rule_ids
from conformance.profiles import Profile
from conformance.session import Endpoints

PATHS = index_paths()


@dataclass(frozen=True)
class Known:
    """What a test may rely on about one index: the last accepted container when the run began."""

    last: int
    container: dict[str, Any]


@pytest.fixture(scope="session", params=PATHS, ids=[path.removeprefix("/ext/index/") for path in PATHS])
def index_at(request: pytest.FixtureRequest, rpc_at: Callable[[str], JsonRpcClient],
             index_served: set[str]) -> IndexAt:
    """One documented Index API path (every test taking it runs at each of them)."""
    if not index_served:
        pytest.skip("the Index API is not enabled on this node (no index path answers JSON-RPC)")
    return IndexAt(request.param, rpc_at(request.param))


@pytest.fixture(scope="session")
def index_served(rpc_at: Callable[[str], JsonRpcClient], once: Any) -> set[str]:
    """The index paths that answer JSON-RPC at all; none means the node runs without --index-enabled (asked once
    per run)."""
    def probe() -> set[str]:
        served = set()
        for path in PATHS:
            exchange = rpc_at(path).call("index.getLastAccepted", {"encoding": "hex"})
            if is_response_object(exchange) and exchange.status != 404:
                served.add(path)
        return served
    return once(probe, rpc_at(PATHS[0]).url)


@pytest.fixture
def known(index_at: IndexAt, once: Any) -> Known:
    """The last accepted container of this index, read once per run; skips for an empty index."""
    def read() -> Known | None:
        exchange = index_at.last_accepted()
        result = exchange.json().get("result") if exchange.is_json() and isinstance(exchange.json(), dict) else None
        last = position(result)
        # a container with an index is an object
        return Known(last, result) if last is not None and isinstance(result, dict) else None
    found = once(read, index_at.client.url)
    if found is None:
        pytest.skip(f"{index_at.path} has no containers (or index.getLastAccepted gives none)")
    return found


@pytest.fixture(scope="session")
def admin_api(admin: JsonRpcClient, once: Any) -> JsonRpcClient:
    """The Admin API client; skips when the node does not enable it (--api-admin-enabled). Asked once per run."""
    if once(lambda: not_served(admin.call("admin.getLoggerLevel", {})), admin.url):
        pytest.skip("the Admin API is not enabled on this node (/ext/admin does not answer admin.getLoggerLevel)")
    return admin


@pytest.fixture(scope="session")
def blockchain_id(endpoints: Endpoints, sample: Callable[[str], str]) -> str:
    """The EVM chain's blockchain ID (admin calls take the ID, not an alias)."""
    from conformance.checks.admin import is_blockchain_id

    chain = endpoints.evm_chain
    return chain if chain and is_blockchain_id(chain) else sample("blockchain_id")


@pytest.fixture
def fresh_alias(request: pytest.FixtureRequest) -> str:
    """An alias no node has yet: a fixed prefix and random letters."""
    import secrets

    return f"conformance-{secrets.token_hex(6)}"


@pytest.fixture(scope="session")
def blockchain_id_or_none(endpoints: Endpoints) -> str | None:
    from conformance.checks.admin import is_blockchain_id

    chain = endpoints.evm_chain
    return chain if chain and is_blockchain_id(chain) else endpoints.sample("blockchain_id")


@pytest.fixture(scope="session")
def served_methods(once: Any) -> ServedMethods:
    return ServedMethods(once)


@pytest.fixture
def require_served(request: pytest.FixtureRequest, served_methods: ServedMethods) -> Callable[[str], None]:
    """Skips the test when a listed method is not served and another test reports it (once per run); for fixtures,
    which run while the test is set up."""
    def require(method: str) -> None:
        if method.startswith("validators."):
            served_methods.require(request.node, method, request.getfixturevalue("validators"))
            return
        client = request.getfixturevalue("evm")
        served_methods.require_evm_rpc(request.node, client)
        served_methods.require(request.node, method, client)
    return require


@pytest.fixture(autouse=True)
def _listed_methods_served(request: pytest.FixtureRequest, served_methods: ServedMethods) -> None:
    """A test of the EVM chain RPC, or of a listed method, skips when that is not served at all, rather than fail
    as one more symptom of what one other test reports."""
    rules = rule_ids(request.node)
    if needs_evm_rpc(rules):
        served_methods.require_evm_rpc(request.node, request.getfixturevalue("evm"))
    methods = methods_needed(rules)
    if methods:
        require = request.getfixturevalue("require_served")
        for method in methods:
            require(method)


def declared_endpoints(request: pytest.FixtureRequest, api: str, profile: Profile) -> list[JsonRpcClient]:
    """The endpoints a declaration of `api` is checked on, made while the test is set up: every index path the node
    serves (the first one only in a profile that is not exhaustive), else the API's one endpoint."""
    if api == "index":
        served = sorted(request.getfixturevalue("index_served"))
        if not served:
            pytest.skip("the Index API is not enabled on this node")
        rpc_at = request.getfixturevalue("rpc_at")
        return [rpc_at(path) for path in (served if profile.exhaustive else served[:1])]
    return [request.getfixturevalue({"evm": "evm", "validators": "validators", "admin": "admin_api"}[api])]
