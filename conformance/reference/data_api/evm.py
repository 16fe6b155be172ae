"""EVM chain routes: contract deployment, ERC transfers, token transfers and balances."""
from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from conformance.reference import ids
from conformance.reference.calls import RestCall
from conformance.reference.data_api import params
from conformance.reference.data_api.pages import deviates
from conformance.reference.data_api.world import ERC20_TOKENS, NFT_BALANCES, SPAM_POSITIONS, DataWorld
from conformance.reference.rest import RestError, query_bool, query_int

if TYPE_CHECKING:
    from conformance.reference.data_api import DataService

STALE_BLOCKS = 1000


def evm_chain(svc: DataService, call: RestCall) -> str:
    """The canonical EVM chain ID of the chainId path value (an EVM chain ID or a blockchain ID)."""
    chain = svc.world.data.evm_chains().get(call.path_params["chainId"])
    if chain is None:
        # not shown: the answer for an unsupported chain; the reference says the resource does not exist
        raise RestError(404, f"chain {call.path_params['chainId']} is not supported")
    return chain


def block_number(svc: DataService, call: RestCall, chain: str) -> int:
    """The blockNumber query parameter: a decimal block number, or the latest block when absent or "latest"."""
    raw = call.first("blockNumber")
    head = svc.world.data.head(chain)
    if raw is None or raw == "":
        return head - STALE_BLOCKS if deviates("stale-default-block") else head
    if raw == "latest":
        # the documented default, also accepted when given explicitly
        return head
    if not re.fullmatch(r"\d+", raw):
        raise RestError(400, "blockNumber must be a decimal block number")
    if int(raw) > head:
        # not shown: a block after the head; the reference refuses it
        raise RestError(400, f"blockNumber {raw} is after the latest block {head}")
    return int(raw)


def _asked_block(call: RestCall) -> str:
    """The blockNumber parameter as a balance walk's scope holds it: the block asked for, or "latest"."""
    return call.first("blockNumber") or "latest"


def _walk_block(svc: DataService, call: RestCall, chain: str, scope: dict[str, Any], *,
                by_parameter: bool = True) -> int:
    """The block a balance page reads: the one its walk's first page read, else the blockNumber parameter (or
    the latest block, for a route without one)."""
    pinned = svc.pager.pinned(call, scope)
    if pinned is not None:
        return pinned
    return block_number(svc, call, chain) if by_parameter else svc.world.data.head(chain)


# Shapes -----------------------------------------------------------------------------------------------------

def native_token(chain: str, own: str) -> tuple[str, str]:
    return ("Reference Gas", "RGAS") if chain == own else ("Avalanche", "AVAX")


def usd_price(data: DataWorld, *parts: object) -> Decimal:
    return Decimal(1 + data.n(*parts, "price", below=20_000)) / 100


def erc20_token(data: DataWorld, chain: str, k: int, code: str = "usd") -> dict[str, Any]:
    return {"address": data.erc20(chain, k), "name": f"Token {k}", "symbol": f"TK{k}",
            "decimals": 6 if k % 5 == 1 else 18, "logoUri": f"https://assets.example.org/tokens/{k}.png",
            "ercType": "ERC-20",
            "price": params.price(usd_price(data, chain, "erc20", k), code)}


def metadata(data: DataWorld, kind: str, chain: str, contract: int, token_id: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "indexStatus": "indexed", "metadataLastUpdatedTimestamp": data.t0 - 86400 * (1 + token_id % 90),
        "name": f"Item {token_id}", "symbol": f"NFT{contract}", "imageUri": f"ipfs://img/{contract}/{token_id}",
        "description": f"Item {token_id} of collection {contract}", "animationUri": "", "externalUrl": "",
        "background": "ffffff"}
    if kind == "erc721":
        out["attributes"] = '[{"trait_type":"rarity","value":"common"}]'
    else:
        out.update(decimals=0, properties="{}")
    return out


def nft(data: DataWorld, kind: str, chain: str, contract: int, token_id: int, owner: str | None) -> dict[str, Any]:
    address = data.erc721(chain, contract) if kind == "erc721" else data.erc1155(chain, contract)
    out: dict[str, Any] = {"address": address, "ercType": "ERC-721" if kind == "erc721" else "ERC-1155",
                           "tokenId": str(token_id), "tokenUri": f"ipfs://meta/{contract}/{token_id}",
                           "metadata": metadata(data, kind, chain, contract, token_id)}
    if kind == "erc721":
        out.update(name=f"Collection {contract}", symbol=f"NFT{contract}", ownerAddress=owner or "")
    return out


