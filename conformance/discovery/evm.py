"""Discovery over the Data API's EVM chains: listBlockchains names each EVM chain's evmChainId and its genesis
alloc (funded addresses, and code for contracts); the ERC balances of a funded address name token contracts, whose
transfers say which has a history, and getDeployment confirms a contract's deployment is indexed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from conformance.checks.data import plain_page_size
from conformance.clients.rest import RestClient
from conformance.discovery.crawl import Answer, Crawl, items, pointer
from conformance.discovery.data import DataPart
from conformance.discovery.record import Discovery
from conformance.discovery.tally import EVM_ADDRESS

#: Chains listBlockchains is read for (newest first); EVM chains whose funded addresses are asked about.
MAX_EVM_CHAINS = 3
MAX_BALANCE_PROBES = 4
TOKEN_KINDS = (("erc721", "listErc721Balances", "erc721TokenBalances", "listErc721Transactions", "erc721Token"),
               ("erc1155", "listErc1155Balances", "erc1155TokenBalances", "listErc1155Transactions", "erc1155Token"))


@dataclass
class EvmChain:
    """An EVM chain listBlockchains names: its IDs and the genesis accounts, funded wallets before contracts."""

    answer: Answer
    at: str
    blockchain_id: str | None
    evm_chain_id: str | None
    subnet_id: str | None = None
    wallets: list[tuple[str, str]] = field(default_factory=list)     # (address, pointer), largest balance first
    contracts: list[tuple[str, str]] = field(default_factory=list)

    @property
    def chain(self) -> str | None:
        """The chainId the EVM routes are called with: the EVM chain ID, else the blockchain ID."""
        return self.evm_chain_id or self.blockchain_id


def evm_chains(answer: Answer | None) -> list[EvmChain]:
    """The EVM chains of a listBlockchains answer, in its order."""
    out: list[EvmChain] = []
    if answer is None:
        return out
    for at, chain in items(answer.body, "blockchains"):
        evm_id = chain.get("evmChainId")
        evm_id = str(evm_id) if isinstance(evm_id, int) and not isinstance(evm_id, bool) else \
            evm_id if isinstance(evm_id, str) and evm_id.isdigit() else None
        blockchain = chain.get("blockchainId") if isinstance(chain.get("blockchainId"), str) else None
        genesis_data = chain.get("genesisData")
        genesis = genesis_data if isinstance(genesis_data, dict) else {}
        if evm_id is None and not genesis:
            continue
        subnet = chain.get("subnetId") if isinstance(chain.get("subnetId"), str) else None
        found = EvmChain(answer, at, blockchain, evm_id, subnet)
        genesis_alloc = genesis.get("alloc")
        alloc = genesis_alloc if isinstance(genesis_alloc, dict) else {}
        funded = []
        for key, account in alloc.items():
            address = key if str(key).startswith(("0x", "0X")) else f"0x{key}"
            if not EVM_ADDRESS.match(address) or not isinstance(account, dict):
                continue
            where = at + pointer("genesisData", "alloc", key)
            code = account.get("code")
            if isinstance(code, str) and code not in ("", "0x", "0X"):
                found.contracts.append((address.lower(), where))
            else:
                funded.append((_hex(account.get("balance")), address.lower(), where))
        found.wallets = [(address, where) for _, address, where in sorted(funded, key=lambda f: -f[0])]
        out.append(found)
    return out


def _hex(value: Any) -> int:
    try:
        return int(value, 16) if isinstance(value, str) and value.lower().startswith("0x") else int(value)
    except (TypeError, ValueError):
        return 0



class EvmCrawl(DataPart):
    """Picks the EVM chain the EVM routes are tested on, a funded address on it, and its token contracts."""

    def __init__(self, crawl: Crawl, client: RestClient, out: Discovery, given: Mapping[str, str]) -> None:
        super().__init__(crawl, client, out, given)
        self.erc20: list[tuple[str, Answer, str]] = []     # the wallet's ERC-20 contracts, where each was read
        self.contracts: list[tuple[str, str]] = []          # genesis contracts of the chosen chain
        self.chosen: EvmChain | None = None                   # the EVM chain the EVM routes are tested on

    def blockchains(self) -> list[EvmChain]:
        answer = self.crawl.rest(self.client, "listBlockchains", {"network": self.network},
                                 {"pageSize": plain_page_size("listBlockchains"), "sortOrder": "desc"})
        self._search(("data_evm_chain_id", "data_evm_blockchain_id", "evm_chain_id", "evm_chain", "blockchain_id"),
                     f"listBlockchains on {self.network} ({'no answer' if answer is None else 'evmChainId'})")
        return evm_chains(answer)

    def evm(self, chains: list[EvmChain], preferred: tuple[str | None, ...]) -> None:
        """Picks the EVM chain the EVM routes are tested on and a funded address on it, then its tokens."""
        given_chain = self.given.get("data_evm_chain_id")
        wanted = [p for p in (given_chain, *preferred) if p]
        vouched = [c for w in wanted for c in chains if w in (c.evm_chain_id, c.blockchain_id)]
        ordered = list(vouched)
        if not given_chain:   # a given chain is the one tested; else any listed chain with funded addresses may be
            ordered += [c for c in chains if c not in ordered and c.wallets]
        wallet = self._wallet(ordered[:MAX_EVM_CHAINS], given_chain, vouched)
        chain = self.known("data_evm_chain_id") or (wanted[0] if wanted else None)
        if not chain:
            return
        if wallet is None and (given := self.given.get("data_evm_address")):
            wallet = given
        if wallet is None:
            return
        self._tokens(chain, wallet)

    def _wallet(self, chains: list[EvmChain], given_chain: str | None, vouched: list[EvmChain]) -> str | None:
        """The first funded genesis address with ERC-20 balances; records its chain.

        Without one, an address whose balances answered, else one whose balances were asked for and not refused (a
        balance route that answers 500 or no JSON must fail its tests, not make them skip), else a chain the operator
        or the node names. A chain whose balances were refused (4XX) at every address asked is never chosen: the
        Data API says it serves no such chain, and with no chain confirmed the tests of the EVM routes skip saying
        so, rather than fail on a chain only the listing vouched for (a listing's deviation, such as an order that
        puts other chains first, fails the listing's own rules, not every route that would have used it).
        """
        given_wallet = self.given.get("data_evm_address")
        answered: tuple[EvmChain, str, str] | None = None
        unrefused: tuple[EvmChain, str, str] | None = None
        refusals: dict[int, list[str]] = {}     # id(chain) -> the statuses of the refusals of its balances
        served: set[int] = set()                 # id(chain) of chains some balance request was not refused on
        probes = 0
        for chain in chains:
            addresses: list[tuple[str, str]] = [(given_wallet, "")] if given_wallet else chain.wallets[:2]
            for address, at in addresses:
                if probes >= MAX_BALANCE_PROBES:
                    break
                probes += 1
                # str() as the path template did already: a chain listed with neither ID is asked for as "None"
                route_chain = str(given_chain or chain.chain)
                sent = self.crawl.sent
                answer = self.crawl.rest(self.client, "listErc20Balances", {"chainId": route_chain, "address": address},
                                         {"pageSize": plain_page_size("listErc20Balances")})
                refused = self.crawl.refused
                self._search(("data_evm_address", "data_erc20_contract"),
                             f"listErc20Balances of genesis addresses on chain {route_chain}"
                             + (f" (answered {self.crawl.status})" if refused else ""))
                if refused:
                    refusals.setdefault(id(chain), []).append(str(self.crawl.status))
                    continue
                if self.crawl.sent == sent:   # the crawl is spent: nothing was asked
                    continue
                served.add(id(chain))
                if answer is None:
                    unrefused = unrefused or (chain, address, at)
                    continue
                tokens = [(p, t) for p, t in items(answer.body, "erc20TokenBalances")
                          if isinstance(t.get("address"), str) and EVM_ADDRESS.match(t["address"])]
                if tokens:
                    self._choose(chain, address, at)
                    # tokens the target calls malicious last: a real token is the likelier to have transfers
                    tokens.sort(key=lambda pt: pt[1].get("tokenReputation") == "Malicious")
                    self.erc20 = [(t["address"].lower(), answer, p + "/address") for p, t in tokens]
                    return address
                answered = answered or (chain, address, at)
        refused_chains = [c for c in chains if id(c) in refusals and id(c) not in served]
        fallback = answered or unrefused
        if fallback is None:
            # named by a second source and not refused: its IDs stand, though no address on it is confirmed
            kept = [c for c in vouched if c not in refused_chains]
            fallback = (kept[0], "", "") if kept else None
        for chain in refused_chains:
            self._refused(chain, refusals[id(chain)])
        if fallback:
            self._choose(*fallback)
            return fallback[1] or None
        return None

    def _refused(self, chain: EvmChain, statuses: list[str]) -> None:
        """Says, where the EVM identifiers are looked for, that the balance routes refused a listed chain."""
        answered = "/".join(dict.fromkeys(statuses))
        self._search(("data_evm_chain_id", "data_evm_blockchain_id"),
                     f"listErc20Balances on chain {chain.chain}, which listBlockchains names (answered {answered})")
        self.out.notes.append(f"listBlockchains names EVM chain {chain.chain}, whose balances are not served "
                              f"(answered {answered}): it is not the EVM chain tested")

    def _choose(self, chain: EvmChain, address: str, at: str) -> None:
        if chain.evm_chain_id:
            self.out.add("data_evm_chain_id", chain.evm_chain_id, "listBlockchains", chain.answer.request,
                         chain.at + "/evmChainId")
        if chain.blockchain_id:
            self.out.add("data_evm_blockchain_id", chain.blockchain_id, "listBlockchains", chain.answer.request,
                         chain.at + "/blockchainId")
        if at:
            self.out.add("data_evm_address", address, "listBlockchains", chain.answer.request, at)
        self.contracts = chain.contracts
        self.chosen = chain

    def _tokens(self, chain: str, wallet: str) -> None:
        values = {"chainId": chain, "address": wallet}
        if not self.known("data_erc20_contract"):
            self._erc20_with_transfers(chain)
        for kind, balances, member, transfers, token in TOKEN_KINDS:
            name = f"data_{kind}_contract"
            if self.known(name):
                continue
            answer = self.crawl.rest(self.client, balances, values, {"pageSize": 10})
            self._search((name,), f"{balances} of {wallet}")
            for at, item in items(answer.body if answer else None, member):
                # an item was read from the answer, so there is one
                if answer is not None and isinstance(item.get("address"), str) and EVM_ADDRESS.match(item["address"]):
                    self.out.add(name, item["address"].lower(), balances, answer.request, at + "/address")
                    break
            if self.known(name):
                continue
            answer = self.crawl.rest(self.client, transfers, values, {"pageSize": 10})
            self._search((name,), f"{transfers} of {wallet}")
            for at, item in items(answer.body if answer else None, "transactions"):
                # an item was read from the answer, so there is one
                token_item = item.get(token)
                found = token_item if isinstance(token_item, dict) else {}
                if answer is not None and isinstance(found.get("address"), str) and EVM_ADDRESS.match(found["address"]):
                    self.out.add(name, found["address"].lower(), transfers, answer.request, f"{at}/{token}/address")
                    break
        self._deployment(chain)

    def _erc20_with_transfers(self, chain: str) -> None:
        """The first ERC-20 contract of the wallet's balances that lists transfers (else the first one)."""
        for address, answer, at in self.erc20[:3]:
            transfers = self.crawl.rest(self.client, "listTokenTransfers", {"chainId": chain, "address": address},
                                        {"pageSize": 10})
            self.out.search("data_erc20_contract", f"listTokenTransfers of the wallet's ERC-20 contracts on {chain}")
            if transfers is not None and any(True for _ in items(transfers.body, "transfers")):
                self.out.add("data_erc20_contract", address, answer.source, answer.request, at)
                return
        if self.erc20:
            address, answer, at = self.erc20[0]
            self.out.add("data_erc20_contract", address, answer.source, answer.request, at)

    def _deployment(self, chain: str) -> None:
        """A contract whose deployment getDeployment returns: a token contract, else a genesis contract."""
        if self.known("data_contract_address"):
            return
        candidates = [self.known(f"data_{kind}_contract") for kind in ("erc20", "erc721", "erc1155")]
        candidates += [address for address, _ in self.contracts]
        addresses = [c for c in dict.fromkeys(candidates) if c]
        for address in addresses[:2]:
            answer = self.crawl.rest(self.client, "getDeployment", {"chainId": chain, "address": address})
            self.out.search("data_contract_address", f"getDeployment of token contracts on {chain}")
            if answer is not None and isinstance(answer.body, dict):
                self.out.add("data_contract_address", address, "getDeployment", answer.request, "")
                return
        for kind in ("erc20", "erc721", "erc1155"):  # a token contract is a contract: its deployment is due
            found = self.out.found.get(f"data_{kind}_contract")
            if found is not None and candidates and found.value == candidates[0]:
                self.out.add("data_contract_address", found.value, found.source, found.request, found.pointer)
