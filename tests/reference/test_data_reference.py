"""The reference's data API answers as 2-data-api.md says, and each data fault changes what it answers."""
from __future__ import annotations

import json
from typing import Any

import pytest
from werkzeug.test import Client

from conformance.reference.data_api.world import CHAIN_IDS, PRIMARY_NETWORK_ID, VERTEX_ERA_IDS
from conformance.reference.faults import REGISTRY
from conformance.reference.middleware import Fault
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World
from conformance.rules import load_catalogue

WORLD = World(0)
DATA = WORLD.data
HOT = DATA.hot_address("mainnet")
EVM = str(WORLD.evm_chain_id)
WALLET = DATA.wallet(EVM)
TOKEN = DATA.erc20(EVM, 0)
NODE = DATA.nodes("mainnet")[0]
L1 = DATA.l1_validation_ids("mainnet")[0]
N = "/v1/networks/mainnet"
P, X, C = (f"{N}/blockchains/{c}" for c in ("p-chain", "x-chain", "c-chain"))
A = f"/v1/chains/{EVM}/addresses/{WALLET}"
CLEAN = Client(ReferenceApp(WORLD))

Request = tuple[str, str, dict[str, Any], Any]


def get(path: str, **query: Any) -> Request:
    return ("GET", path, query, None)


def utxos(chain: str = X, body: Any = None, **query: Any) -> Request:
    return ("POST", f"{chain}/utxos", query, {"addresses": HOT} if body is None else body)


