"""The node's read-only requests: admin, index, EVM chain and validators, anchored below both chain heights."""
from __future__ import annotations

import random
from functools import partial
from typing import Any

from conformance.checks.index import index_paths, max_fetch, position
from conformance.compare.normalize import Outcome
from conformance.compare.requests_plan import Plan, PlanContext, Request, rpc, uint

#: The P-Chain's blockchain ID is the same on every network: a chain every node knows.
P_CHAIN_ID = "11111111111111111111111111111111LpoYY"


def admin(ctx: PlanContext, plan: Plan) -> None:
    """The two Admin methods that only read: logger levels and chain aliases."""
    plan.requests.append(rpc("admin", "/ext/admin", "admin.getLoggerLevel", {}))
    for chain in dict.fromkeys(c for c in (P_CHAIN_ID, ctx.sample("blockchain_id"), ctx.evm_chain) if c):
        plan.requests.append(rpc("admin", "/ext/admin", "admin.getChainAliases", {"chain": chain}))


def index(ctx: PlanContext, plan: Plan) -> None:
    """Each documented index path: its last accepted container (a head), then containers below both heights."""
    for path in index_paths():
        plan.requests.append(rpc("index", path, "index.getLastAccepted", {"encoding": "hex"}, head=True,
                                 then=partial(_below_both_heights, ctx, path)))


