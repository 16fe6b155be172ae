"""The node's state: indexes, the EVM chain, validators, admin state."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conformance.reference import ids

if TYPE_CHECKING:
    from conformance.reference.world import World

DAY = 86400
#: The P-Chain's blockchain ID is the same on every network.
P_CHAIN_ID = "11111111111111111111111111111111LpoYY"
#: containers remembered per index (each about 1.4 kB as Python objects: 11 MB at most per index)
REMEMBERED_CONTAINERS = 1 << 13
#: What sets the second EVM chain's content apart from the first one's.
OTHER_CHAIN_SEED = 1_000_003
LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "TRACE", "DEBUG", "VERBO")


# --- identifiers that carry their own position, so lookups by ID are O(1) ---

def tagged_bytes(key: tuple[object, ...], n: int) -> bytes:
    """32 random-looking bytes that encode `n`; `untag` recovers it, and only for the same key."""
    head = ids.digest(*key, n)[:24]
    mask = int.from_bytes(ids.digest("mask", head.hex())[:8], "big")
    return head + (n ^ mask).to_bytes(8, "big")


def untag(key: tuple[object, ...], raw: bytes) -> int | None:
    if len(raw) != 32:
        return None
    head = raw[:24]
    n = int.from_bytes(raw[24:], "big") ^ int.from_bytes(ids.digest("mask", head.hex())[:8], "big")
    if n >= 1 << 40 or ids.digest(*key, n)[:24] != head:
        return None
    return n


def base58_decode(text: str) -> bytes | None:
    value = 0
    for char in text:
        digit = ids.B58_ALPHABET.find(char)
        if digit < 0:
            return None
        value = value * 58 + digit
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return b"\0" * (len(text) - len(text.lstrip("1"))) + body


def cb58_decode(text: str) -> bytes | None:
    """The payload of a CB58 string, or None when it is not CB58 or its checksum is wrong."""
    raw = base58_decode(text) if isinstance(text, str) and text else None
    if raw is None or len(raw) < 5 or hashlib.sha256(raw[:-4]).digest()[-4:] != raw[-4:]:
        return None
    return raw[:-4]


# --- Index API ---

@dataclass
class Index:
    """One index of accepted containers; container i is computed from the seed when asked for."""

    endpoint: str            # "index/X/tx"
    seed: int
    anchor: float            # container i is accepted in [anchor + i*gap, anchor + (i+1)*gap)
    gap: float
    frozen_count: int | None = None   # the legacy index never grows
    #: containers already computed: range reads and walks ask for the same ones again and again
    _containers: dict[int, dict[str, str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def count(self, now: float) -> int:
        if self.frozen_count is not None:
            return self.frozen_count
        return max(0, int((now - self.anchor) // self.gap))

    def container_id(self, i: int) -> str:
        return ids.cb58(tagged_bytes(("container", self.seed, self.endpoint), i))

    def position(self, container_id: str, now: float) -> int | None:
        """The index of a container ID in this index, or None when it is not (yet) accepted here."""
        raw = cb58_decode(container_id)
        i = None if raw is None else untag(("container", self.seed, self.endpoint), raw)
        return i if i is not None and i < self.count(now) else None

    def timestamp(self, i: int) -> float:
        jitter = ids.number(self.seed, self.endpoint, "t", i, below=1_000_000) / 1_000_000 * self.gap * 0.9
        return self.anchor + i * self.gap + jitter

    def container(self, i: int) -> dict[str, str]:
        found = self._containers.get(i)
        if found is None:
            if len(self._containers) >= REMEMBERED_CONTAINERS:
                self._containers.clear()   # a long-lived reference keeps its memory bounded
            found = self._containers[i] = self._computed_container(i)
        return dict(found)   # a copy: a fault may rewrite the container it serves

    def _computed_container(self, i: int) -> dict[str, str]:
        size = 90 + ids.number(self.seed, self.endpoint, "len", i, below=420)
        payload = hashlib.shake_256(f"{self.seed}\x1f{self.endpoint}\x1f{i}".encode()).digest(size)
        payload = b"\0\0" + payload  # codec version 0, as the chains write it
        checked = payload + hashlib.sha256(payload).digest()[-4:]
        return {"id": self.container_id(i), "bytes": "0x" + checked.hex(),
                "timestamp": ids.rfc3339(self.timestamp(i)), "encoding": "hex", "index": str(i)}


# --- Admin API ---

@dataclass
class AdminState:
    loggers: dict[str, dict[str, str]]
    endpoint_aliases: dict[str, str] = field(default_factory=dict)      # alias -> endpoint
    chain_aliases: dict[str, list[str]] = field(default_factory=dict)   # blockchain ID -> aliases
    profiling: bool = False
    load_vm_calls: int = 0
    #: When true, the plugin VM "flaky" fails on every odd-numbered admin.loadVMs call (1st, 3rd, ...).
    flaky_plugin: bool = True


# --- EVM chain ---

@dataclass
class EvmChain:
    seed: int
    chain_id: int
    genesis: int             # timestamp of block 0; block n is produced at genesis + 2n
    block_gap: int
    fee_change_block: int    # the fee manager changed the fee config at this block
    durango: int
    etna: int
    minter_activation: int
    deployer_disabled: int
    tx_allow_list_activation: int   # shortly after start: active rules change in a live world
    admins: list[str]

    def latest(self, now: float) -> int:
        return max(0, int((now - self.genesis) // self.block_gap))

    def block_time(self, n: int) -> int:
        return self.genesis + n * self.block_gap

    def block_hash(self, n: int) -> str:
        return "0x" + tagged_bytes(("evm-block", self.seed), n).hex()

    def block_of_hash(self, text: str) -> int | None:
        try:
            raw = bytes.fromhex(text[2:])
        except ValueError:
            return None
        return untag(("evm-block", self.seed), raw)


# --- validators ---

def make_validators(world: World) -> list[dict[str, object]]:
    """About twenty validators of the EVM chain's L1: L1 validators first, then subnet validators."""
    seed, out = world.seed, []
    for k in range(20):
        l1 = k < 12
        # From the world's first moment, not from whenever validators are first read: a validator's start is fixed.
        start = int(world.clock.start) - DAY * (3 + ids.number(seed, "val-start", k, below=200)) - \
            ids.number(seed, "val-start-s", k, below=DAY)
        out.append({
            "validationID": ids.cb58_id(seed, "validation" if l1 else "add-validator-tx", k),
            "nodeID": ids.node_id(seed, "validator", k),
            "weight": (1 + ids.number(seed, "weight", k, below=5000)) * (20 if l1 else 2_000_000_000_000),
            "startTimestamp": start,
            "isActive": True if not l1 else ids.number(seed, "active", k, below=6) != 0,
            "isL1Validator": l1,
            "isConnected": ids.number(seed, "connected", k, below=5) != 0,
            "uptimeBasis": 9000 + ids.number(seed, "uptime", k, below=1000),  # ten-thousandths
        })
    return out


