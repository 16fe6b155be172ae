"""Semantics: network and chain names that mean the same thing answer the same, and routes do what they say."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, data as checks, live
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import (ALIASES, CURRENCY_ROUTES, QUICK_CURRENCIES, ROUTE_CHAIN, DataApi,
                                              currency_route, variant)

NETWORK_ROUTES = [op for op, o in checks.operations().items() if "{network}" in o.template]
NETWORK_FREE = ("listBlockchains", "listValidators", "listTransactions", "listVerticesByHeight")
EVM_ROUTES = [op for op, o in checks.operations().items() if "{chainId}" in o.template]
COLON_ROUTES = [op for op, o in checks.operations().items() if ":" in o.template]


def routes(rule: str, all_routes: list[str], quick: str) -> list[object]:
    """Parameters of a rule shared by routes: every route in exhaustive profiles, `quick` in quick."""
    return [variant(op, quick=op == quick, marks=pytest.mark.rule(rule), id=op) for op in all_routes]


def digest(operation_id: str, body: Any) -> Any:
    """What two answers about the same data share: the item identities, or the route's one resource."""
    if checks.operation(operation_id).list_member:
        return [checks.identity(operation_id, item) for item in checks.items_of(operation_id, body)]
    if operation_id == "getNativeBalance":
        return (body.get("nativeTokenBalance") or {}).get("balance") if isinstance(body, dict) else None
    return (body.get("nativeTransaction") or {}).get("txHash") if isinstance(body, dict) else None


def same_answer(data: DataApi, rule: str, operation_id: str, first: dict[str, str], second: dict[str, str],
                params: dict[str, Any] | None = None) -> None:
    """Both requests are served with the same data, allowing for a live target that moves between reads."""
    def value(exchange: Exchange) -> Any:
        return digest(operation_id, checks.served(exchange, rule, f"{operation_id} at {exchange.url}"))
    # the first reads are shared with other tests; fresh ones follow only on a difference
    outcome = live.agree_while_live(lambda: data.call(operation_id, params, **first),
                                    lambda: data.call(operation_id, params, **second), value,
                                    earlier=(data.once(operation_id, params, **first),
                                             data.once(operation_id, params, **second)),
                                    timeline=checks.operation(operation_id).list_member is not None)
    check(outcome.agreed, rule, f"{operation_id} answers {first} and {second} differently",
          expected=f"the same data for {first} and {second}",
          received=f"{str(outcome.first)[:200]} vs {str(outcome.second)[:200]}", exchange=outcome.exchange)


@pytest.mark.parametrize("operation_id", routes("DATA-SEM-001", NETWORK_ROUTES, "listBlockchains"))
def test_fuji_and_testnet_are_the_same_network(data: DataApi, operation_id: str) -> None:
    """fuji and testnet return the same data for the same request."""
    path: dict[str, str] = {}
    if data.network not in ("fuji", "testnet"):
        if operation_id not in NETWORK_FREE:
            pytest.skip(f"the {operation_id} identifiers belong to {data.network}")
        if "{blockchainId}" in checks.operation(operation_id).template:
            path["blockchainId"] = ALIASES[ROUTE_CHAIN[operation_id]]
    # the routes' default requests, as the network enumeration test sends them
    same_answer(data, "DATA-SEM-001", operation_id, {**path, "network": "fuji"}, {**path, "network": "testnet"})


@pytest.mark.rule("DATA-SEM-002")
@pytest.mark.parametrize("chain", [variant(chain, quick=chain == "c-chain", id=chain)
                                   for chain in ("p-chain", "c-chain", "p_chain_id", "c_chain_id")])
def test_vertices_refuse_other_chains(data: DataApi, observe: Callable[[str, Any], None], chain: str) -> None:
    """listVerticesByHeight refuses the P-Chain and C-Chain, by ID or alias."""
    blockchain = data.chain_id(chain[0]) if chain.endswith("_id") else chain
    exchange = data.once("listVerticesByHeight", blockchainId=blockchain)
    observe("DATA-SEM-004", {"chain": chain, "status": exchange.status})
    checks.refused(exchange, "DATA-SEM-002", f"listVerticesByHeight on {blockchain}")