def _below_both_heights(ctx: PlanContext, path: str, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """Containers both indexes hold (at or below the lower height), and the documented errors."""
    first, second = [position(o.value) if o.ok else None for o in (baseline, candidate)]
    if first is None or second is None:
        return []
    low, high = min(first, second), max(first, second)
    middle = random.Random(f"{ctx.seed}:{path}").randrange(low + 1)
    out = [rpc("index", path, "index.getContainerByIndex", {"index": i, "encoding": "hex"},
               then=partial(_by_id, path) if i == middle else None)
           for i in dict.fromkeys((middle, 0, low))]
    count = min(5, low + 1)
    out.append(rpc("index", path, "index.getContainerRange",
                   {"startIndex": low - count + 1, "numToFetch": count, "encoding": "hex"}))
    out += [rpc("index", path, "index.getContainerRange", params) for params in (
        {"startIndex": 0, "numToFetch": max_fetch() + 1, "encoding": "hex"},
        {"startIndex": high + 1_000_000, "numToFetch": 1, "encoding": "hex"},
        {"startIndex": 0, "numToFetch": 1, "encoding": "cb58"})]
    return out


def _by_id(path: str, baseline: Outcome, candidate: Outcome) -> list[Request]:
    container_id = baseline.value.get("id") if baseline.ok and isinstance(baseline.value, dict) else None
    if not isinstance(container_id, str):
        return []
    return [rpc("index", path, method, {"id": container_id, "encoding": "hex"})
            for method in ("index.getContainerByID", "index.getIndex", "index.isAccepted")]


#: The identity precompile (address 4 on every EVM chain): a call whose answer is its input, at any block.
IDENTITY = "0x0000000000000000000000000000000000000004"
#: Blocks of the one eth_getLogs asked (a busy chain logs hundreds in a block).
LOG_BLOCKS = 8
#: Accounts of an anchored block whose balance, nonce and code at that block are asked.
MAX_ACCOUNTS = 2


def evm_path(ctx: PlanContext) -> str:
    """The EVM chain's RPC under the node URL; "" when every endpoint has an EVM RPC URL of its own, asked instead."""
    return "" if ctx.evm_rpc_urls else f"/ext/bc/{ctx.evm_chain}/rpc"


def evm(ctx: PlanContext, plan: Plan) -> None:
    """Every method of the EVM document, as `run` asks them: what names the chain, then the chain config, rules
    and fee configs at fixed times and blocks, blocks, accounts and logs below both heads; what is about the latest
    block or the node that answers by shape only."""
    path = evm_path(ctx)
    plan.requests += [
        rpc("evm", path, "eth_chainId", []),
        rpc("evm", path, "net_version", []),
        # The software that answers (an upgrade changes it by design), whether it is syncing now, the price of gas
        # at the latest block: of the node and the moment, like a head.
        rpc("evm", path, "web3_clientVersion", [], head=True),
        rpc("evm", path, "eth_syncing", [], head=True),
        rpc("evm", path, "eth_gasPrice", [], head=True),
        # A pure call: no block changes its answer, so the latest one may be asked.
        rpc("evm", path, "eth_call", [{"to": IDENTITY, "data": "0xc0ffee"}, "latest"]),
        rpc("evm", path, "eth_getChainConfig", [], then=partial(_at_activations, path)),
        rpc("evm", path, "eth_blockNumber", [], head=True, then=partial(_below_heads, ctx, path)),
        rpc("evm", path, "eth_feeConfig", [], head=True),
        rpc("evm", path, "eth_getActiveRulesAt", [], head=True),
        rpc("evm", path, "eth_getActivePrecompilesAt", [], head=True),
    ]


def _at_activations(path: str, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """Active rules and precompiles at each activation time the baseline's chain config names (fixed times)."""
    times = sorted({0} | set(_timestamps(baseline.value if baseline.ok else None)))[:8]
    return [rpc("evm", path, method, [t]) for t in times
            for method in ("eth_getActiveRulesAt", "eth_getActivePrecompilesAt")]


def _timestamps(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [t for name, member in value.items() for t in (
            [member] if name.endswith(("Timestamp", "timestamp")) and uint(member) else _timestamps(member))]
    if isinstance(value, list):
        return [t for member in value for t in _timestamps(member)]
    return []


def _below_heads(ctx: PlanContext, path: str, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """Fee configs, blocks, a fee history and logs at blocks both chains hold (at or below the lower head)."""
    first, second = [_hex(o.value) if o.ok else None for o in (baseline, candidate)]
    if first is None or second is None:
        return []
    low = min(first, second)
    middle = random.Random(f"{ctx.seed}:{path}").randrange(low + 1)
    blocks = dict.fromkeys((0, middle, low))
    out = [rpc("evm", path, "eth_feeConfig", [hex(n)]) for n in blocks]
    out += [rpc("evm", path, "eth_getBlockByNumber", [hex(n), False]) for n in blocks]
    out += [rpc("evm", path, "eth_getBlockByNumber", [hex(middle), True],
                then=partial(_in_block, ctx, path, middle)),
            rpc("evm", path, "eth_feeHistory", [hex(4), hex(low), [25, 75]]),
            rpc("evm", path, "eth_getLogs", [{"fromBlock": hex(max(0, middle - LOG_BLOCKS + 1)),
                                             "toBlock": hex(middle)}])]
    return out


def _in_block(ctx: PlanContext, path: str, number: int, baseline: Outcome, candidate: Outcome) -> list[Request]:
    """The baseline's block again by its hash, and the balance, nonce and code as of that block of an account the
    comparison knows (given or discovered), else of the block's first sender and recipient, else of its miner."""
    block = baseline.value if baseline.ok and isinstance(baseline.value, dict) else {}
    out = []
    if isinstance(block.get("hash"), str):
        out.append(rpc("evm", path, "eth_getBlockByHash", [block["hash"], False]))
    transactions = [t for t in block.get("transactions") or [] if isinstance(t, dict)]
    first = transactions[0] if transactions else {}
    named = [ctx.sample("evm_address"), first.get("from"), first.get("to"), block.get("miner")]
    accounts = [a for a in dict.fromkeys(named) if isinstance(a, str) and a.startswith("0x")][:MAX_ACCOUNTS]
    return out + [rpc("evm", path, method, [account, hex(number)]) for account in accounts
                  for method in ("eth_getBalance", "eth_getTransactionCount", "eth_getCode")]


def _hex(value: Any) -> int | None:
    try:
        return int(value, 16) if isinstance(value, str) and value.startswith("0x") else None
    except ValueError:
        return None


def validators(ctx: PlanContext, plan: Plan) -> None:
    """The current validators, all of them and two by node ID."""
    path = f"/ext/bc/{ctx.evm_chain}/validators"
    plan.requests.append(rpc("validators", path, "validators.getCurrentValidators", {},
                             then=partial(_some_node_ids, path)))


def _some_node_ids(path: str, baseline: Outcome, candidate: Outcome) -> list[Request]:
    listed = baseline.value.get("validators") if baseline.ok and isinstance(baseline.value, dict) else None
    nodes = [v["nodeID"] for v in listed or [] if isinstance(v, dict) and isinstance(v.get("nodeID"), str)][:2]
    return [rpc("validators", path, "validators.getCurrentValidators", {"nodeIDs": nodes})] if nodes else []
