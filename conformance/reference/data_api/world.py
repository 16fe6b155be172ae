"""State behind the data API: compact records computed from the seed, built on first use and cached.

Each list is a sequence of small records (a timestamp or block, an ID, the keys the filters read); the full
JSON objects are built only for the items of a page. History ends at `t0`, the clock when the world was made;
a live world appends items with newer timestamps (primary transactions, blocks) or newer blocks (EVM
transfers, and balances that follow the head block), so a walk in progress never sees an item twice.
"""
from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, cast

from conformance.reference import ids

if TYPE_CHECKING:
    from conformance.reference.world import World

T = TypeVar("T")

PRIMARY_NETWORK_ID = "11111111111111111111111111111111LpoYY"   # the primary network's subnet ID and the P-Chain ID
#: network path segment -> the network it denotes (fuji and testnet are the same network)
NETWORKS = {"mainnet": "mainnet", "fuji": "testnet", "testnet": "testnet"}
#: the network name that chainInfo carries
NETWORK_NAMES = {"mainnet": "mainnet", "testnet": "fuji"}
#: not shown: the X-Chain vertex-era ID; the reference uses a fixed ID per network
VERTEX_ERA_IDS = {"mainnet": ids.cb58_id("x-chain", "vertex-era", "mainnet"),
                  "testnet": ids.cb58_id("x-chain", "vertex-era", "testnet")}
CHAIN_IDS = {
    "mainnet": {"p": PRIMARY_NETWORK_ID, "x": "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
                "c": "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"},
    "testnet": {"p": PRIMARY_NETWORK_ID, "x": "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
                "c": "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"},
}
ALIASES = {"p-chain": "p", "x-chain": "x", "c-chain": "c"}
CHAIN_NAMES = {"p": "p-chain", "x": "x-chain", "c": "c-chain"}
AVAX_ASSET_IDS = {"mainnet": "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
                  "testnet": "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"}

BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
HRP = {"mainnet": "avax", "testnet": "fuji"}
P_TYPES = ("AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx", "AddValidatorTx", "AddDelegatorTx",
           "ImportTx", "ExportTx", "BaseTx", "CreateChainTx", "CreateSubnetTx")
L1_TYPES = ("ConvertSubnetToL1Tx", "RegisterL1ValidatorTx", "IncreaseL1ValidatorBalanceTx",
            "SetL1ValidatorWeightTx", "DisableL1ValidatorTx")
X_TYPES = ("BaseTx", "ImportTx", "ExportTx", "CreateAssetTx", "OperationTx")
C_TYPES = ("ImportTx", "ExportTx")

TX_HISTORY = 720          # transactions per chain before t0; the known address is in every second one
TX_SPACING = 90           # seconds between historical transactions
POOL_SIZE = 30            # other addresses per network
HOT_UTXOS = 2100          # UTXOs of the known address per chain: three pages at pageSize 1024
NODE_POOL = 120           # validator nodes per network
VALIDATIONS = 240         # validations per network; every eighth is the busy node's
VERTEX_HEIGHTS = 250_000  # the X-Chain vertex era's heights
ERC20_TOKENS = 42
SPAM_POSITIONS = frozenset({2, 9, 17, 25, 33, 40})
NFT_BALANCES = 25
TRANSFER_HISTORY = {"erc721": 260, "erc1155": 260, "erc20": 320}
TRANSFER_SPACING = 45     # blocks between historical transfers of one list


@dataclass(frozen=True)
class Tx:
    index: int
    ts: int
    tx_hash: str
    tx_type: str
    addresses: frozenset[str]
    l1_validation: str | None


@dataclass(frozen=True)
class Utxo:
    index: int
    owner: str
    ts: int
    amount: int
    spent: bool
    asset: str
    utxo_id: str


@dataclass(frozen=True)
class Validation:
    index: int
    node: str
    subnet: str
    status: str
    start: int
    end: int
    fee: float | None
    staked: int
    delegated: int
    delegators: int
    uptime: float
    capacity: int
    tx_hash: str


@dataclass(frozen=True)
class Block:
    ts: int
    height: int
    node: str