@pytest.mark.rule("DATA-SEM-003")
@pytest.mark.parametrize("chain", [variant(chain, quick=chain != "x-chain", id=chain)
                                   for chain in ("x-chain", "x_chain_id", "x_chain_vertex_id")])
def test_vertices_accept_the_x_chain(data: DataApi, chain: str) -> None:
    """listVerticesByHeight accepts the X-Chain ID, its vertex-era ID and x-chain."""
    blockchain = data.chain_id("x") if chain == "x_chain_id" else data.need(chain) if chain.endswith("_id") else chain
    checks.served(data.once("listVerticesByHeight", blockchainId=blockchain), "DATA-SEM-003",
                  f"listVerticesByHeight on {blockchain}")


@pytest.mark.rule("DATA-SEM-004")
def test_vertices_on_other_chains_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """The status listVerticesByHeight answers for a chain other than the X-Chain is recorded."""
    exchange = data.once("listVerticesByHeight", blockchainId="c-chain")
    observe("DATA-SEM-004", {"chain": "c-chain", "status": exchange.status})


@pytest.mark.parametrize("alias", list(ALIASES.values()))
@pytest.mark.parametrize("operation_id", routes("DATA-SEM-005", ["listUtxos", "listTransactions", "listBlocksByNode"],
                                                "listTransactions"))
def test_aliases_are_accepted(data: DataApi, operation_id: str, alias: str) -> None:
    """The aliases p-chain, x-chain and c-chain are accepted as blockchainId."""
    body = {"addresses": _bare(data.need("p_chain_address"))} if operation_id == "listUtxos" else None
    exchange = (data.once(operation_id, {"pageSize": 5}, blockchainId=alias, body=body) if body
                else data.once(operation_id, {"pageSize": 5}, blockchainId=alias))
    checks.served(exchange, "DATA-SEM-005", f"{operation_id} on {alias}")


def _bare(address: str) -> str:
    return address[2:] if len(address) > 2 and address[1] == "-" else address


#: (route, chain) pairs the aliases are compared on: quick compares each alias on the route every chain serves.
ALIAS_CASES = [("listTransactions", letter) for letter in "pxc"] + [
    ("listUtxos", "p"), ("listVerticesByHeight", "x"), ("listBlocksByNode", "p")]


@pytest.mark.rule("DATA-SEM-006")
@pytest.mark.parametrize(("operation_id", "letter"), [
    variant(op, letter, quick=op == "listTransactions", id=f"{op}-{ALIASES[letter]}") for op, letter in ALIAS_CASES])
def test_alias_is_the_chain(data: DataApi, operation_id: str, letter: str) -> None:
    """An alias returns the same data as the well-known chain ID it stands for (not merely some data)."""
    chain_id = data.chain_id(letter)
    same_answer(data, "DATA-SEM-006", operation_id, {"blockchainId": ALIASES[letter]}, {"blockchainId": chain_id},
                {"pageSize": 5})


