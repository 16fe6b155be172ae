"""The reference can be crawled as a real chain can: its answers lead from listings to every identifier."""
from __future__ import annotations

import json
from typing import Any

import pytest
from werkzeug.test import Client

from conformance.discovery.node import TRANSFER
from conformance.reference.data_api.world import CHAIN_IDS, VERTEX_ERA_IDS
from conformance.reference.faults import REGISTRY
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World

WORLD = World(0)
DATA = WORLD.data
EVM = str(WORLD.evm_chain_id)
WALLET = DATA.wallet(EVM)
N = "/v1/networks/mainnet"
CLEAN = Client(ReferenceApp(WORLD))


def get(path: str, client: Client = CLEAN, **query: Any) -> Any:
    reply = client.get(path, query_string=query)
    assert reply.status_code == 200, reply.get_data()
    return json.loads(reply.get_data())


def post(path: str, body: Any, client: Client = CLEAN, **query: Any) -> Any:
    reply = client.post(path, query_string=query, data=json.dumps(body), content_type="application/json")
    assert reply.status_code == 200, reply.get_data()
    return json.loads(reply.get_data())


def rpc(method: str, params: list[Any]) -> Any:
    reply = CLEAN.post(f"/ext/bc/{WORLD.evm_blockchain_id}/rpc", data=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}), content_type="application/json")
    return json.loads(reply.get_data())["result"]


def test_the_newest_chain_is_the_l1_and_its_genesis_funds_the_wallet_most() -> None:
    newest = get(f"{N}/blockchains", pageSize=1, sortOrder="desc")["blockchains"][0]
    assert (newest["blockchainId"], newest["evmChainId"]) == (WORLD.evm_blockchain_id, WORLD.evm_chain_id)
    alloc = newest["genesisData"]["alloc"]
    funded = sorted((int(a["balance"], 16), f"0x{k}") for k, a in alloc.items() if a["code"] in ("", "0x"))
    assert funded[-1][1] == WALLET
    assert any(a["code"] not in ("", "0x") for a in alloc.values()), "a genesis contract carries its code"


@pytest.mark.parametrize(("route", "member"), [("balances:listErc20", "erc20TokenBalances"),
                                               ("balances:listErc721", "erc721TokenBalances"),
                                               ("balances:listErc1155", "erc1155TokenBalances")])
def test_the_funded_wallet_holds_every_kind_of_token(route: str, member: str) -> None:
    assert get(f"/v1/chains/{EVM}/addresses/{WALLET}/{route}")[member]


def test_c_chain_atomic_transactions_name_the_0x_address_they_credit() -> None:
    listed = get(f"{N}/blockchains/c-chain/transactions", pageSize=10)["transactions"]
    addresses = {a for tx in listed for u in tx["emittedUtxos"] for a in u["addresses"]}
    assert DATA.hot_evm_address("mainnet") in addresses


def test_the_oldest_x_chain_utxos_were_created_in_the_vertex_era() -> None:
    body = {"addresses": DATA.hot_address("mainnet")}
    oldest = post(f"{N}/blockchains/x-chain/utxos", body, pageSize=3, sortOrder="asc")["utxos"]
    newest = post(f"{N}/blockchains/x-chain/utxos", body, pageSize=3, sortOrder="desc")["utxos"]
    assert {u["createdOnChainId"] for u in oldest} == {VERTEX_ERA_IDS["mainnet"]}
    assert {u["createdOnChainId"] for u in newest} == {CHAIN_IDS["mainnet"]["x"]}


def test_the_node_logs_name_the_tokens_and_wallet_the_data_api_knows() -> None:
    head = int(rpc("eth_blockNumber", []), 16)
    logs = rpc("eth_getLogs", [{"fromBlock": hex(head - 200), "toBlock": hex(head), "topics": [TRANSFER]}])
    contracts = {log["address"] for log in logs}
    holders = {"0x" + topic[-40:] for log in logs for topic in log["topics"][1:]}
    assert contracts <= set(DATA.contracts(EVM)) and contracts
    assert WALLET in holders


@pytest.mark.parametrize(("fault", "path", "body"), [
    ("XChainOutputIndexIsString", f"{N}/blockchains/x-chain/utxos", {"addresses": DATA.hot_address("mainnet")}),
    ("CChainAmountsAreNumbers", f"{N}/blockchains/c-chain/transactions", None),
    ("XChainBlockTimestampIsString", f"{N}/blockchains/x-chain/nodes/{DATA.nodes('mainnet')[0]}/blocks", None)])
def test_a_chain_fault_changes_that_chain_alone(fault: str, path: str, body: Any) -> None:
    faulty = Client(ReferenceApp(WORLD, [REGISTRY[fault]()]))

    def both(route: str) -> tuple[Any, Any]:
        if body is None:
            return get(route), get(route, faulty)
        return post(route, body), post(route, body, faulty)
    clean, broken = both(path)
    assert clean != broken
    p_chain = path.replace("x-chain", "p-chain").replace("c-chain", "p-chain")
    assert both(p_chain)[0] == both(p_chain)[1]