class DataWorld:
    def __init__(self, world: World) -> None:
        self.world = world
        self.seed = world.seed
        self.t0 = int(world.clock.now)
        self.steps = 0                       # advances since t0
        self._cache: dict[tuple, object] = {}

    def advance(self) -> None:
        """One step: a transaction on each primary chain, a block proposed, an EVM block with transfers."""
        self.steps += 1
        for key in [k for k in self._cache if k[0] == "txs"]:
            _, net, chain = key
            txs = self._cache[key]
            assert isinstance(txs, list)
            txs.append(self._tx(net, chain, len(txs)))

    def samples(self) -> dict[str, str]:
        """Identifiers an operator would pass for the Data API tests that cannot discover them (mainnet)."""
        net, chain = "mainnet", str(self.world.evm_chain_id)
        contract = self.erc20(chain, 0)
        return {
            "data_network": net,
            "data_p_chain_address": self.hot_address(net),
            "data_x_chain_address": self.hot_address(net),
            "data_c_chain_evm_address": self.hot_evm_address(net),
            "data_evm_address": self.wallet(chain),
            "data_erc20_contract": contract,
            "data_erc721_contract": self.erc721(chain, 0),
            "data_erc1155_contract": self.erc1155(chain, 0),
            "data_contract_address": contract,
            "data_deployment_tx_hash": ids.hex_hash(self.seed, chain, contract, "deploy-tx"),
            "data_evm_chain_id": chain,
            "data_evm_blockchain_id": self.world.evm_blockchain_id,
            "data_block_node_id": self.nodes(net)[0],
            "data_vertex_height": "1000",
            "data_l1_validation_id": self.l1_validation_ids(net)[0],
            "data_p_chain_id": CHAIN_IDS[net]["p"],
            "data_x_chain_id": CHAIN_IDS[net]["x"],
            "data_x_chain_vertex_id": VERTEX_ERA_IDS[net],
            "data_c_chain_id": CHAIN_IDS[net]["c"],
            "data_primary_subnet_id": PRIMARY_NETWORK_ID,
            # a subnet other than the primary network with validations: the EVM chain's subnet when it has some
            "data_subnet_id": self.subnet_with_validators(net),
            # the reference serves requests with any key or none; it advertises one for the keyed-request test
            "data_api_key": "reference-key",
        }

    def subnet_with_validators(self, net: str) -> str:
        """The EVM chain's subnet when the network has validations of it, else the first other subnet that has."""
        subnets = [v.subnet for v in self.validations(net) if v.subnet != PRIMARY_NETWORK_ID]
        return self.world.evm_subnet_id if self.world.evm_subnet_id in subnets else subnets[0]

    def n(self, *parts: object, below: int) -> int:
        return ids.number(self.seed, *parts, below=below)

    def _cached(self, key: tuple, build: Callable[[], T]) -> T:
        with self.world.lock:
            found = self._cache.get(key)
            if found is None:
                found = self._cache[key] = build()
            # the key names what build() made under it
            return cast(T, found)

    # Addresses --------------------------------------------------------------------------------------------

    def bech32(self, net: str, *parts: object) -> str:
        raw = ids.digest(self.seed, "bech32", net, *parts)
        return HRP[net] + "1" + "".join(BECH32[b % 32] for b in raw[:38] + raw[:6])[:38]

    def hot_address(self, net: str) -> str:
        """The known address: in every second transaction of each chain, with a few thousand UTXOs."""
        return self.bech32(net, "hot")

    def hot_evm_address(self, net: str) -> str:
        return ids.evm_address(self.seed, net, "c-chain-atomic")

    def pool(self, net: str) -> list[str]:
        return self._cached(("pool", net), lambda: [self.bech32(net, "pool", k) for k in range(POOL_SIZE)])

    def l1_validation_ids(self, net: str) -> list[str]:
        return self._cached(("l1", net), lambda: [ids.cb58_id(self.seed, net, "l1-validation", k) for k in range(5)])

    # Primary network transactions -------------------------------------------------------------------------

    def txs(self, net: str, chain: str) -> list[Tx]:
        """The chain's transactions, oldest first; live steps append newer ones."""
        def build() -> list[Tx]:
            return [self._tx(net, chain, i) for i in range(TX_HISTORY + self.steps)]
        return self._cached(("txs", net, chain), build)

    def _tx(self, net: str, chain: str, i: int) -> Tx:
        if i < TX_HISTORY:
            ts = self.t0 - TX_SPACING * (TX_HISTORY - i) + self.n(net, chain, "ts", i, below=60)
        else:
            ts = self.t0 + 2 * (i - TX_HISTORY + 1)
        pool = self.pool(net)
        addresses = {pool[self.n(net, chain, "a", i, below=POOL_SIZE)],
                     pool[self.n(net, chain, "b", i, below=POOL_SIZE)]}
        if i % 2 == 0:
            addresses.add(self.hot_address(net))
            if chain == "c":
                addresses.add(self.hot_evm_address(net))
        l1 = None
        if chain == "p" and i % 7 == 3:
            l1s = self.l1_validation_ids(net)
            l1 = l1s[0] if i % 2 == 0 or i % 3 == 0 else l1s[1 + self.n(net, "l1", i, below=4)]
            tx_type = L1_TYPES[0] if i == 3 else L1_TYPES[1 + self.n(net, "l1t", i, below=4)]
        else:
            types = {"p": P_TYPES, "x": X_TYPES, "c": C_TYPES}[chain]
            tx_type = types[self.n(net, chain, "type", i, below=len(types))]
        return Tx(i, ts, ids.cb58_id(self.seed, net, chain, "tx", i), tx_type, frozenset(addresses), l1)

    # UTXOs ------------------------------------------------------------------------------------------------

    def utxos(self, net: str, chain: str, address: str) -> list[Utxo]:
        """The UTXOs of one address (oldest first); unknown addresses have none."""
        def build() -> list[Utxo]:
            if address == self.hot_address(net):
                count = HOT_UTXOS
            elif address in self.pool(net):
                count = 12 + self.n(net, chain, address, "count", below=20)
            else:
                return []
            span = 400 * 86400 // count
            start = self.t0 - 400 * 86400
            assets = [AVAX_ASSET_IDS[net]] + ([self.asset_id(net, k) for k in range(3)] if chain == "x" else [])
            out = []
            for j in range(count):
                d = ids.digest(self.seed, net, chain, address, "utxo", j)
                kind = d[0] % 10
                amount = (1 + int.from_bytes(d[1:4], "big") % 999_999) if kind < 3 else \
                    1_000_000 + int.from_bytes(d[4:10], "big") % 5_000_000_000_000
                asset = assets[0] if d[10] % 10 < 6 else assets[d[11] % len(assets)]
                out.append(Utxo(j, address, start + j * span + d[12] % (span // 2 + 1), amount, d[13] % 10 < 3,
                                asset, ids.cb58(d)))
            return out
        return self._cached(("utxos", net, chain, address), build)

    def asset_id(self, net: str, k: int) -> str:
        return ids.cb58_id(self.seed, net, "asset", k)

    # Blockchains -------------------------------------------------------------------------------------------

    def blockchain_count(self, net: str) -> int:
        return 450 if net == "mainnet" else 380

    # Validators --------------------------------------------------------------------------------------------

    def nodes(self, net: str) -> list[str]:
        return self._cached(("nodes", net), lambda: [ids.node_id(self.seed, net, k) for k in range(NODE_POOL)])

    def subnets(self, net: str) -> list[str]:
        return [self.world.evm_subnet_id] + [ids.cb58_id(self.seed, net, "subnet", k) for k in range(2)]

    def validations(self, net: str) -> list[Validation]:
        """The network's validations by block index (oldest first)."""
        return self._cached(("validations", net), lambda: [self._validation(net, v) for v in range(VALIDATIONS)])

    def _validation(self, net: str, v: int) -> Validation:
        d = ids.digest(self.seed, net, "validation", v)
        nodes = self.nodes(net)
        node = nodes[0] if v % 8 == 0 else nodes[1 + d[0] % (NODE_POOL - 1)]
        subnet_roll = d[1] % 100
        if subnet_roll < 15:
            subnet = self.subnets(net)[d[2] % 3]
            status = ("active", "removed", "completed")[d[3] % 3]
            fee = None
        else:
            subnet = PRIMARY_NETWORK_ID
            roll = d[3] % 100
            status = "active" if roll < 50 else "pending" if roll < 65 else "completed"
            fee = 2 + (d[4] % 1800) / 100 if d[5] % 10 else 20 + (d[4] % 8000) / 100
        day = 86400
        if status == "active":
            start, end = self.t0 - day * (1 + d[6] % 300), self.t0 + day * (2 + d[7] % 360)
        elif status == "pending":
            start = self.t0 + day * (2 + d[6] % 20)
            end = start + day * (14 + d[7] % 300)
        else:
            end = self.t0 - day * (1 + d[7] % 600)
            start = end - day * (14 + d[6] % 300)
        staked = (2000 + int.from_bytes(d[8:11], "big") % 3_000_000) * 10**9
        delegated = (int.from_bytes(d[11:14], "big") % 3_000_000) * 10**9 if fee is not None else 0
        # uptimes spread over 0..100: a quarter below the default minimum of 90, the rest over 90..100, so that
        # both default bounds of the uptime filter decide which validators are listed
        spread = int.from_bytes(d[17:19], "big")
        uptime = round((spread % 9000) / 100, 2) if d[15] % 4 == 0 else round(90 + (spread % 1001) / 100, 2)
        capacity = max(0, min(staked * 5, 720_000_000_000_000_000) - staked - delegated)
        return Validation(v, node, subnet, status, start, end, fee, staked, delegated, d[16] % 40 if fee else 0,
                          uptime, capacity, ids.cb58(d))

    # Blocks by node ----------------------------------------------------------------------------------------

    def blocks(self, net: str, chain: str, node: str) -> list[Block]:
        """Blocks the node proposed on the chain, oldest first; each live step adds one block on each chain."""
        nodes = self.nodes(net)
        if node not in nodes:
            return []
        k = nodes.index(node)

        def build() -> list[Block]:
            count = 30 + self.n(net, chain, node, "blocks", below=40)
            gap = 600 + self.n(net, chain, node, "gap", below=2400)
            out = []
            for i in range(count):
                ts = self.t0 - gap * (count - i) + self.n(net, chain, node, "bts", i, below=gap // 2)
                out.append(Block(ts, self.height(chain, ts), node))
            return out
        history: list[Block] = self._cached(("blocks", net, chain, node), build)
        live = [Block(self.t0 + 2 * (s + 1), self.height(chain, self.t0 + 2 * (s + 1)), node)
                for s in range(k, self.steps, NODE_POOL)]
        return history + live

    def height(self, chain: str, ts: int) -> int:
        base = {"p": 1_100_000, "x": 40_000, "c": 30_000_000}[chain]
        return base + (ts - self.t0 + 400 * 86400) // 2

    # Vertices ----------------------------------------------------------------------------------------------

    def vertex_count(self, net: str, height: int) -> int:
        return 0 if height >= VERTEX_HEIGHTS else 5 + self.n(net, "vertices", height, below=30)

    def vertex_time(self, height: int, j: int) -> int:
        return 1_600_000_000 + height * 40 + j

    # EVM chains --------------------------------------------------------------------------------------------

    def evm_chains(self) -> dict[str, str]:
        """chainId path value -> canonical EVM chain ID: the L1's and the C-Chains', by EVM or blockchain ID."""
        own = str(self.world.evm_chain_id)
        return {own: own, self.world.evm_blockchain_id: own, "43114": "43114", "43113": "43113",
                CHAIN_IDS["mainnet"]["c"]: "43114", CHAIN_IDS["testnet"]["c"]: "43113"}

    def head0(self, chain: str) -> int:
        return 1_000_000 + self.n(chain, "head", below=4_000_000)

    def head(self, chain: str) -> int:
        return self.head0(chain) + self.steps

    def block_time(self, chain: str, block: int) -> int:
        return self.t0 + 2 * (block - self.head0(chain))

    def wallet(self, chain: str) -> str:
        """The known EVM address: balances of every kind, ERC-721 and ERC-1155 transfers."""
        return ids.evm_address(self.seed, chain, "wallet")

    def erc20(self, chain: str, k: int) -> str:
        return ids.evm_address(self.seed, chain, "erc20", k)

    def erc721(self, chain: str, k: int) -> str:
        return ids.evm_address(self.seed, chain, "erc721", k)

    def erc1155(self, chain: str, k: int) -> str:
        return ids.evm_address(self.seed, chain, "erc1155", k)

    def contracts(self, chain: str) -> dict[str, tuple[str, int]]:
        """Contract address -> (kind, index) of every token contract of the chain."""
        def build() -> dict[str, tuple[str, int]]:
            out = {self.erc20(chain, k): ("erc20", k) for k in range(ERC20_TOKENS)}
            out.update({self.erc721(chain, k): ("erc721", k) for k in range(4)})
            out.update({self.erc1155(chain, k): ("erc1155", k) for k in range(3)})
            return out
        return self._cached(("contracts", chain), build)

    def deployment_block(self, chain: str, address: str) -> int:
        """The block whose transaction deployed a token contract: long before the first of its transfers."""
        d = ids.digest(self.seed, chain, address, "deployment")
        return 1000 + int.from_bytes(d[:4], "big") % (self.head0(chain) // 2)

    def wallet_erc20_change(self, chain: str, block: int) -> int:
        """What the wallet's transfers of the first ERC-20 token (the one with transfers) added to its balance up to
        `block`, inclusive: the balance that route answers at a block follows the transfers that route lists."""
        with self.world.lock:
            count = self.transfer_count(chain, "erc20")
            sums = cast(list[int], self._cache.setdefault(("wallet-erc20", chain), [0]))   # sums[i]: before i
            while len(sums) <= count:
                i = len(sums) - 1
                sums.append(sums[-1] + self.wallet_erc20_value(chain, i))
            return sums[self._transfers_up_to(chain, "erc20", count, block)]

    def _transfers_up_to(self, chain: str, kind: str, count: int, block: int) -> int:
        """How many of the first `count` transfers of `kind` are at or before `block` (they are in block order)."""
        return bisect.bisect_right(range(count), block, key=lambda i: self.transfer_block(chain, kind, i))

    def erc1155_transfer(self, chain: str, i: int) -> tuple[int, int]:
        """(token ID, what it adds to the wallet's balance of it) of ERC-1155 transfer i: a token of the first
        collection the wallet holds, sent (odd) or received (even)."""
        d = ids.digest(self.seed, chain, "erc1155", "transfer", i)
        value = 1 + d[3] % 20
        return 100 + 3 * (d[4] % 9), -value if i % 2 else value

    def wallet_erc1155_change(self, chain: str, token_id: int, block: int) -> int:
        """What the wallet's ERC-1155 transfers of `token_id` (first collection) added to its balance up to `block`."""
        with self.world.lock:
            count = self.transfer_count(chain, "erc1155")
            sums = cast(dict[int, list[int]], self._cache.setdefault(("wallet-erc1155", chain), {}))
            done = cast(list[int], self._cache.setdefault(("wallet-erc1155-count", chain), [0]))
            while done[0] < count:   # sums[token][i]: the token's change from transfers before i
                token, value = self.erc1155_transfer(chain, done[0])
                for k, running in sums.items():
                    running.append(running[-1] + (value if k == token else 0))
                if token not in sums:
                    sums[token] = [0] * (done[0] + 1) + [value]
                done[0] += 1
            found = sums.get(token_id)
            return found[self._transfers_up_to(chain, "erc1155", count, block)] if found else 0

    def wallet_erc20_value(self, chain: str, i: int) -> int:
        """What ERC-20 transfer i adds to the wallet's balance: every third is the wallet's, sent (odd) or received."""
        if i % 3:
            return 0
        value = int.from_bytes(ids.digest(self.seed, chain, "erc20", "transfer", i)[3:11], "big")
        return -value if i % 2 else value

    def transfer_count(self, chain: str, kind: str) -> int:
        return TRANSFER_HISTORY[kind] + self.steps

    def transfer_block(self, chain: str, kind: str, i: int) -> int:
        """Transfer i of a list (oldest first): history before head0, then one transfer in every live block."""
        history = TRANSFER_HISTORY[kind]
        if i < history:
            return self._history_blocks(chain, kind)[i]
        return self.head0(chain) + (i - history + 1)

    def _history_blocks(self, chain: str, kind: str) -> list[int]:
        # every listing of transfers filters the whole history by block: computed once per list
        key = ("transfer-history", chain, kind)
        found = self._cache.get(key)
        if found is None:
            history, head0 = TRANSFER_HISTORY[kind], self.head0(chain)
            found = self._cached(key, lambda: [head0 - TRANSFER_SPACING * (history - i)
                                               + self.n(chain, kind, "tb", i, below=30) for i in range(history)])
        return cast("list[int]", found)
