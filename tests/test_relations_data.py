"""The Data API's relations between answers: the reference keeps each one, each relation fault changes what it
answers, the checks read every page and every value they are given, and discovery uses only what a second route
confirms."""
from __future__ import annotations

import json
from typing import Any

import pytest
from werkzeug.test import Client

from conformance import pagination
from conformance.checks import data as checks
from conformance.checks.data_pages import DataWalk, assert_every_page
from conformance.clients.http import HttpSession
from conformance.discovery import discover
from conformance.errors import Violation
from conformance.reference import ReferenceServer
from conformance.reference.data_api.world import CHAIN_IDS
from conformance.reference.faults import REGISTRY, fault_named
from conformance.reference.middleware import Fault
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World
from conformance.specs import ALL_APIS

WORLD = World(0)
DATA = WORLD.data
EVM = str(WORLD.evm_chain_id)
WALLET = DATA.wallet(EVM)
TOKEN = DATA.erc20(EVM, 0)
N = "/v1/networks/mainnet"
A = f"/v1/chains/{EVM}/addresses/{WALLET}"
HOT = DATA.hot_address("mainnet")
CLEAN = Client(ReferenceApp(WORLD))


def answer(client: Client, path: str, **query: Any) -> tuple[int, Any]:
    """The status and body of a GET, or of the UTXO route's POST with the known address's body."""
    if path.endswith("/utxos"):
        reply = client.post(path, query_string=query, data=json.dumps({"addresses": HOT}),
                            content_type="application/json")
    else:
        reply = client.get(path, query_string=query)
    return reply.status_code, json.loads(reply.get_data())


def get(path: str, **query: Any) -> Any:
    status, body = answer(CLEAN, path, **query)
    assert status == 200, body
    return body


# (a) the reference keeps every relation -----------------------------------------------------------------------

def test_an_erc20_balance_follows_the_wallet_s_transfers_of_the_token() -> None:
    transfers = get(f"/v1/chains/{EVM}/tokens/{TOKEN}/transfers", pageSize=100)["transfers"]
    mine = [t for t in transfers if WALLET in (t["from"]["address"], t["to"]["address"])]
    assert mine
    block = int(mine[0]["blockNumber"])
    change = sum(int(t["value"]) * ((t["to"]["address"] == WALLET) - (t["from"]["address"] == WALLET))
                 for t in transfers if int(t["blockNumber"]) == block)

    def balance(at: int) -> int:
        body = get(f"{A}/balances:listErc20", blockNumber=str(at), contractAddresses=TOKEN)
        return int(body["erc20TokenBalances"][0]["balance"])
    assert change and balance(block) - balance(block - 1) == change


def test_no_token_balance_before_the_token_was_deployed() -> None:
    deployed = int(get(f"/v1/chains/{EVM}/contracts/{TOKEN}/transactions:getDeployment")
                   ["nativeTransaction"]["blockNumber"])
    assert get(f"{A}/balances:listErc20", blockNumber=str(deployed - 1), contractAddresses=TOKEN)[
        "erc20TokenBalances"] == []
    before = get(f"/v1/chains/{EVM}/tokens/{TOKEN}/transfers", endBlock=deployed)["transfers"]
    assert before == []


def test_a_deployer_pays_for_its_deployment_in_its_block() -> None:
    native = get(f"/v1/chains/{EVM}/contracts/{TOKEN}/transactions:getDeployment")["nativeTransaction"]
    block, sender = int(native["blockNumber"]), native["from"]["address"]

    def balance(at: int) -> int:
        path = f"/v1/chains/{EVM}/addresses/{sender}/balances:getNative"
        return int(get(path, blockNumber=str(at))["nativeTokenBalance"]["balance"])
    assert balance(block - 1) - balance(block) >= int(native["gasUsed"]) * int(native["gasPrice"]) > 0


def test_an_erc1155_balance_follows_the_wallet_s_transfers_of_the_token() -> None:
    transfer = get(f"{A}/transactions:listErc1155")["transactions"][0]
    block, token = int(transfer["blockNumber"]), transfer["erc1155Token"]
    same = get(f"{A}/transactions:listErc1155", startBlock=block, endBlock=block + 1)["transactions"]
    change = sum(int(t["value"]) * ((t["to"]["address"] == WALLET) - (t["from"]["address"] == WALLET))
                 for t in same if t["erc1155Token"]["tokenId"] == token["tokenId"])

    def balance(at: int) -> int:
        held = get(f"{A}/balances:listErc1155", blockNumber=str(at), contractAddress=token["address"], pageSize=100)
        return sum(int(b["balance"]) for b in held["erc1155TokenBalances"] if b["tokenId"] == token["tokenId"])
    assert change and balance(block) - balance(block - 1) == change


