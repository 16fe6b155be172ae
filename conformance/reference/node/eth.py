"""Standard Ethereum methods of the EVM chain RPC: blocks with transactions and logs, accounts, fees, calls.

Everything is computed from the seed and the block number, so a block read twice, by number or by hash, with or
without full transactions, is the same block; a live world only moves the head.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from conformance import __version__
from conformance.reference import ids
from conformance.reference.calls import RpcCall
from conformance.reference.jsonrpc import SERVER_ERROR, RpcError, invalid_params
from conformance.reference.node.params import positional, quantity
from conformance.reference.node.world import EvmChain, tagged_bytes

if TYPE_CHECKING:
    from conformance.reference.node import NodeService

LATEST_TAGS = ("latest", "pending", "accepted", "safe", "finalized")
ZERO_HASH = "0x" + "00" * 32
#: Keccak-256 of the RLP of an empty list: the uncle hash of every block without uncles.
EMPTY_UNCLES = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"
#: Keccak-256 of "Transfer(address,address,uint256)", the ERC-20 event every reference transaction emits.
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
COINBASE = "0x0100000000000000000000000000000000000000"
#: The identity precompile returns its input, on every EVM chain.
IDENTITY = "0x0000000000000000000000000000000000000004"
GWEI = 10**9
#: Limits of the kind real nodes set; a wider eth_getLogs or eth_feeHistory is refused or cut.
MAX_LOG_BLOCKS = 2048
MAX_FEE_HISTORY = 1024
#: Transactions of one block are numbered n * TX_SLOTS + i, so a transaction hash carries its block.
TX_SLOTS = 4
#: Accounts that send the chain's transactions; blocks repeat their senders and counts every TX_PERIOD blocks.
ACCOUNTS = 8
TX_PERIOD = 64
#: A step between the senders of one block's transactions: the senders of one block are distinct accounts.
SENDER_STEP = 3


def _word(value: int | str) -> str:
    """A 32-byte ABI word, hex without the prefix."""
    number = int(value, 16) if isinstance(value, str) else value
    return f"{number:064x}"


class EthApi:
    """The standard methods; the chain's gas limit comes from `gas_limit`, which the EVM chain API refines."""

    def __init__(self, service: NodeService, chain: EvmChain | None = None) -> None:
        self.world = service.world
        self.chain: EvmChain = chain or service.world.node.evm
        seed = self.chain.seed
        # The same wallet, peers and ERC-20 contracts the Data API names for this chain: its logs lead a crawl of
        # the node to identifiers the Data API knows.
        name, data = str(self.chain.chain_id), service.world.data
        self.accounts = [data.wallet(name)] + [ids.evm_address(seed, name, "peer", k) for k in range(ACCOUNTS - 1)]
        self.contracts = [data.erc20(name, k) for k in range(3)]
        # Transactions each account sends in the first r blocks of a period: its count at any block is closed form.
        self._sent = [[0] * (TX_PERIOD + 1) for _ in self.accounts]
        for r in range(TX_PERIOD):
            for k, row in enumerate(self._sent):
                row[r + 1] = row[r] + sum(self.sender(r, i) == k for i in range(self.tx_count(r)))

    def standard_methods(self) -> dict[str, Any]:
        return {
            "eth_chainId": self.chain_id, "eth_blockNumber": self.block_number,
            "eth_getBlockByNumber": self.get_block_by_number, "eth_getBlockByHash": self.get_block_by_hash,
            "eth_getBalance": self.get_balance, "eth_getTransactionCount": self.get_transaction_count,
            "eth_getCode": self.get_code, "eth_gasPrice": self.gas_price, "eth_feeHistory": self.fee_history,
            "eth_call": self.call, "eth_syncing": self.syncing, "net_version": self.net_version,
            "web3_clientVersion": self.client_version, "eth_getLogs": self.get_logs,
        }

    def gas_limit(self, n: int) -> int:
        return 8_000_000

    # --- block parameters ---

    def _latest(self) -> int:
        with self.world.lock:
            return self.chain.latest(self.world.clock.now)

    def _block(self, value: Any) -> int:
        """The number of the block a block parameter names (tag, number or hash); an error when there is none."""
        latest = self._latest()
        if value is None or value in LATEST_TAGS:
            return latest
        if value == "earliest":
            return 0
        if isinstance(value, str) and len(value) == 66 and value.startswith("0x"):
            n = self.chain.block_of_hash(value)
            if n is None or n > latest:
                raise RpcError(SERVER_ERROR, f"header for hash {value} not found")
            return n
        n = quantity(value, "block number")
        if n > latest:
            raise RpcError(SERVER_ERROR, f"header for number {n} not found")
        return n

    # --- the chain's contents ---

    def tx_count(self, n: int) -> int:
        return 1 + ids.number(self.chain.seed, "txs", n % TX_PERIOD, below=TX_SLOTS - 1)

    def sender(self, n: int, i: int) -> int:
        """The account (its position in `accounts`) that sends transaction i of block n."""
        return (n + SENDER_STEP * i) % ACCOUNTS

    def sent(self, k: int, n: int) -> int:
        """Transactions account k sent in blocks 0 to n (none for n = -1): its nonce after block n."""
        full, rest = divmod(n + 1, TX_PERIOD)
        return full * self._sent[k][TX_PERIOD] + self._sent[k][rest]

    def fee(self, k: int) -> int:
        """What each transaction of account k costs it, in wei."""
        return 10**15 + ids.number(self.chain.seed, "fee", k, below=10**15)

    def base_fee(self, n: int) -> int:
        return 25 * GWEI + ids.number(self.chain.seed, "base-fee", n, below=5 * GWEI)

    def tx_hash(self, n: int, i: int) -> str:
        return "0x" + tagged_bytes(("evm-tx", self.chain.seed), n * TX_SLOTS + i).hex()

    def _tx_gas(self, n: int, i: int) -> int:
        return 35_000 + ids.number(self.chain.seed, "gas", n, i, below=60_000)

    def transaction(self, n: int, i: int) -> dict[str, Any]:
        seed = self.chain.seed
        k = self.sender(n, i)
        sender = self.accounts[k]
        token = self.contracts[ids.number(seed, "to", n, i, below=len(self.contracts))]
        recipient = self.accounts[ids.number(seed, "recipient", n, i, below=len(self.accounts))]
        amount = ids.number(seed, "amount", n, i, below=10**21)
        tip = GWEI + ids.number(seed, "tip", n, i, below=2 * GWEI)
        signature = ids.digest(seed, "signature", n, i)
        return {
            "type": "0x2", "chainId": hex(self.chain.chain_id), "nonce": hex(self.sent(k, n - 1)),
            "gas": hex(self._tx_gas(n, i)), "maxFeePerGas": hex(2 * self.base_fee(n) + tip),
            "maxPriorityFeePerGas": hex(tip), "gasPrice": hex(self.base_fee(n) + tip),
            "to": token, "value": "0x0", "accessList": [],
            "input": "0xa9059cbb" + _word(recipient) + _word(amount),
            "r": hex(int.from_bytes(signature[:16], "big") + 1), "s": hex(int.from_bytes(signature[16:], "big") + 1),
            "v": hex(signature[0] & 1), "yParity": hex(signature[0] & 1),
            "hash": self.tx_hash(n, i), "blockHash": self.chain.block_hash(n), "blockNumber": hex(n),
            "transactionIndex": hex(i), "from": sender,
        }

    def logs_of(self, n: int) -> list[dict[str, Any]]:
        """One ERC-20 Transfer log per transaction of block n."""
        out = []
        for i in range(self.tx_count(n)):
            tx = self.transaction(n, i)
            recipient, amount = "0x" + tx["input"][10:74], "0x" + tx["input"][74:]
            out.append({"address": tx["to"], "topics": [TRANSFER_TOPIC, "0x" + _word(tx["from"]), recipient],
                        "data": amount, "blockNumber": hex(n), "blockHash": tx["blockHash"],
                        "transactionHash": tx["hash"], "transactionIndex": hex(i), "logIndex": hex(i),
                        "removed": False})
        return out

    def block(self, n: int, *, full: bool) -> dict[str, Any]:
        chain, seed = self.chain, self.chain.seed
        count = self.tx_count(n)
        bloom = hashlib.shake_256(f"{seed}\x1fbloom\x1f{n}".encode()).digest(256)
        return {
            "number": hex(n), "hash": chain.block_hash(n),
            "parentHash": chain.block_hash(n - 1) if n else ZERO_HASH, "sha3Uncles": EMPTY_UNCLES,
            "miner": COINBASE, "stateRoot": ids.hex_hash(seed, "state-root", n),
            "transactionsRoot": ids.hex_hash(seed, "transactions-root", n),
            "receiptsRoot": ids.hex_hash(seed, "receipts-root", n), "logsBloom": "0x" + bloom.hex(),
            "difficulty": "0x1", "gasLimit": hex(self.gas_limit(n)),
            "gasUsed": hex(sum(self._tx_gas(n, i) for i in range(count))), "timestamp": hex(chain.block_time(n)),
            "extraData": "0x", "mixHash": ZERO_HASH, "nonce": "0x0000000000000000", "size": hex(600 + 180 * count),
            "baseFeePerGas": hex(self.base_fee(n)),
            "transactions": [self.transaction(n, i) if full else self.tx_hash(n, i) for i in range(count)],
            "uncles": [],
        }

    # --- methods ---

    def chain_id(self, call: RpcCall) -> str:
        positional(call, most=0)
        return hex(self.chain.chain_id)

    def block_number(self, call: RpcCall) -> str:
        positional(call, most=0)
        return hex(self._latest())

    def _get_block(self, call: RpcCall, *, by_hash: bool) -> dict | None:
        params = positional(call, most=2)
        if not params:
            raise invalid_params("missing value for required argument 0")
        if by_hash and not (isinstance(params[0], str) and len(params[0]) == 66):
            raise invalid_params("the block hash must be 32 bytes of 0x hex")
        full = params[1] if len(params) > 1 else False
        if not isinstance(full, bool):
            raise invalid_params("invalid argument 1: the hydrated flag must be a boolean")
        try:
            n = self._block(params[0])
        except RpcError as exc:
            if exc.code == SERVER_ERROR:
                return None  # an unknown block is null, as Ethereum nodes answer
            raise
        return self.block(n, full=full)

    def get_block_by_number(self, call: RpcCall) -> dict | None:
        return self._get_block(call, by_hash=False)

    def get_block_by_hash(self, call: RpcCall) -> dict | None:
        return self._get_block(call, by_hash=True)

    def _account_query(self, call: RpcCall) -> tuple[str, int]:
        params = positional(call, most=2)
        if not params or not isinstance(params[0], str) or len(params[0]) != 42 or params[0][:2] != "0x":
            raise invalid_params("invalid argument 0: an address is 20 bytes of 0x hex")
        try:
            int(params[0][2:], 16)
        except ValueError:
            raise invalid_params("invalid argument 0: an address is 20 bytes of 0x hex") from None
        return params[0].lower(), self._block(params[1] if len(params) > 1 else None)

    def get_balance(self, call: RpcCall) -> str:
        address, n = self._account_query(call)
        if address in self.accounts:
            k = self.accounts.index(address)
            # Only its own transactions move an account's balance: each costs it its fee.
            start = 10**22 + ids.number(self.chain.seed, "balance", address, below=10**21)
            return hex(start - self.sent(k, n) * self.fee(k))
        return "0x0"

    def get_transaction_count(self, call: RpcCall) -> str:
        address, n = self._account_query(call)
        if address in self.accounts:
            return hex(self.sent(self.accounts.index(address), n))
        return "0x1" if address in self.contracts else "0x0"  # a contract's nonce starts at 1 (EIP-161)

    def get_code(self, call: RpcCall) -> str:
        address, _ = self._account_query(call)
        if address in self.contracts:
            body = hashlib.shake_256(f"{self.chain.seed}\x1fcode\x1f{address}".encode()).digest(320)
            return "0x608060405234801561001057600080fd5b50" + body.hex()
        return "0x"

    def gas_price(self, call: RpcCall) -> str:
        positional(call, most=0)
        return hex(self.base_fee(self._latest()) + GWEI)

    def fee_history(self, call: RpcCall) -> dict:
        params = positional(call, most=3)
        if len(params) < 2:
            raise invalid_params(f"missing value for required argument {len(params)}")
        count = min(quantity(params[0], "blockCount"), MAX_FEE_HISTORY)
        newest = self._block(params[1])
        percentiles = params[2] if len(params) > 2 and params[2] is not None else None
        if percentiles is not None:
            numbers = isinstance(percentiles, list) and all(
                isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p <= 100 for p in percentiles)
            if not numbers or percentiles != sorted(percentiles):
                raise invalid_params("invalid reward percentiles: increasing numbers from 0 to 100")
        if count == 0:
            return {"oldestBlock": "0x0", "baseFeePerGas": [], "gasUsedRatio": []}
        oldest = max(0, newest - count + 1)
        blocks = range(oldest, newest + 1)
        result: dict[str, Any] = {
            "oldestBlock": hex(oldest),
            "baseFeePerGas": [hex(self.base_fee(n)) for n in range(oldest, newest + 2)],
            "gasUsedRatio": [sum(self._tx_gas(n, i) for i in range(self.tx_count(n))) / self.gas_limit(n)
                             for n in blocks],
        }
        if percentiles is not None:
            result["reward"] = [[hex(GWEI + int(p * GWEI / 50)) for p in percentiles] for _ in blocks]
        return result

    def call(self, call: RpcCall) -> str:
        params = positional(call, most=2)
        if not params or not isinstance(params[0], dict):
            raise invalid_params("invalid argument 0: a call object")
        message = params[0]
        self._block(params[1] if len(params) > 1 else None)
        data = message.get("input", message.get("data")) or "0x"
        if not isinstance(data, str) or not data.startswith("0x") or len(data) % 2:
            raise invalid_params("invalid argument 0: data must be 0x hex of whole bytes")
        target = message.get("to")
        if not isinstance(target, str):
            return "0x"  # a creation call returns the code it would deploy: none here
        if target.lower() == IDENTITY:
            return data.lower()
        if target.lower() in self.contracts:
            return "0x" + _word(ids.hex_hash(self.chain.seed, "call", target.lower(), data.lower()))
        return "0x"

    def syncing(self, call: RpcCall) -> bool:
        positional(call, most=0)
        return False

    def net_version(self, call: RpcCall) -> str:
        positional(call, most=0)
        return str(self.chain.chain_id)

    def client_version(self, call: RpcCall) -> str:
        positional(call, most=0)
        return f"conformance-reference/v{__version__}"

    def _log_range(self, query: dict[str, Any]) -> range:
        if query.get("blockHash") is not None:
            if query.get("fromBlock") is not None or query.get("toBlock") is not None:
                raise invalid_params("invalid argument 0: cannot specify both blockHash and fromBlock/toBlock")
            n = self._block(query["blockHash"]) if isinstance(query["blockHash"], str) else None
            if n is None:
                raise invalid_params("invalid argument 0: blockHash must be a 32-byte hash")
            return range(n, n + 1)
        latest = self._latest()

        def edge(value: Any) -> int:
            if value is None or value in LATEST_TAGS:
                return latest
            return 0 if value == "earliest" else min(quantity(value, "block number"), latest)
        first, last = edge(query.get("fromBlock")), edge(query.get("toBlock"))
        if first > last:
            raise RpcError(SERVER_ERROR, "invalid block range params")
        if last - first + 1 > MAX_LOG_BLOCKS:
            raise RpcError(-32005, f"query exceeds max block range {MAX_LOG_BLOCKS}")
        return range(first, last + 1)

    def get_logs(self, call: RpcCall) -> list[dict[str, Any]]:
        params = positional(call, most=1)
        if not params or not isinstance(params[0], dict):
            raise invalid_params("invalid argument 0: a filter object")
        query = params[0]
        addresses = query.get("address")
        wanted = {a.lower() for a in ([addresses] if isinstance(addresses, str) else addresses or [])
                  if isinstance(a, str)}
        topics = query.get("topics") or []
        if not isinstance(topics, list):
            raise invalid_params("invalid argument 0: topics must be an array")
        out = []
        for n in self._log_range(query):
            for log in self.logs_of(n):
                if wanted and log["address"] not in wanted:
                    continue
                if all(_topic_matches(log["topics"], k, rule) for k, rule in enumerate(topics)):
                    out.append(log)
        return out


def _topic_matches(topics: list[str], position: int, rule: Any) -> bool:
    if rule is None:
        return True
    if position >= len(topics):
        return False
    options = rule if isinstance(rule, list) else [rule]
    return any(isinstance(option, str) and option.lower() == topics[position] for option in options)