def address_info(data: DataWorld, chain: str, address: str) -> dict[str, Any]:
    found = data.contracts(chain).get(address)
    if found and found[0] == "erc20":
        token = erc20_token(data, chain, found[1])
        return {k: token[k] for k in ("name", "symbol", "decimals", "logoUri", "address")}
    return {"address": address}


def transfer(data: DataWorld, chain: str, kind: str, i: int) -> dict[str, Any]:
    block = data.transfer_block(chain, kind, i)
    d = ids.digest(data.seed, chain, kind, "transfer", i)
    wallet = data.wallet(chain)
    peer = ids.evm_address(data.seed, chain, "peer", d[0] % 17)
    if kind == "erc20" and i % 3:
        sender, receiver = peer, ids.evm_address(data.seed, chain, "peer", 17 + d[1] % 11)
    else:
        sender, receiver = (wallet, peer) if i % 2 else (peer, wallet)
    out: dict[str, Any] = {
        "blockNumber": str(block), "blockTimestamp": data.block_time(chain, block),
        "blockHash": ids.hex_hash(data.seed, chain, "block", block),
        "txHash": ids.hex_hash(data.seed, chain, kind, "tx", i),
        "from": address_info(data, chain, sender), "to": address_info(data, chain, receiver), "logIndex": d[2] % 64}
    if kind == "erc20":
        out.update(value=str(int.from_bytes(d[3:11], "big")), erc20Token=erc20_token(data, chain, 0))
    elif kind == "erc721":
        out["erc721Token"] = nft(data, "erc721", chain, 0, 1000 + i, receiver)
    else:
        token_id, _ = data.erc1155_transfer(chain, i)
        out.update(value=str(1 + d[3] % 20), erc1155Token=nft(data, "erc1155", chain, 0, token_id, None))
    return out