def send(client: Client, request: Request, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    method, path, query, body = request
    with_body = body is not None
    reply = client.open(path, method=method, query_string=query, headers=headers or {},
                        data=json.dumps(body) if with_body else None,
                        content_type="application/json" if with_body else None)
    return reply.status_code, reply.headers.get("Content-Type", ""), reply.get_data()


def answer(request: Request) -> tuple[int, Any]:
    status, _, raw = send(CLEAN, request)
    return status, json.loads(raw)


def walk(request: Request, name: str) -> list[dict[str, Any]]:
    method, path, query, body = request
    items, token = [], None
    for _ in range(100):
        status, page = answer((method, path, {**query, **({"pageToken": token} if token else {})}, body))
        assert status == 200, page
        items += page[name]
        token = page.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("the walk did not end")


# (a) the document's statements --------------------------------------------------------------------------------

@pytest.mark.parametrize(("request_", "name", "default", "maximum"), [
    (utxos(), "utxos", 10, 1024), (get(f"{P}/transactions", addresses=HOT), "transactions", 10, 100),
    (get(f"{N}/blockchains"), "blockchains", 100, 10000), (get(f"{N}/validators"), "validators", 10, 100),
    (get(f"{N}/validators/{NODE}"), "validators", 10, 100),
    (get(f"{A}/transactions:listErc721"), "transactions", 10, 100),
    (get(f"{A}/transactions:listErc1155"), "transactions", 10, 100),
    (get(f"/v1/chains/{EVM}/tokens/{TOKEN}/transfers"), "transfers", 10, 100),
    (get(f"{A}/balances:listErc20"), "erc20TokenBalances", 10, 500),
    (get(f"{A}/balances:listErc1155"), "erc1155TokenBalances", 10, 500),
    (get(f"{A}/balances:listErc721"), "erc721TokenBalances", 10, 500),
    (get(f"{X}/vertices:listByHeight", vertexHeight=3), "vertices", 10, 100),
    (get(f"{C}/nodes/{NODE}/blocks"), "blocks", 10, 100)])
def test_page_sizes_default_and_bounds(request_: Request, name: str, default: int, maximum: int) -> None:
    method, path, query, body = request_
    status, page = answer(request_)
    assert status == 200 and len(page[name]) == default and isinstance(page["nextPageToken"], str)
    assert answer((method, path, {**query, "pageSize": default}, body)) == (status, page)
    for size, ok in ((0, False), (1, True), (maximum, True), (maximum + 1, False)):
        status, body_ = answer((method, path, {**query, "pageSize": size}, body))
        assert status == (200 if ok else 400), (size, body_)
        if not ok:
            assert body_ == {"message": body_["message"], "statusCode": 400, "error": "Bad Request"}


def test_walks_end_without_repeats_in_order() -> None:
    txs = walk(get(f"{P}/transactions", addresses=f"P-{HOT}", pageSize=100, sortOrder="asc"), "transactions")
    assert len(txs) >= 300 and len({t["txHash"] for t in txs}) == len(txs)
    assert [t["blockTimestamp"] for t in txs] == sorted(t["blockTimestamp"] for t in txs)
    chains = walk(get(f"{N}/blockchains", sortOrder="desc", pageSize=200), "blockchains")
    assert len(chains) == 450
    assert ([c["createBlockTimestamp"] for c in chains]
            == sorted((c["createBlockTimestamp"] for c in chains), reverse=True))
    found = walk(utxos(pageSize=1024, sortBy="amount", sortOrder="asc", includeSpent="true"), "utxos")
    assert len(found) == 2100 and [int(u["amount"]) for u in found] == sorted(int(u["amount"]) for u in found)


def test_fuji_and_testnet_and_aliases_answer_identically() -> None:
    for route in ("validators", "blockchains/x-chain/transactions", "blockchains"):
        assert answer(get(f"/v1/networks/fuji/{route}")) == answer(get(f"/v1/networks/testnet/{route}"))
    assert answer(get(f"{X}/vertices:listByHeight", vertexHeight=9)) == \
        answer(get(f"{N}/blockchains/{VERTEX_ERA_IDS['mainnet']}/vertices:listByHeight", vertexHeight=9)) == \
        answer(get(f"{N}/blockchains/{CHAIN_IDS['mainnet']['x']}/vertices:listByHeight", vertexHeight=9))
    assert answer(get(f"{P}/transactions", addresses=HOT)) == \
        answer(get(f"{N}/blockchains/{PRIMARY_NETWORK_ID}/transactions", addresses=HOT))
    assert answer(get(f"{A}/balances:listErc20")) == \
        answer(get(f"/v1/chains/{WORLD.evm_blockchain_id}/addresses/{WALLET}/balances:listErc20"))


def test_refusals() -> None:
    refused: tuple[Request, ...] = (
        get("/v1/networks/moon/blockchains"), get(f"{N}/blockchains", sortOrder="up"),
        get(f"{P}/vertices:listByHeight", vertexHeight=1), get(f"{X}/vertices:listByHeight"),
        utxos(body={}), ("POST", f"{X}/utxos", {}, None), get(f"{N}/blockchains/nope/transactions"),
        get(f"{N}/validators", minFeePercentage=1), get(f"{N}/validators", maxDelegationCapacity="720000000000000001"),
        get(f"{A}/balances:getNative", currency="xyz"), get(f"{N}/validators", sortBy="delegationFee"))
    for request in refused:
        status, body = answer(request)
        assert status == 400 and body["statusCode"] == 400 and body["error"] == "Bad Request", request
    assert answer(get("/v1/networks/mainnet/nothing"))[0] == 404


def test_validator_filters() -> None:
    active = walk(get(f"{N}/validators", validationStatus="active", pageSize=100), "validators")
    assert active and {v["validationStatus"] for v in active} == {"active"}
    fees = walk(get(f"{N}/validators", minFeePercentage=5, pageSize=100), "validators")
    assert fees and all(v["delegationFee"] is not None and float(v["delegationFee"]) >= 5 for v in fees)
    everything = walk(get(f"{N}/validators", pageSize=100), "validators")
    assert any(v["subnetId"] != PRIMARY_NETWORK_ID for v in everything)
    part = NODE[7:15]
    assert NODE in {v["nodeId"] for v in walk(get(f"{N}/validators", nodeIds=part, pageSize=100), "validators")}
    ordered = walk(get(f"{N}/validators", sortBy="timeRemaining", sortOrder="asc", pageSize=100), "validators")
    assert [v["endTimestamp"] for v in ordered] == sorted(v["endTimestamp"] for v in ordered)


def test_transaction_and_block_filters() -> None:
    l1 = walk(get(f"{P}/transactions", l1ValidationId=L1, txTypes="RegisterL1ValidatorTx", pageSize=100),
              "transactions")
    assert l1 and {t["txType"] for t in l1} == {"RegisterL1ValidatorTx"}
    newest = answer(get(f"{C}/transactions", addresses=DATA.hot_evm_address("mainnet")))[1]["transactions"]
    assert newest
    cut = newest[5]["blockTimestamp"]
    later = walk(get(f"{C}/transactions", addresses=HOT, startTimestamp=cut, pageSize=100), "transactions")
    assert later and min(t["blockTimestamp"] for t in later) >= cut
    blocks = walk(get(f"{P}/nodes/{NODE}/blocks", endTimestamp=cut, pageSize=100), "blocks")
    assert blocks and all(b["blockTimestamp"] <= cut and b["proposerDetails"]["proposerNodeId"] == NODE for b in blocks)


def test_block_ranges_and_balances() -> None:
    path = f"{A}/transactions:listErc721"
    every = walk(get(path, pageSize=100), "transactions")
    block = int(every[40]["blockNumber"])
    from_block = walk(get(path, startBlock=block, pageSize=100), "transactions")
    assert from_block == every[:41]
    until = walk(get(path, endBlock=block, pageSize=100), "transactions")
    assert until == every[41:]
    spam = walk(get(f"{A}/balances:listErc20", filterSpamTokens="false", pageSize=100), "erc20TokenBalances")
    clean = walk(get(f"{A}/balances:listErc20", pageSize=100), "erc20TokenBalances")
    assert len(spam) > len(clean) and {b["address"] for b in clean} < {b["address"] for b in spam}
    status, native = answer(get(f"{A}/balances:getNative", currency="jpy"))
    assert status == 200 and native["nativeTokenBalance"]["price"]["currencyCode"] == "jpy"
    status, deployment = answer(get(f"/v1/chains/{EVM}/contracts/{TOKEN}/transactions:getDeployment"))
    assert status == 200 and deployment["nativeTransaction"]["to"]["address"] == TOKEN


def test_live_world_grows_without_repeating() -> None:
    world = World(3)
    client = Client(ReferenceApp(world))
    path = "/v1/networks/mainnet/blockchains/p-chain/transactions"
    first = json.loads(client.get(path, query_string={"pageSize": 5, "sortOrder": "asc"}).get_data())
    before = len(world.data.txs("mainnet", "p"))
    for _ in range(5):
        world.advance()
    assert len(world.data.txs("mainnet", "p")) == before + 5
    following = json.loads(client.get(path, query_string={"pageSize": 5, "sortOrder": "asc",
                                                          "pageToken": first["nextPageToken"]}).get_data())
    assert not {t["txHash"] for t in first["transactions"]} & {t["txHash"] for t in following["transactions"]}



@pytest.mark.parametrize("kind", ["Erc20", "Erc721", "Erc1155"])
def test_balance_walk_reads_one_block_while_the_chain_advances(kind: str) -> None:
    world = World(7)
    client = Client(ReferenceApp(world))
    chain = str(world.evm_chain_id)
    path = f"/v1/chains/{chain}/addresses/{world.data.wallet(chain)}/balances:list{kind}"
    first = json.loads(client.get(path, query_string={"pageSize": 2}).get_data())
    for _ in range(3):
        world.advance()
    reply = client.get(path, query_string={"pageSize": 2, "pageToken": first["nextPageToken"]})
    assert reply.status_code == 200, reply.get_data()
    assert json.loads(reply.get_data())["nativeTokenBalance"] == first["nativeTokenBalance"]

# (b) every fault changes an answer --------------------------------------------------------------------------

T, DEP, TR = f"{P}/transactions", f"/v1/chains/{EVM}/contracts/{TOKEN}/transactions:getDeployment", \
    f"/v1/chains/{EVM}/tokens/{TOKEN}/transfers"
V, VN, B = f"{N}/validators", f"{N}/validators/{NODE}", f"{C}/nodes/{NODE}/blocks"
VX = f"{X}/vertices:listByHeight"
E721, E1155 = f"{A}/transactions:listErc721", f"{A}/transactions:listErc1155"
B20, B1155, B721, NAT = (f"{A}/balances:{a}" for a in ("listErc20", "listErc1155", "listErc721", "getNative"))
SOME = DATA.nodes("mainnet")
BLOCK = DATA.transfer_block(EVM, "erc721", 250)
PROBES: dict[str, Request] = {
    "BlockchainsBodyNotJson": get(f"{N}/blockchains"), "OkBodyServedAsText": get(f"{N}/blockchains"),
    "UtxosChainInfoIsString": utxos(), "TransactionsChainInfoIsString": get(T),
    "DeploymentInternalTransactionsNotArray": get(DEP), "BlockchainEvmChainIdIsString": get(f"{N}/blockchains"),
    "ValidatorDelegatorCountIsString": get(V), "NodeValidatorAmountStakedIsNumber": get(VN),
    "Erc721TransferLogIndexIsString": get(E721), "Erc1155TransferValueIsNumber": get(E1155),
    "TokenTransfersListMisnamed": get(TR), "Erc20BalanceDecimalsIsString": get(B20),
    "Erc1155BalanceMetadataIsText": get(B1155), "Erc721BalanceMetadataIsText": get(B721),
    "NativeBalanceDecimalsIsString": get(NAT), "VertexTxCountIsString": get(VX, vertexHeight=1),
    "BlockSizeIsString": get(B), "AssetAmountInWholeUnits": utxos(), "CurrencyCodeUpperCase": get(NAT),
    "PriceValueScientific": get(NAT), "PriceValueIsNumber": get(NAT),
    "UtxosPageSizeCappedAt100": utxos(pageSize=101), "GenesisTimestampIsDate": get(f"{N}/blockchains"),
    "GenesisAllocBalanceIsFloat": get(f"{N}/blockchains"), "Erc20TransferValueIsNumber": get(TR),
    "UtxosPageSizeOverMaxServed": utxos(pageSize=1025), "TransactionsPageSizeOverMaxServed": get(T, pageSize=101),
    "BlockchainsPageSizeOverMaxServed": get(f"{N}/blockchains", pageSize=10001),
    "ValidatorsPageSizeOverMaxServed": get(V, pageSize=101),
    "NodeValidatorsPageSizeOverMaxServed": get(VN, pageSize=101),
    "Erc721TransfersPageSizeOverMaxServed": get(E721, pageSize=101),
    "Erc1155TransfersPageSizeOverMaxServed": get(E1155, pageSize=101),
    "TokenTransfersPageSizeOverMaxServed": get(TR, pageSize=101),
    "Erc20BalancesPageSizeOverMaxServed": get(B20, pageSize=501),
    "Erc1155BalancesPageSizeOverMaxServed": get(B1155, pageSize=501),
    "Erc721BalancesPageSizeOverMaxServed": get(B721, pageSize=501),
    "VerticesPageSizeOverMaxServed": get(VX, vertexHeight=1, pageSize=101),
    "BlocksPageSizeOverMaxServed": get(B, pageSize=101),
    "TransactionsNegativeStartAccepted": get(T, addresses=HOT, startTimestamp=-1),
    "TransactionsNegativeEndAccepted": get(T, addresses=HOT, endTimestamp=-1),
    "BlocksNegativeTimestampAccepted": get(B, startTimestamp=-1),
    "NegativeVertexHeightAccepted": get(VX, vertexHeight=-1),
    "NegativeMinUtxoAmountAccepted": utxos(minUtxoAmount=-1),
    "DelegationCapacityBoundsClamped": get(V, maxDelegationCapacity="720000000000000001"),
    "TimeRemainingBoundsClamped": get(V, minTimeRemaining=2147483648),
    "MinFeeBoundsClamped": get(V, minFeePercentage=1),
    "MaxFeeBoundsClamped": get(V, maxFeePercentage=101), "MinUptimeBoundsClamped": get(V, minUptimePerformance=-1),
    "MaxUptimeBoundsClamped": get(V, maxUptimePerformance=101),
    "UtxosDefaultPageSizeWrong": utxos(), "TransactionsDefaultPageSizeWrong": get(T),
    "BlockchainsDefaultPageSizeWrong": get(f"{N}/blockchains"), "ValidatorsDefaultPageSizeWrong": get(V),
    "NodeValidatorsDefaultPageSizeWrong": get(VN), "Erc721TransfersDefaultPageSizeWrong": get(E721),
    "Erc1155TransfersDefaultPageSizeWrong": get(E1155), "TokenTransfersDefaultPageSizeWrong": get(TR),
    "Erc20BalancesDefaultPageSizeWrong": get(B20), "Erc1155BalancesDefaultPageSizeWrong": get(B1155),
    "Erc721BalancesDefaultPageSizeWrong": get(B721), "VerticesDefaultPageSizeWrong": get(VX, vertexHeight=2),
    "BlocksDefaultPageSizeWrong": get(B), "DeploymentDefaultCurrencyEur": get(DEP),
    "Erc20BalancesDefaultCurrencyEur": get(B20), "NativeBalanceDefaultCurrencyEur": get(NAT),
    "UtxosDefaultMinAmountSkipsDust": utxos(), "SpamTokensShownByDefault": get(B20),
    "MinUptimeDefaultZero": get(V), "MaxUptimeDefaultTooLow": get(V),
    "Erc20BalancesStaleDefaultBlock": get(B20), "NativeBalanceStaleDefaultBlock": get(NAT),
    "UnknownNetworkServedAsMainnet": get("/v1/networks/moon/validators"),
    "TestnetNetworkRefused": get("/v1/networks/testnet/validators"),
    "UnknownSortOrderIgnored": get(f"{N}/blockchains", sortOrder="newest"),
    "UnknownCurrencyServedInUsd": get(NAT, currency="xyz"), "SomeCurrenciesRefused": get(NAT, currency="huf"),
    "ValidatorsUnknownStatusIgnored": get(V, validationStatus="done"),
    "NodeValidatorsUnknownStatusIgnored": get(VN, validationStatus="done"),
    "UtxosUnknownSortByIgnored": utxos(sortBy="size"), "UtxosSortByAmountRefused": utxos(sortBy="amount"),
    "ValidatorsUnknownSortByIgnored": get(V, sortBy="age"),
    "ValidatorsSortByUptimeRefused": get(V, sortBy="uptimePerformance"),
    "UnknownBlockchainServedAsPChain": get(f"{N}/blockchains/nope/transactions"),
    "VertexHeightDefaultsToZero": get(VX), "UtxosWithoutAddressesServeNothing": utxos(body={}),
    "ErrorBodyIsText": get(V, pageSize=0), "ErrorServedAsHtml": get(V, pageSize=0),
    "ErrorMessageIsList": get(V, pageSize=0), "ErrorStatusCodeIsString": get(V, pageSize=0),
    "NotFoundBodySays400": get(f"{N}/nothing"), "ErrorPhraseMissing": get(V, pageSize=0),
    "BadRequestPhraseWrong": get(V, pageSize=0), "BadRequestsAre422": get(V, pageSize=0),
    "BlockchainsPageOverfull": get(f"{N}/blockchains", pageSize=5), "ValidatorsTokenMissing": get(V),
    "TokenOnLastPage": get(f"{N}/blockchains", pageSize=10000), "PagesOverlapByOne": None,  # type: ignore[dict-item]  # no request shows it
    "TokenSkipsAPage": None, "PagesSortedOnlyWithin": get(f"{N}/blockchains", pageSize=5),  # type: ignore[dict-item]  # no request shows it
    "AscendingOrderIgnored": get(f"{N}/blockchains", sortOrder="asc"),
    "DescendingOrderIgnored": get(f"{N}/blockchains", sortOrder="desc"),
    "BlockchainsDescendingPagesReversed": get(f"{N}/blockchains", sortOrder="desc"),
    "UtxosSortByTimestampIgnored": utxos(sortBy="timestamp"), "UtxosSortByAmountIgnored": utxos(sortBy="amount"),
    "ValidatorsSortByTimeRemainingIgnored": get(V, sortBy="timeRemaining"),
    "ValidatorsSortByFeeIgnored": get(V, sortBy="delegationFee", subnetId=PRIMARY_NETWORK_ID),
    "ValidatorsStatusFilterIgnored": get(V, validationStatus="pending"),
    "NodeValidatorsStatusFilterIgnored": get(VN, validationStatus="completed"),
    "ValidatorsNodeIdsFilterIgnored": get(V, nodeIds=SOME[5]), "NodeIdsMatchedExactly": get(V, nodeIds=NODE[7:15]),
    "NodeIdsOnlyFirstUsed": get(V, nodeIds=f"{SOME[0]},{SOME[1]}", pageSize=100),
    "SubnetFilterIgnored": get(V, subnetId=WORLD.evm_subnet_id),
    "PrimaryNetworkOnlyWithoutSubnet": get(V, pageSize=100),
    "MinFeeKeepsSubnetValidations": get(V, minFeePercentage=2, pageSize=100),
    "MaxFeeKeepsSubnetValidations": get(V, maxFeePercentage=100, pageSize=100),
    "MinFeeValueIgnored": get(V, minFeePercentage=15), "MaxFeeValueIgnored": get(V, maxFeePercentage=3),
    "TransactionsStartIgnored": get(T, addresses=HOT, startTimestamp=DATA.t0 - 3600),
    "TransactionsEndIgnored": get(T, addresses=HOT, endTimestamp=DATA.t0 - 36000),
    "BlocksStartIgnored": get(B, startTimestamp=DATA.t0 + 10), "BlocksEndIgnored": get(B, endTimestamp=DATA.t0 - 40000),
    "TransactionsTxTypesIgnored": get(T, addresses=HOT, txTypes="ImportTx"),
    "L1TransactionsTxTypesIgnored": get(T, l1ValidationId=L1, txTypes="ConvertSubnetToL1Tx"),
    "L1TransactionsTimestampsIgnored": get(T, l1ValidationId=L1, endTimestamp=DATA.t0 - 40000),
    "StartBlockExclusive": get(E721, startBlock=BLOCK), "EndBlockInclusive": get(E721, endBlock=BLOCK + 1 - 1),
    "StartBlockAloneEndsEarly": get(E721, startBlock=BLOCK - 2000),
    "EndBlockAloneStartsLate": get(E721, endBlock=BLOCK),
    "Erc20ContractFilterIgnored": get(B20, contractAddresses=DATA.erc20(EVM, 4)),
    "Erc1155ContractFilterIgnored": get(B1155, contractAddress=DATA.erc1155(EVM, 1)),
    "Erc721ContractFilterIgnored": get(B721, contractAddress=DATA.erc721(EVM, 1)),
    "SpamFilterInverted": get(B20, filterSpamTokens="false"),
    "UtxosAssetFilterIgnored": utxos(assetId=DATA.asset_id("mainnet", 0)),
    "MinUtxoAmountExclusive": None, "SpentUtxosAlwaysListed": utxos(includeSpent="false"),  # type: ignore[dict-item]  # no request shows it
    "IncludeSpentListsSpentOnly": utxos(includeSpent="true"), "UtxosOfOtherOwners": utxos(pageSize=1024),
    "NodeValidatorsOfEveryNode": get(VN, pageSize=100), "BlocksOfAnotherProposer": get(B, pageSize=100),
    "FujiServedFromLaggingReplica": get("/v1/networks/fuji/validators"),
    "VerticesServedForAnyChain": get(f"{P}/vertices:listByHeight", vertexHeight=1),
    "VertexEraIdRefused": get(f"{N}/blockchains/{VERTEX_ERA_IDS['mainnet']}/vertices:listByHeight", vertexHeight=1),
    "ChainAliasesRefused": get(f"{C}/transactions"), "AliasServedFromStaleCache": get(f"{C}/transactions"),
    "PrefixedAddressesIgnored": get(T, addresses=f"P-{HOT}"),
    "EvmAddressesRefused": get(f"{C}/transactions", addresses=DATA.hot_evm_address("mainnet")),
    "BlockchainIdChainNotFound": get(f"/v1/chains/{WORLD.evm_blockchain_id}/addresses/{WALLET}/balances:getNative"),
    "DeploymentWithoutNativeTransaction": get(DEP), "CurrencyCodeAlwaysUsd": get(NAT, currency="gbp"),
    "NativeBalanceColonRouteMissing": get(NAT), "KeyedRequestsRefused": get(f"{N}/blockchains"),
}


def _second_page(request: Request, name: str) -> Request:
    method, path, query, body = request
    token = answer(request)[1]["nextPageToken"]
    return (method, path, {**query, "pageToken": token}, body)


PROBES["PagesOverlapByOne"] = _second_page(get(f"{N}/blockchains", pageSize=5), "blockchains")
PROBES["TokenSkipsAPage"] = _second_page(get(V, pageSize=5), "validators")
PROBES["TransactionsDefaultPageSizeLostAfterPageOne"] = _second_page(get(T), "transactions")
PROBES["ValidatorsDefaultPageSizeLostAfterPageOne"] = _second_page(get(V), "validators")
_amount = answer(utxos(pageSize=3))[1]["utxos"][1]["amount"]
PROBES["MinUtxoAmountExclusive"] = utxos(minUtxoAmount=_amount, sortBy="amount", sortOrder="asc")
HEADERS = {"KeyedRequestsRefused": {"x-data-api-key": "<API_KEY>"}}
DATA_FAULTS = sorted(name for name, cls in REGISTRY.items() if cls.__module__.endswith("faults.data"))


@pytest.mark.parametrize("name", DATA_FAULTS)
def test_fault_changes_the_answer(name: str) -> None:
    request = PROBES[name]
    headers = HEADERS.get(name)
    faulty = Client(ReferenceApp(WORLD, [REGISTRY[name]()]))
    assert send(CLEAN, request, headers) != send(faulty, request, headers)


def test_every_data_fault_has_a_probe_and_names_catalogued_rules() -> None:
    catalogue = {rule.id for rule in load_catalogue()}
    assert set(DATA_FAULTS) == set(PROBES)
    for name in DATA_FAULTS:
        cls: type[Fault] = REGISTRY[name]
        assert cls.breaks and set(cls.breaks) | set(cls.also) <= catalogue, name
        assert cls.summary(), name