def test_networks_list_their_own_blockchains_and_name_themselves() -> None:
    mainnet = {c["blockchainId"] for c in get(f"{N}/blockchains", pageSize=10000)["blockchains"]}
    test = {c["blockchainId"] for c in get("/v1/networks/fuji/blockchains", pageSize=10000)["blockchains"]}
    assert mainnet and test and not mainnet & test
    for network in ("mainnet", "fuji", "testnet"):
        info = get(f"/v1/networks/{network}/blockchains/p-chain/transactions")["chainInfo"]
        assert checks.same_network(info["network"], network)


def test_the_spec_s_well_known_ids_are_the_ones_the_aliases_stand_for() -> None:
    for network, ids in CHAIN_IDS.items():
        assert checks.well_known_chain_ids(network) == {f"{letter}-chain": ids[letter] for letter in "pxc"}
    assert checks.well_known_chain_ids("fuji") == checks.well_known_chain_ids("testnet")
    assert get(f"{N}/blockchains/x-chain/transactions") == \
        get(f"{N}/blockchains/{checks.well_known_chain_ids('mainnet')['x-chain']}/transactions")


# (b) each relation fault changes an answer --------------------------------------------------------------------

def _second_page(path: str, **query: Any) -> tuple[str, dict[str, Any]]:
    token = answer(CLEAN, path, **query)[1]["nextPageToken"]
    return path, {**query, "pageToken": token}


P = f"{N}/blockchains/p-chain"
NODE = DATA.nodes("mainnet")[0]
TRANSFER_BLOCK = DATA.transfer_block(EVM, "erc721", 250)
DEPLOYED = DATA.deployment_block(EVM, TOKEN)
#: A request whose answer each fault of faults/chains.py changes.
PROBES: dict[str, tuple[str, dict[str, Any]]] = {
    "XChainOutputIndexIsString": (f"{N}/blockchains/x-chain/utxos", {}),
    "CChainAmountsAreNumbers": (f"{N}/blockchains/c-chain/transactions", {}),
    "XChainBlockTimestampIsString": (f"{N}/blockchains/x-chain/nodes/{NODE}/blocks", {}),
    "ValidatorsStatusOnFirstPageOnly": _second_page(f"{N}/validators", validationStatus="active"),
    "TransactionsTxTypesOnFirstPageOnly": _second_page(f"{P}/transactions", addresses=HOT, txTypes="ImportTx,BaseTx"),
    "UtxosMinAmountOnFirstPageOnly": _second_page(f"{P}/utxos", minUtxoAmount=10**9),
    "BlocksStartTimestampOnFirstPageOnly": _second_page(f"{P}/nodes/{NODE}/blocks",
                                                        startTimestamp=DATA.blocks("mainnet", "p", NODE)[-12].ts),
    "VerticesFromTheRequestedHeightUp": (f"{N}/blockchains/x-chain/vertices:listByHeight",
                                         {"vertexHeight": 5, "sortOrder": "asc", "pageSize": 100}),
    "L1TransactionsOfEveryValidation": (f"{P}/transactions", {"l1ValidationId": DATA.l1_validation_ids("mainnet")[0]}),
    "TransactionsAddressesOnlyEnableFilters": (f"{P}/transactions", {"addresses": HOT}),
    "TransactionsEndTimestampInMilliseconds": (f"{P}/transactions", {"addresses": HOT, "endTimestamp": DATA.t0}),
    "BlocksStartTimestampOneDayLate": (f"{P}/nodes/{NODE}/blocks", {"startTimestamp": DATA.t0 - 86400 * 3}),
    "Erc1155TransfersOfTheCollection": (f"{A}/transactions:listErc1155", {}),
    "TokenTransfersOfEveryToken": (f"/v1/chains/{EVM}/tokens/{TOKEN}/transfers", {}),
    "Erc20ContractAddressesFirstOnly": (f"{A}/balances:listErc20",
                                        {"contractAddresses": f"{TOKEN},{DATA.erc20(EVM, 1)}"}),
    "NodeValidationsWithoutCompleted": (f"{N}/validators/{NODE}", {"pageSize": 100}),
    "Erc20BalancesBlockNumberIgnored": (f"{A}/balances:listErc20", {"blockNumber": str(DEPLOYED + 10)}),
    "NativeBalanceBlockNumberIgnored": (f"{A}/balances:getNative", {"blockNumber": "1000"}),
    "Erc1155BalancesBlockNumberIgnored": (f"{A}/balances:listErc1155", {"blockNumber": str(TRANSFER_BLOCK),
                                                                        "pageSize": 100}),
    "DeploymentIsTheLatestTransaction": (f"/v1/chains/{EVM}/contracts/{TOKEN}/transactions:getDeployment", {}),
    "MainnetBlockchainsFromTheTestNetwork": (f"{N}/blockchains", {}),
    "ChainInfoNetworkAlwaysMainnet": ("/v1/networks/fuji/blockchains/p-chain/transactions", {}),
    "BalancesNameTheCChain": (f"{A}/balances:getNative", {}),
    "XChainAliasServedFromThePChain": (f"{N}/blockchains/x-chain/transactions", {}),
    "TransfersEndBlockOneEarly": (f"{A}/transactions:listErc721", {"endBlock": TRANSFER_BLOCK + 1}),
    "ValidatorsDefaultPageOldestFirst": (f"{N}/validators", {}),
    "NativeBalanceDefaultPricesInEur": (f"{A}/balances:getNative", {}),
    "PricesLabelledNotConverted": (f"{A}/balances:getNative", {"currency": "gbp"}),
}
CHAIN_FAULTS = sorted(name for name, cls in REGISTRY.items() if cls.__module__.endswith("faults.chains"))