def erc20_balance(data: DataWorld, chain: str, k: int, block: int) -> int:
    """The wallet's balance of ERC-20 token k at `block`: none before the token was deployed; the first token's
    follows the wallet's transfers of it, which listTokenTransfers lists."""
    if block < data.deployment_block(chain, data.erc20(chain, k)):
        return 0
    if k == 0:
        return 10**24 + data.wallet_erc20_change(chain, block)
    return 10**15 * (1 + data.n(chain, "bal20", k, below=50_000)) + 10**14 * (1 + k % 7) * (block // 50)


def deployment(data: DataWorld, chain: str, address: str) -> tuple[int, str, int, bytes]:
    """(block, deployer, gas used, digest) of the transaction that deployed a token contract."""
    d = ids.digest(data.seed, chain, address, "deployment")
    return data.deployment_block(chain, address), ids.evm_address(data.seed, chain, "deployer", d[4] % 5), \
        900_000 + d[5] * 1000, d


GAS_PRICE = 25_000_000_000


def deployer_fees(data: DataWorld, chain: str) -> dict[str, list[tuple[int, int]]]:
    """Deployer -> (block, fee) of each deployment it paid for, in block order."""
    def build() -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {}
        for address in data.contracts(chain):
            block, deployer, gas, _ = deployment(data, chain, address)
            out.setdefault(deployer, []).append((block, gas * GAS_PRICE))
        return {deployer: sorted(fees) for deployer, fees in out.items()}
    return data._cached(("deployer-fees", chain), build)


def native_balance(svc: DataService, chain: str, address: str, block: int, code: str) -> dict[str, Any]:
    data = svc.world.data
    name, symbol = native_token(chain, str(svc.world.evm_chain_id))
    if address == data.wallet(chain):
        balance = 5 * 10**18 + 10**13 * (block // 20)
    else:
        balance = 10**12 * ids.number(data.seed, chain, address, "native", below=10**6)
        fees = deployer_fees(data, chain).get(address)
        if fees:   # a deployer paid for each deployment in its block
            balance += 10**21 - sum(fee for at, fee in fees if at <= block)
    usd = usd_price(data, chain, "native")
    return {"name": name, "symbol": symbol, "decimals": 18, "logoUri": f"https://assets.example.org/{symbol}.png",
            "chainId": chain, "price": params.price(usd, code),
            "balance": str(balance), "balanceValue": params.price(usd * Decimal(balance) / Decimal(10**18), code)}


# Routes -----------------------------------------------------------------------------------------------------

def get_deployment(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment."""
    chain = evm_chain(svc, call)
    address = params.evm_address(call)
    code = params.currency(call)
    data = svc.world.data
    if address not in data.contracts(chain):
        # not shown: the answer for an address that is not a contract; the reference says it has no deployment
        raise RestError(404, f"{address} is not a contract on chain {chain}")
    block, deployer, gas, d = deployment(data, chain, address)
    tx_hash = ids.hex_hash(data.seed, chain, address, "deploy-tx")
    if deviates("deployment-is-latest-transaction"):
        # the contract's newest transaction (its latest transfer, or the head block) stands for its deployment
        found = data.contracts(chain)[address]
        kind = found[0] if found[1] == 0 else None
        block = data.transfer_block(chain, kind, data.transfer_count(chain, kind) - 1) if kind else data.head(chain)
        tx_hash = ids.hex_hash(data.seed, chain, address, "latest-tx", block)
    name, symbol = native_token(chain, str(svc.world.evm_chain_id))
    usd = usd_price(data, chain, "native")
    body: dict[str, Any] = {
        "erc20Transfers": [], "erc721Transfers": [], "erc1155Transfers": [],
        "internalTransactions": [{"from": {"address": deployer}, "to": {"address": address}, "internalTxType": "CREATE",
                                  "value": "0", "isReverted": False, "gasUsed": str(gas),
                                  "gasLimit": "3000000"}],
        "networkTokenDetails": {
            "networkToken": {"name": name, "symbol": symbol, "decimals": 18,
                             "logoUri": f"https://assets.example.org/{symbol}.png",
                             "description": f"The native token of chain {chain}"},
            "currentPrice": params.price(usd, code), "historicalPrice": params.price(usd * Decimal("0.8"), code)},
        "nativeTransaction": {
            "blockNumber": str(block), "blockTimestamp": data.block_time(chain, block),
            "blockHash": ids.hex_hash(data.seed, chain, "block", block), "chainId": chain, "blockIndex": d[6] % 20,
            "txHash": tx_hash, "txStatus": "1", "txType": 2, "gasLimit": "3000000", "gasUsed": str(gas),
            "gasPrice": str(GAS_PRICE), "nonce": str(d[7]), "from": {"address": deployer},
            "to": address_info(data, chain, address),
            "method": {"callType": "CONTRACT_CREATION", "methodHash": "", "methodName": ""},
            "value": "0", "input": "0x60806040" + d.hex(), "baseFeePerGas": "25000000000",
            "maxFeePerGas": "50000000000", "maxPriorityFeePerGas": "1000000000"},
        "teleporterMessageInfo": {"teleporterMessageId": ids.hex_hash(data.seed, "teleporter", tx_hash),
                                  "direction": "SOURCE_TRANSACTION", "sourceChainId": chain,
                                  "destinationChainId": "43114" if chain != "43114" else "43113"},
    }
    return body


def _transfers(svc: DataService, call: RestCall, kind: str | None, list_name: str, route: str) -> dict[str, Any]:
    chain = evm_chain(svc, call)
    address = params.evm_address(call)
    start = query_int(call, "startBlock", minimum=0)
    end = query_int(call, "endBlock", minimum=0)
    size = params.page_size(call, 100, 10)
    data = svc.world.data
    with svc.world.lock:
        count = data.transfer_count(chain, kind) if kind else 0
        head = data.head(chain)
    # startBlock alone ends at the most recent block; endBlock alone starts at genesis
    low, high = start or 0, head + 1 if end is None else end
    # transfers are served newest first
    picked = [i for i in range(count - 1, -1, -1) if low <= data.transfer_block(chain, kind or "", i) < high]

    def key(i: int) -> tuple[int, int]:
        return (data.transfer_block(chain, kind or "", i), i)
    scope = {"route": route, "chain": chain, "address": address, "start": start, "end": end}
    page, token = svc.pager.page(call, scope, picked, size, key=key, descending=True)
    return svc.listing(token, **{list_name: [transfer(data, chain, kind or "", i) for i in page]})


def list_erc721_transactions(svc: DataService, call: RestCall) -> dict[str, Any]:
    chain = evm_chain(svc, call)
    wallet = params.evm_address(call) == svc.world.data.wallet(chain)
    return _transfers(svc, call, "erc721" if wallet else None, "transactions", "erc721")


def list_erc1155_transactions(svc: DataService, call: RestCall) -> dict[str, Any]:
    chain = evm_chain(svc, call)
    wallet = params.evm_address(call) == svc.world.data.wallet(chain)
    return _transfers(svc, call, "erc1155" if wallet else None, "transactions", "erc1155")


def list_token_transfers(svc: DataService, call: RestCall) -> dict[str, Any]:
    """Transfers of a token contract; the first contract of each kind has a transfer history."""
    chain = evm_chain(svc, call)
    found = svc.world.data.contracts(chain).get(params.evm_address(call))
    # not shown: the answer for an address that is not a token contract; the reference lists no transfers
    kind = found[0] if found and found[1] == 0 else None
    return _transfers(svc, call, kind, "transfers", "token")


def list_erc20_balances(svc: DataService, call: RestCall) -> dict[str, Any]:
    chain = evm_chain(svc, call)
    address = params.evm_address(call)
    size = params.page_size(call, 500, 10)
    code = params.currency(call)
    spam_filter = query_bool(call, "filterSpamTokens", default=True)
    contracts = sorted({c.lower() for c in params.comma_list(call.first("contractAddresses"))})
    data = svc.world.data
    scope = {"chain": chain, "address": address, "block": _asked_block(call), "spam": spam_filter,
             "contracts": contracts, "code": code}
    with svc.world.lock:
        block = _walk_block(svc, call, chain, scope)
        native = native_balance(svc, chain, address, block, code)
    ks = list(range(ERC20_TOKENS)) if address == data.wallet(chain) else []
    # a token not yet deployed at the block read has no balance to list
    ks = [k for k in ks if block >= data.deployment_block(chain, data.erc20(chain, k))]
    if spam_filter:
        ks = [k for k in ks if k not in SPAM_POSITIONS]
    elif deviates("spam-inverted"):
        ks = [k for k in ks if k in SPAM_POSITIONS]
    if contracts:
        ks = [k for k in ks if data.erc20(chain, k) in contracts]
    page, token = svc.pager.page(call, scope, ks, size, key=lambda k: k, descending=False, pin=block)
    balances = []
    for k in page:
        item = erc20_token(data, chain, k, code)
        balance = erc20_balance(data, chain, k, block)
        usd = usd_price(data, chain, "erc20", k) * Decimal(balance) / Decimal(10 ** item["decimals"])
        item.update(chainId=chain, balance=str(balance), balanceValue=params.price(usd, code),
                    tokenReputation="Malicious" if k in SPAM_POSITIONS else "Benign")
        balances.append(item)
    return svc.listing(token, nativeTokenBalance=native, erc20TokenBalances=balances)


def _nft_balances(svc: DataService, call: RestCall, kind: str, list_name: str) -> dict[str, Any]:
    chain = evm_chain(svc, call)
    address = params.evm_address(call)
    size = params.page_size(call, 500, 10)
    contract = (call.first("contractAddress") or "").lower() or None
    data = svc.world.data
    scope = {"kind": kind, "chain": chain, "address": address, "contract": contract,
             "block": _asked_block(call) if kind == "erc1155" else "latest"}
    with svc.world.lock:
        block = _walk_block(svc, call, chain, scope, by_parameter=kind == "erc1155")
        native = native_balance(svc, chain, address, block, "usd")
    contracts = 4 if kind == "erc721" else 3
    held = [(j % contracts, 100 + j) for j in range(NFT_BALANCES)] if address == data.wallet(chain) else []
    make = data.erc721 if kind == "erc721" else data.erc1155
    if contract is not None:
        held = [h for h in held if make(chain, h[0]) == contract]
    # held is in tokenId order (token IDs are unique across contracts), so the cursor key leads with tokenId
    page, token = svc.pager.page(call, scope, held, size, key=lambda h: (h[1], h[0]), descending=False, pin=block)
    items = []
    for c, token_id in page:
        item = nft(data, kind, chain, c, token_id, address)
        item["chainId"] = chain
        if kind == "erc1155":   # the first collection's balances follow the wallet's transfers of it
            item["balance"] = str(1000 + data.wallet_erc1155_change(chain, token_id, block) if c == 0 else
                                  1 + data.n(chain, "bal1155", c, token_id, below=50))
        items.append(item)
    return svc.listing(token, nativeTokenBalance=native, **{list_name: items})


def list_erc1155_balances(svc: DataService, call: RestCall) -> dict[str, Any]:
    return _nft_balances(svc, call, "erc1155", "erc1155TokenBalances")


def list_erc721_balances(svc: DataService, call: RestCall) -> dict[str, Any]:
    return _nft_balances(svc, call, "erc721", "erc721TokenBalances")


def get_native_balance(svc: DataService, call: RestCall) -> dict[str, Any]:
    chain = evm_chain(svc, call)
    address = params.evm_address(call)
    code = params.currency(call)
    with svc.world.lock:
        return {"nativeTokenBalance": native_balance(svc, chain, address, block_number(svc, call, chain), code)}
