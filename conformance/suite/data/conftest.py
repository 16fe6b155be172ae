"""Data API fixtures: a caller that fills each route's path from discovered or given identifiers.

Request volume depends on the profile: parameters marked `exhaustive` (every route of a shared rule, every
value of an enumeration, both sort orders...) run only in exhaustive profiles; the quick profile keeps the fewest
requests that still decide each rule, walks at most QUICK_PAGES pages, and sends each identical request once.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any
from collections.abc import Callable, Mapping

import pytest

from conformance import pagination
from conformance.checks import data as checks, data_pages as pages
from conformance.checks.data_pages import DataWalk
from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient
from conformance.profiles import Profile
from conformance.session import Endpoints

#: Marks a parameter set that only exhaustive profiles run (a further route or value for an already decided rule);
#: the plugin leaves it out of the quick profile.
EXHAUSTIVE = pytest.mark.exhaustive
#: Pages a walk may fetch in a profile that is not exhaustive.
QUICK_PAGES = 2
#: The page size of a filtered walk: small enough that a filter's answer spans more than one page, so that a
#: filter honoured on the first page only is seen on the next (the walk reads QUICK_PAGES pages in quick).
FILTER_PAGE = 10

#: The identifiers tests need: discovered by the crawl before the tests (conformance.discovery), or given with
#: --sample NAME=VALUE, which always wins.
SAMPLES = {
    "network": "data_network",                   # the network the samples live on (default mainnet)
    "p_chain_address": "data_p_chain_address",   # a P-Chain address with transactions and UTXOs
    "x_chain_address": "data_x_chain_address",   # an X-Chain address with UTXOs of more than one asset
    "c_chain_address": "data_c_chain_address",   # an address with C-Chain atomic UTXOs
    "c_chain_evm_address": "data_c_chain_evm_address",  # a 0x address with C-Chain atomic transactions
    "evm_address": "data_evm_address",           # an EVM address with ERC-20/721/1155 balances and transfers
    "erc20_contract": "data_erc20_contract",     # an ERC-20 token contract with transfers
    "erc721_contract": "data_erc721_contract",
    "erc1155_contract": "data_erc1155_contract",
    "contract_address": "data_contract_address",  # a contract whose deployment is indexed
    "deployment_tx_hash": "data_deployment_tx_hash",  # the transaction that deployed it
    "evm_chain_id": "data_evm_chain_id",         # the EVM chain ID of the EVM routes' chain
    "evm_blockchain_id": "data_evm_blockchain_id",  # the blockchain ID of the same chain
    "block_node_id": "data_block_node_id",       # a node ID with P-Chain blocks
    "vertex_height": "data_vertex_height",       # an X-Chain vertex height with vertices
    "l1_validation_id": "data_l1_validation_id",  # a P-Chain L1 validation with transactions
    "p_chain_id": "data_p_chain_id",
    "x_chain_id": "data_x_chain_id",
    "x_chain_vertex_id": "data_x_chain_vertex_id",
    "c_chain_id": "data_c_chain_id",
    "primary_subnet_id": "data_primary_subnet_id",
    "subnet_id": "data_subnet_id",               # a subnet other than the primary network, with validators
    "api_key": "data_api_key",                   # a key the target accepts, when none is configured
}
ALIASES = {"p": "p-chain", "x": "x-chain", "c": "c-chain"}
#: The chain each primary-network route is exercised on.
ROUTE_CHAIN = {"listUtxos": "p", "listTransactions": "p", "listVerticesByHeight": "x", "listBlocksByNode": "p"}
#: The address each EVM route is exercised with.
ROUTE_ADDRESS = {"getDeployment": "contract_address", "listTokenTransfers": "erc20_contract"}
#: The routes whose answers state prices, and so take a currency.
CURRENCY_ROUTES = ("getDeployment", "listErc20Balances", "getNativeBalance")
#: The currencies quick tries: an even spread of the documented codes past the default, each sent once and read by
#: both the currency enumeration and the currencyCode tests.
QUICK_CURRENCIES = checks.enum("getNativeBalance", "currency")[1::4]
_DEFAULT = object()


def currency_route(currency: str) -> str:
    """The route a currency is tried on: the priced routes taken in turn, in the document's order of the codes."""
    return CURRENCY_ROUTES[checks.enum("getNativeBalance", "currency").index(currency) % len(CURRENCY_ROUTES)]


def variant(*values: Any, quick: bool, marks: Any = (), id: str | None = None) -> Any:
    """A parameter set; unless `quick`, it runs only in exhaustive profiles."""
    marks = [marks] if isinstance(marks, pytest.MarkDecorator) else list(marks)
    return pytest.param(*values, marks=marks + ([] if quick else [EXHAUSTIVE]), id=id)