@pytest.mark.rule("DATA-SEM-007")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_filters_without_addresses_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Whether listTransactions without addresses refuses or ignores txTypes and timestamps is recorded."""
    seen = {}
    tried = ({"txTypes": "BaseTx"}, {"startTimestamp": 1}, {"endTimestamp": 1})
    for params in tried if data.exhaustive else tried[:1]:
        exchange = data.call("listTransactions", {"pageSize": 5, **params})
        seen[next(iter(params))] = exchange.status
    observe("DATA-SEM-007", seen)


@pytest.mark.rule("DATA-SEM-008")
def test_chain_letter_prefix_is_optional(data: DataApi) -> None:
    """listTransactions returns the same transactions for an address with and without its chain letter prefix."""
    address = _bare(data.need("p_chain_address"))

    def value(exchange: Exchange) -> Any:
        return digest("listTransactions",
                      checks.served(exchange, "DATA-SEM-008", f"listTransactions at {exchange.url}"))
    without = data.once("listTransactions", {"addresses": address})   # also the time filter tests' listing
    outcome = live.agree_while_live(lambda: data.call("listTransactions", {"addresses": address}),
                                    lambda: data.call("listTransactions", {"addresses": f"P-{address}"}), value,
                                    earlier=(without, None), timeline=True)
    check(outcome.agreed, "DATA-SEM-008", "the chain letter prefix changes the transactions returned",
          expected="the same transactions", received=f"{outcome.second[:3]} vs {outcome.first[:3]}",
          exchange=outcome.exchange)


@pytest.mark.rule("DATA-SEM-009")
def test_c_chain_accepts_evm_addresses(data: DataApi) -> None:
    """listTransactions on the C-Chain accepts 0x EVM addresses."""
    address = data.sample("c_chain_evm_address") or data.need("evm_address")
    checks.served(data.call("listTransactions", {"addresses": address, "pageSize": 5}, blockchainId=data.chain("c")),
                  "DATA-SEM-009", "listTransactions on the C-Chain with a 0x address")


#: The EVM routes quick compares by both chain IDs: the deployment and the balances most clients read.
QUICK_EVM_ROUTES = ("getDeployment", "getNativeBalance", "listErc20Balances")


@pytest.mark.rule("DATA-SEM-010")
@pytest.mark.parametrize("operation_id", [variant(op, quick=op in QUICK_EVM_ROUTES, id=op) for op in EVM_ROUTES])
def test_blockchain_id_is_the_evm_chain(data: DataApi, operation_id: str) -> None:
    """An EVM chain's blockchain ID as chainId returns the same data as its EVM chain ID."""
    chain_id = data.need("evm_chain_id")
    blockchain_id = data.sample("evm_blockchain_id") or data.endpoints.evm_chain
    if not blockchain_id or blockchain_id == chain_id:
        pytest.skip("needs both the EVM chain ID and the blockchain ID")
    params = {"pageSize": 5} if checks.operation(operation_id).list_member else None
    same_answer(data, "DATA-SEM-010", operation_id, {"chainId": chain_id}, {"chainId": blockchain_id}, params)


@pytest.mark.rule("DATA-SEM-011")
def test_deployment_is_the_native_transaction(data: DataApi) -> None:
    """getDeployment for a contract returns the deploying transaction as nativeTransaction."""
    exchange = data.first("getDeployment")
    body = checks.served(exchange, "DATA-SEM-011", "getDeployment")
    native = body.get("nativeTransaction") if isinstance(body, dict) else None
    check(isinstance(native, dict) and native.get("txHash"), "DATA-SEM-011",
          "getDeployment does not return the deploying transaction", expected="a nativeTransaction with a txHash",
          received=native, exchange=exchange)
    expected = data.sample("deployment_tx_hash")
    if expected and isinstance(native, dict):   # not a dict: the check above has failed the rule
        check(str(native.get("txHash")).lower() == expected.lower(), "DATA-SEM-011",
              "getDeployment returns another transaction", expected=expected, received=native.get("txHash"),
              exchange=exchange)
    _, _, deployed = data.deployment()
    contract = data.address_for("getDeployment")
    # A token emits no transfer before the block that created it: a transfer listed before the deployment's block
    # says the transaction returned is not the one that deployed the contract.
    before = data.transfers_before(contract, deployed) if deployed is not None else None
    if before is not None:
        check(not before[1], "DATA-SEM-011", "getDeployment returns a transaction later than the contract's transfers",
              expected=f"the deploying transaction: no transfer of {contract} before its block {deployed}",
              received=f"transfers at blocks {[t.get('blockNumber') for t in before[1][:5]]}", exchange=exchange)