class NodeWorld:
    def __init__(self, world: World) -> None:
        self.world = world
        seed, now = world.seed, world.clock.now
        self.start = now
        # Indexes: the growing ones end just before now; X/vtx stopped at an upgrade long ago.
        self.indexes = {
            endpoint: Index(endpoint, seed, anchor=now - count * gap - gap * 0.5, gap=gap)
            for endpoint, count, gap in (("index/C/block", 3000, 2.0), ("index/P/block", 2000, 6.0),
                                         ("index/X/tx", 5000, 1.0), ("index/X/block", 1500, 4.0))
        }
        self.indexes["index/X/vtx"] = Index("index/X/vtx", seed, anchor=now - 400 * DAY - 1200 * 30.0,
                                            gap=30.0, frozen_count=1200)
        self.x_chain_id = ids.cb58_id(seed, "x-chain")
        self.c_chain_id = ids.cb58_id(seed, "c-chain")
        # A second EVM L1 this node validates: an alias or a route that mixes chains up answers for it, detectably.
        self.other_evm_blockchain_id = ids.cb58_id(seed, "other-evm-blockchain")
        self.chains = [P_CHAIN_ID, self.x_chain_id, self.c_chain_id, world.evm_blockchain_id,
                       self.other_evm_blockchain_id]
        loggers = ["C", "P", "X", "main", "http", world.evm_blockchain_id]
        self.admin = AdminState(
            loggers={name: {"logLevel": "DEBUG" if name == "http" else "INFO", "displayLevel": "INFO"}
                     for name in loggers},
            chain_aliases={P_CHAIN_ID: ["P", "platform"], self.x_chain_id: ["X", "avm"],
                           self.c_chain_id: ["C", "evm"], world.evm_blockchain_id: [],
                           self.other_evm_blockchain_id: []},
        )
        genesis = int(now) - 60 * DAY - ids.number(seed, "evm-genesis", below=DAY)
        self.evm = EvmChain(
            seed=seed, chain_id=world.evm_chain_id, genesis=genesis, block_gap=2,
            fee_change_block=(int(now) - genesis) // 2 - 40_000 - ids.number(seed, "fee-change", below=5000),
            durango=genesis + 5 * DAY, etna=genesis + 20 * DAY, minter_activation=genesis + 30 * DAY,
            deployer_disabled=genesis + 45 * DAY, tx_allow_list_activation=int(now) + 120,
            admins=[ids.evm_address(seed, "admin", k) for k in range(3)],
        )
        other_genesis = genesis + DAY + ids.number(seed, "other-evm-genesis", below=DAY)
        self.other_evm = EvmChain(
            seed=seed + OTHER_CHAIN_SEED, chain_id=world.evm_chain_id + 10_000, genesis=other_genesis, block_gap=2,
            fee_change_block=(int(now) - other_genesis) // 2 - 90_000, durango=other_genesis,
            etna=other_genesis + 2 * DAY, minter_activation=other_genesis + 3 * DAY,
            deployer_disabled=other_genesis + 4 * DAY, tx_allow_list_activation=other_genesis + 5 * DAY,
            admins=[ids.evm_address(seed, "other-admin", k) for k in range(3)],
        )
        self._validators: list[dict[str, object]] | None = None
        self.vms = {
            ids.cb58_id(seed, "vm", "subnetevm"): ["subnetevm", "subnet-evm"],
            ids.cb58_id(seed, "vm", "timestampvm"): ["timestampvm"],
        }
        self.flaky_vm = ids.cb58_id(seed, "vm", "flaky")

    @property
    def validators(self) -> list[dict[str, object]]:
        if self._validators is None:
            self._validators = make_validators(self.world)
        return self._validators

    def advance(self) -> None:
        # Indexes, blocks and uptimes follow world.clock, which World.advance moves: nothing to store here.
        pass