class DataApi:
    """Calls Data API routes by operationId, filling path parameters, required query members and bodies."""

    def __init__(self, rest: RestClient, endpoints: Endpoints, profile: Profile,
                 once: Callable[..., Any]) -> None:
        self.rest = rest
        self.endpoints = endpoints
        self.profile = profile
        # The run's cache (the `once` fixture): tests running at once send an identical request once.
        self._once = once

    @property
    def exhaustive(self) -> bool:
        return self.profile.exhaustive

    @property
    def budget(self) -> int:
        """Pages a walk may fetch in this profile."""
        return self.profile.pages if self.exhaustive else min(self.profile.pages, QUICK_PAGES)

    def sample(self, name: str) -> str | None:
        return self.endpoints.sample(SAMPLES[name])

    def need(self, name: str) -> str:
        value = self.sample(name)
        if value is None:
            pytest.skip(self.endpoints.missing(SAMPLES[name]))
        return value

    @property
    def network(self) -> str:
        return self.sample("network") or "mainnet"

    @property
    def evm_chain(self) -> str:
        chain = self.sample("evm_chain_id") or self.endpoints.evm_chain
        if not chain:
            pytest.skip(self.endpoints.missing(SAMPLES["evm_chain_id"]))
        return chain

    def chain(self, letter: str) -> str:
        """The P, X or C chain as the routes' default requests name it: by its blockchain ID (given, else the
        network's well-known one the spec holds), else by its alias. The ID is the name the documents give first;
        the alias is another spelling of it, which the spelling rules compare with the ID: a route that refused the
        alias would otherwise fail every rule of its own instead of the one sentence it breaks."""
        given = self.endpoints.identifiers.given.get(SAMPLES[f"{letter}_chain_id"])
        return given or checks.well_known_chain_ids(self.network).get(ALIASES[letter]) or ALIASES[letter]

    def chain_id(self, letter: str) -> str:
        """The blockchain ID of the P, X or C chain: given, else the network's well-known ID the spec holds, else
        discovered. The well-known ID comes before discovery because discovery reads IDs from answers to the very
        aliases the ID is compared with: an alias served for another chain would name that chain's ID."""
        given = self.endpoints.identifiers.given.get(SAMPLES[f"{letter}_chain_id"])
        known = checks.well_known_chain_ids(self.network).get(ALIASES[letter])
        return given or known or self.need(f"{letter}_chain_id")

    @property
    def validator_node_ids(self) -> list[str]:
        """Node IDs listed by listValidators (one page), the node with most validations first."""
        exchange = self.once("listValidators", {"pageSize": checks.plain_page_size("listValidators")})
        body = checks.served(exchange, "DATA-SHP-005", "listValidators")
        nodes = Counter(v["nodeId"] for v in checks.items_of("listValidators", body)
                        if isinstance(v, dict) and isinstance(v.get("nodeId"), str))
        return [node for node, _ in nodes.most_common()]

    def node_id(self) -> str:
        if not self.validator_node_ids:
            pytest.skip("the target lists no validator, so no node ID can be discovered")
        return self.validator_node_ids[0]

    def address_for(self, operation_id: str) -> str:
        return self.need(ROUTE_ADDRESS.get(operation_id, "evm_address"))

    def deployment(self) -> tuple[Exchange, dict[str, Any], int | None]:
        """(exchange, nativeTransaction, its block) of getDeployment's default request; skips without a
        nativeTransaction (DATA-SEM-011 reports that)."""
        exchange = self.first("getDeployment")
        body = exchange.json() if exchange.status == 200 and exchange.is_json() else None
        native = body.get("nativeTransaction") if isinstance(body, dict) else None
        if not isinstance(native, dict):
            pytest.skip("getDeployment answers no nativeTransaction")
        block = checks.number(native.get("blockNumber"))
        return exchange, native, block if isinstance(block, int) else None

    def transfers_before(self, contract: str, block: int) -> tuple[Exchange, list[dict[str, Any]]] | None:
        """(exchange, transfers) of the ERC-20 token `contract` listed before `block`; None when the contract is
        not the ERC-20 token the run knows, whose transfers are the ones documented."""
        if contract.lower() != (self.sample("erc20_contract") or "").lower():
            return None
        exchange = self.once("listTokenTransfers", {"endBlock": block, "pageSize": 10}, address=contract)
        listed = checks.items_of("listTokenTransfers", checks.answered(exchange))
        # read by each transfer's own block: a range the target does not apply hides nothing and accuses nothing
        blocks = [(t, checks.number(t.get("blockNumber"))) for t in listed if isinstance(t, dict)]
        return exchange, [t for t, at in blocks if isinstance(at, int) and at < block]

    def path_value(self, operation_id: str, name: str) -> str:
        """The default value of one path parameter of a route."""
        if name == "network":
            return self.network
        if name == "blockchainId":
            return self.chain(ROUTE_CHAIN[operation_id])
        if name == "chainId":
            return self.evm_chain
        if name == "address":
            return self.address_for(operation_id)
        if operation_id == "listBlocksByNode":
            return self.sample("block_node_id") or self.node_id()
        return self.node_id()

    def required_query(self, operation_id: str) -> dict[str, Any]:
        if operation_id == "listVerticesByHeight":
            return {"vertexHeight": self.sample("vertex_height") or 0}
        return {}

    def default_body(self, operation_id: str) -> Any:
        if operation_id == "listUtxos":
            return {"addresses": self.need("p_chain_address")}
        return None

    def path(self, operation_id: str, **values: str) -> str:
        template = checks.operation(operation_id).template
        for name in re.findall(r"\{(\w+)\}", template):
            if name not in values:
                values[name] = self.path_value(operation_id, name)
        return template.format(**values)

    # operation_id and params are positional-only so that no path value can be taken for them
    def request(self, operation_id: str, params: Mapping[str, Any] | None = None, /, *, body: Any = _DEFAULT,
                **path: str) -> tuple[str, dict[str, Any], Any]:
        """(path, query, body) of a call: required query members first, then `params` (None removes one)."""
        query = {**self.required_query(operation_id), **(params or {})}
        query = {k: v for k, v in query.items() if v is not None}
        json_body = self.default_body(operation_id) if body is _DEFAULT else body
        return self.path(operation_id, **path), query, json_body

    def call(self, operation_id: str, params: Mapping[str, Any] | None = None, /, *, body: Any = _DEFAULT,
             **path: str) -> Exchange:
        route, query, json_body = self.request(operation_id, params, body=body, **path)
        if checks.operation(operation_id).method == "POST":
            return self.rest.post(route, query, json_body)
        return self.rest.get(route, query)

    def once(self, operation_id: str, params: Mapping[str, Any] | None = None, /, *, body: Any = _DEFAULT,
             **path: str) -> Exchange:
        """Like `call`, but an identical request (same route, path, query and body) is sent once per session.

        Only for requests whose answer a test reads as a snapshot; a test that compares two reads of a live list
        uses `call` for the second read.
        """
        route, query, json_body = self.request(operation_id, params, body=body, **path)
        key = json.dumps([operation_id, route, sorted((k, str(v)) for k, v in query.items()), json_body],
                         default=str)
        return self._once(lambda: self.call(operation_id, params, body=body, **path), self.rest.base_url, key)

    def first(self, operation_id: str) -> Exchange:
        """The route called once with its default identifiers and no options (cached for the session)."""
        return self.once(operation_id)

    def walk(self, operation_id: str, params: Mapping[str, Any] | None = None, *, budget: int | None = None,
             body: Any = _DEFAULT, **path: str) -> DataWalk:
        """A bounded walk of a list route (at most `budget` requests, the profile's walk budget by default)."""
        route, query, json_body = self.request(operation_id, params, body=body, **path)
        method = checks.operation(operation_id).method
        walked = pagination.walk_pages(self.rest, route, query, budget=budget or self.budget,
                                       method=method, json_body=json_body)
        return pages.watch(DataWalk(operation_id, query.get("pageSize"), walked))

    def filtered(self, operation_id: str, params: Mapping[str, Any], *, body: Any = _DEFAULT,
                 **path: str) -> DataWalk:
        """The walk of a filtered listing at FILTER_PAGE items a page (unless `params` names a page size), sent once
        per session: every filter test reads each page of it, since a filter holds on every page or not at all."""
        query = {"pageSize": FILTER_PAGE, **params}
        route, sent, json_body = self.request(operation_id, query, body=body, **path)
        key = json.dumps(["walk", operation_id, route, sorted((k, str(v)) for k, v in sent.items()), json_body,
                          self.budget], default=str)
        method = checks.operation(operation_id).method
        return self._once(lambda: pages.watch(DataWalk(operation_id, sent.get("pageSize"), pagination.walk_pages(
            self.rest, route, sent, budget=self.budget, method=method, json_body=json_body))), self.rest.base_url, key)


@pytest.fixture(scope="session")
def data(data_api: RestClient, endpoints: Endpoints, profile: Profile, once: Any) -> DataApi:
    """The Data API of the target, called by operationId."""
    return DataApi(data_api, endpoints, profile, once)


@pytest.fixture(scope="session")
def served_body(data: DataApi) -> Callable[..., tuple[Exchange, Any]]:
    """Calls a route with valid parameters and returns (exchange, body), failing `rule` when it is not served."""
    def call(operation_id: str, rule: str, params: Mapping[str, Any] | None = None,
             **path: str) -> tuple[Exchange, Any]:
        exchange = data.call(operation_id, params, **path)
        return exchange, checks.served(exchange, rule, operation_id)
    return call