@pytest.mark.rule("DATA-SEM-012")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_deployment_of_a_wallet_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What getDeployment answers for an address that is not a contract is recorded."""
    exchange = data.call("getDeployment", address=data.need("evm_address"))
    observe("DATA-SEM-012", {"status": exchange.status, "body": exchange.text(200)})


def _currency_cases() -> list[Any]:
    """eur and jpy on each priced route; quick reads the answers of the currency enumeration test instead."""
    quick = [(currency_route(code), code) for code in QUICK_CURRENCIES]
    quick = [case for index, case in enumerate(quick) if case[0] not in [op for op, _ in quick[:index]]]
    more = [(op, code) for op in CURRENCY_ROUTES for code in ("eur", "jpy") if (op, code) not in quick]
    return [variant(op, code, quick=(op, code) in quick, id=f"{op}-{code}") for op, code in quick + more]


@pytest.mark.rule("DATA-SEM-013")
@pytest.mark.parametrize(("operation_id", "currency"), _currency_cases())
def test_prices_use_the_requested_currency(data: DataApi, operation_id: str, currency: str) -> None:
    """Price values carry the requested currency as currencyCode."""
    exchange = data.once(operation_id, {"currency": currency})
    body = checks.served(exchange, "DATA-SEM-013", f"{operation_id} with currency={currency}")
    # A code that is not a string, or not in lower case, is the currencyCode rule's (DATA-SHP-017) deviation alone.
    codes = [(p, v) for p, v in checks.formatted_values(body, checks.operation(operation_id).response_schema,
                                                        fmt="lowercase", within="Price") if isinstance(v, str)]
    if not codes:
        pytest.skip(f"the {operation_id} answer holds no Price value")
    wrong = [(p, v) for p, v in codes if v.lower() != currency]
    check(not wrong, "DATA-SEM-013", f"Price values do not use currency={currency}",
          expected=f"currencyCode {currency!r}", received="; ".join(f"{p} = {v!r}" for p, v in wrong[:5]),
          exchange=exchange)
    default = checks.operation(operation_id).schema_of("currency")["default"]
    if currency == default:
        return
    # The value is stated in the currency too, not only labelled with it: no two currencies trade at exactly one to
    # one, so a non-zero unit price equal to the default currency's is a price that was not converted.
    usd = checks.served(data.once(operation_id, {"currency": default}), "DATA-SEM-013",
                        f"{operation_id} with currency={default}")
    theirs = {path: value for path, _, value in checks.unit_prices(usd)}
    same = [(path, value) for path, _, value in checks.unit_prices(body)
            if checks.number(value) and checks.number(value) == checks.number(theirs.get(path))]
    check(not same, "DATA-SEM-013", f"Price values with currency={currency} are the {default} values",
          expected=f"unit prices converted to {currency}", received="; ".join(f"{p} = {v!r}" for p, v in same[:5]),
          exchange=exchange)


@pytest.mark.rule("DATA-SEM-014")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_transfers_of_a_wallet_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What listTokenTransfers answers for an address that is not a token contract is recorded."""
    exchange = data.call("listTokenTransfers", address=data.need("evm_address"))
    observe("DATA-SEM-014", {"status": exchange.status})


@pytest.mark.rule("DATA-SEM-015")
@pytest.mark.parametrize("operation_id", COLON_ROUTES)
def test_action_suffix_is_a_literal_colon(data: DataApi, operation_id: str) -> None:
    """The route is served at its literal path with an unencoded colon."""
    exchange = data.first(operation_id)
    action = checks.operation(operation_id).template.rsplit(":", 1)[1]
    assert f":{action}" in exchange.url, f"the request went out without a literal colon: {exchange.url}"
    checks.served(exchange, "DATA-SEM-015", f"{operation_id} at its literal path")


@pytest.mark.rule("DATA-SEM-016")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_chains_listing_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What GET /v1/chains answers is recorded."""
    exchange = data.rest.get("/v1/chains")
    body = exchange.json() if exchange.is_json() else None
    observe("DATA-SEM-016", {"status": exchange.status,
                             "members": sorted(body) if isinstance(body, dict) else type(body).__name__})