@pytest.mark.parametrize("name", CHAIN_FAULTS)
def test_the_fault_changes_the_answer(name: str) -> None:
    path, query = PROBES[name]
    faulty = Client(ReferenceApp(WORLD, [REGISTRY[name]()]))
    assert answer(CLEAN, path, **query) != answer(faulty, path, **query)


def test_every_relation_fault_has_a_probe_and_a_summary() -> None:
    assert set(CHAIN_FAULTS) == set(PROBES)
    for name in CHAIN_FAULTS:
        cls: type[Fault] = REGISTRY[name]
        assert cls.breaks and cls.summary(), name


# (c) the checks --------------------------------------------------------------------------------------------------

class _Exchange:
    """Just enough of an Exchange for a check's report."""

    status, url, method, content_type, body = 200, "http://target/x", "GET", "application/json", b"{}"

    def text(self, limit: int = 0) -> str:
        return "{}"

    def curl(self) -> str:
        return "curl http://target/x"


def _walk(*pages: list[dict[str, Any]]) -> DataWalk:
    walked = pagination.Walk(pages=[{"validators": list(page)} for page in pages],
                             exchanges=[_Exchange() for _ in pages])  # type: ignore[misc]  # stand-in exchanges
    return DataWalk("listValidators", 2, walked)


def test_a_filter_kept_on_the_first_page_only_fails_on_the_second() -> None:
    walk = _walk([{"validationStatus": "active"}] * 2,
                 [{"validationStatus": "active"}, {"validationStatus": "removed"}])
    with pytest.raises(Violation) as raised:
        assert_every_page(walk, "DATA-FLT-001", lambda v: v["validationStatus"] == "active", summary="other statuses",
                          expected="only active", shown=lambda v: v["validationStatus"])
    assert "on page 2 of a walk" in raised.value.summary
    kept = _walk([{"validationStatus": "active"}], [{"validationStatus": "active"}])
    assert assert_every_page(kept, "DATA-FLT-001", lambda v: v["validationStatus"] == "active", summary="",
                             expected="", shown=lambda v: v) == 2


def test_an_item_names_an_address_anywhere_in_it() -> None:
    tx = {"emittedUtxos": [{"addresses": ["avax1abc"]}], "memo": ""}
    assert checks.mentions(tx, "avax1abc") and not checks.mentions(tx, "avax1xyz")
    assert checks.mentions({"from": {"address": "0xABCdef"}}, "0xabcDEF")
    assert checks.bare_address("P-avax1abc") == "avax1abc" == checks.bare_address("avax1abc")


def test_unit_prices_leave_out_the_values_of_balances() -> None:
    body = {"price": {"currencyCode": "usd", "value": "2"}, "balanceValue": {"currencyCode": "usd", "value": "9"},
            "items": [{"price": {"currencyCode": "usd", "value": "3"}}]}
    assert checks.unit_prices(body) == [("/price", "usd", "2"), ("/items/0/price", "usd", "3")]


# (d) discovery uses only what a second route confirms ---------------------------------------------------------

def _crawl(*faults: str) -> Any:
    """What discovery finds with the node's EVM chain given, as the self-tests' runs give it."""
    with ReferenceServer(faults=[fault_named(name) for name in faults]) as server:
        info = server.info()
        return discover(HttpSession(), apis=tuple(ALL_APIS), node_url=server.url, data_url=server.url,
                        evm_chain=str(info["evm_blockchain_id"])), info


def test_a_mainnet_listing_of_the_test_network_s_chains_names_no_evm_chain() -> None:
    found, info = _crawl("MainnetBlockchainsFromTheTestNetwork")
    assert any("names too" in note for note in found.notes)
    # the node's chain is tested instead: no identifier of the test network's chains is used
    assert found.value("data_evm_chain_id") == str(info["evm_chain_id"])


def test_an_evm_chain_whose_balances_are_not_served_gives_way_to_the_node_s() -> None:
    found, info = _crawl("DescendingOrderIgnored")
    assert found.value("data_evm_chain_id") == str(info["evm_chain_id"])
    assert any("not served" in note for note in found.notes)
