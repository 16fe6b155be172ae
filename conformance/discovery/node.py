"""Discovery over the node: the EVM chain its RPC serves, and the token contracts and holders its logs name.

Document 1 cannot list the node's chains: the candidates are the EVM chains the Data API lists (when it is given),
then the chain the index paths call C, by that alias.
"""
from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from conformance.clients.http import HttpSession
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.discovery.crawl import Answer, Crawl, pointer
from conformance.discovery.evm import EvmChain
from conformance.discovery.record import Discovery
from conformance.discovery.tally import EVM_ADDRESS, Tally

#: The alias document 1's index paths use for the C-Chain.
C_ALIAS = "C"
MAX_CHAIN_PROBES = 3
#: Transfer(address,address,uint256) of ERC-20 (three topics) and ERC-721 (four), and ERC-1155's two events.
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
#: Blocks one eth_getLogs asks about (nodes cap the range; a refused range is retried smaller once).
LOG_BLOCKS = (1024, 128)
ZERO_ADDRESS = "0x" + "0" * 40


def quantity(value: Any) -> int | None:
    if isinstance(value, str) and value.startswith("0x"):
        try:
            return int(value, 16)
        except ValueError:
            return None
    return None


class NodeCrawl:
    """The node part of a crawl: which EVM chain answers, its chain ID, and (when still missing) token identifiers."""

    def __init__(self, crawl: Crawl, http: HttpSession, out: Discovery, *, node_url: str | None,
                 evm_rpc_url: str | None, evm_chain: str | None, given: Mapping[str, str]) -> None:
        self.crawl = crawl
        self.http = http
        self.out = out
        self.node_url = node_url
        self.evm_rpc_url = evm_rpc_url
        self.given_chain = evm_chain or given.get("evm_chain")
        self.given = given
        self.chain: str | None = self.given_chain   # the EVM chain the node answers for
        self.chain_id: str | None = None            # its EVM chain ID (decimal)

    def client(self, chain: str | None) -> JsonRpcClient:
        return JsonRpcClient(self.http, self.evm_rpc_url or f"{self.node_url}/ext/bc/{chain}/rpc")

    def evm_chain(self, chains: list[EvmChain]) -> None:
        """The EVM chain to test: the given one, else the first listed chain the node serves, else alias C."""
        if self.given_chain or self.evm_rpc_url:
            answer = self.crawl.rpc(self.client(self.given_chain), "eth_chainId", [])
            self._chain_id(answer)
            # The given chain itself, when it is a listed blockchain ID; else the listed chain of its EVM chain ID.
            named = [c for c in chains if self.given_chain and c.blockchain_id == self.given_chain]
            match = named or [c for c in chains if self.chain_id and c.evm_chain_id == self.chain_id]
            if named and self.chain_id and named[0].evm_chain_id and named[0].evm_chain_id != self.chain_id:
                self.out.notes.append(f"/ext/bc/{self.given_chain}/rpc answers eth_chainId {self.chain_id}, but "
                                      f"listBlockchains lists {self.given_chain} with evmChainId "
                                      f"{named[0].evm_chain_id}: one of the two answers for another chain")
            if match and match[0].blockchain_id and self._same_chain(match[0].blockchain_id):
                self.out.add("blockchain_id", match[0].blockchain_id, "listBlockchains", match[0].answer.request,
                             match[0].at + "/blockchainId")
            return
        if not self.node_url:
            return
        probes = [c for c in chains if c.blockchain_id][:MAX_CHAIN_PROBES]
        for candidate in [*probes, None]:
            name = candidate.blockchain_id if candidate else C_ALIAS
            answer = self.crawl.rpc(self.client(name), "eth_chainId", [])
            for slot in ("evm_chain", "blockchain_id"):
                self.out.search(slot, f"eth_chainId at /ext/bc/{name}/rpc")
            if answer is None:
                continue
            self.chain = name
            if candidate is not None:
                for slot in ("evm_chain", "blockchain_id"):
                    self.out.add(slot, name, "listBlockchains", candidate.answer.request,
                                 candidate.at + "/blockchainId")
            else:
                self.out.add("evm_chain", name, "eth_chainId", answer.request, "")
            self._chain_id(answer, candidate)
            if candidate is None:
                match = [c for c in chains if self.chain_id and c.evm_chain_id == self.chain_id and c.blockchain_id]
                if match and (chain_id := match[0].blockchain_id) and self._same_chain(chain_id):
                    self.out.add("blockchain_id", chain_id, "listBlockchains", match[0].answer.request,
                                 match[0].at + "/blockchainId")
            elif candidate.evm_chain_id and self.chain_id and candidate.evm_chain_id != self.chain_id:
                self.out.notes.append(f"/ext/bc/{name}/rpc answers eth_chainId {self.chain_id}, but listBlockchains "
                                      f"lists {name} with evmChainId {candidate.evm_chain_id}: one of the two "
                                      "answers for another chain")
            return

    def _same_chain(self, blockchain_id: str) -> bool:
        """Whether the blockchain ID another route named (listBlockchains, by EVM chain ID) is confirmed by the node:
        its own path answers the chain ID the tested chain's path gave. An alias and an ID the node serves apart
        are never taken for one chain, so the tests that take the ID (admin.aliasChain) test the chain tested here.
        Where the node's paths cannot be asked (an --evm-rpc-url), the listing stands."""
        if not self.node_url or not self.chain_id or blockchain_id == self.chain:
            return True
        answer = self.crawl.rpc(self.client(blockchain_id), "eth_chainId", [])
        number = quantity(answer.body.get("result")) if answer else None
        if number is not None and str(number) == self.chain_id:
            return True
        self.out.notes.append(f"listBlockchains names {blockchain_id} for EVM chain ID {self.chain_id}, but "
                              f"/ext/bc/{blockchain_id}/rpc answers eth_chainId "
                              f"{number if number is not None else '(nothing)'}: it is not taken as the ID of "
                              f"{self.chain}")
        self.out.search("blockchain_id", f"eth_chainId at /ext/bc/{blockchain_id}/rpc (not the chain tested)")
        return False

    def _chain_id(self, answer: Answer | None, candidate: EvmChain | None = None) -> None:
        number = quantity(answer.body.get("result")) if answer else None
        if number is not None and answer is not None:
            self.chain_id = str(number)
            self.out.add("evm_chain_id", self.chain_id, "eth_chainId", answer.request, "/result")
        elif candidate is not None and candidate.evm_chain_id:
            self.chain_id = candidate.evm_chain_id
            self.out.add("evm_chain_id", self.chain_id, "listBlockchains", candidate.answer.request,
                         candidate.at + "/evmChainId")

    def logs(self, names: tuple[str, ...]) -> None:
        """Token contracts and a holder from the Transfer, TransferSingle and TransferBatch logs of recent blocks,
        for the `names` (data_evm_address, data_erc…_contract) that are still missing."""
        missing = [n for n in names if not self.given.get(n) and not self.out.value(n)]
        if not missing or not (self.chain or self.evm_rpc_url):
            return
        client = self.client(self.chain)
        head = self.crawl.rpc(client, "eth_blockNumber", [])
        latest = quantity(head.body.get("result")) if head else None
        for name in missing:
            self.out.search(name, "eth_getLogs (Transfer, TransferSingle, TransferBatch) "
                                  f"at {client.url.split('/ext/', 1)[-1]}")
        if latest is None:
            return
        answer = None
        for span in LOG_BLOCKS:
            query = {"fromBlock": hex(max(0, latest - span + 1)), "toBlock": hex(latest),
                     "topics": [[TRANSFER, TRANSFER_SINGLE, TRANSFER_BATCH]]}
            answer = self.crawl.rpc(client, "eth_getLogs", [query])
            if answer is not None and isinstance(answer.body.get("result"), list):
                break
            answer = None
        if answer is None:
            return
        tallies = {"data_erc20_contract": Tally(), "data_erc721_contract": Tally(), "data_erc1155_contract": Tally(),
                   "data_evm_address": Tally()}
        for index, log in enumerate(answer.body["result"]):
            if not isinstance(log, dict) or not isinstance(log.get("address"), str):
                continue
            topics = [t.lower() for t in log.get("topics") or [] if isinstance(t, str)]
            if not topics or not EVM_ADDRESS.match(log["address"]):
                continue
            at = pointer("result", index)
            if topics[0] == TRANSFER and len(topics) in (3, 4):
                kind, holders = ("data_erc20_contract" if len(topics) == 3 else "data_erc721_contract"), (1, 2)
            elif topics[0] in (TRANSFER_SINGLE, TRANSFER_BATCH) and len(topics) == 4:
                kind, holders = "data_erc1155_contract", (2, 3)
            else:
                continue
            tallies[kind].add(log["address"].lower(), answer, at + "/address")
            for position in holders:
                holder = "0x" + topics[position][-40:]
                if EVM_ADDRESS.match(holder) and holder != ZERO_ADDRESS:
                    tallies["data_evm_address"].add(holder, answer, at + pointer("topics", position))
        for name in missing:
            tallies[name].record_top(self.out, name)
        if not self.given.get("evm_address"):
            tallies["data_evm_address"].record_top(self.out, "evm_address")
