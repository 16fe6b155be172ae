"""Discovery over the Data API's primary network routes: listTransactions needs no address (only its filters do)
and its items carry UTXOs with addresses and chain IDs; P-Chain L1 transactions carry validation and subnet IDs;
validators carry node and subnet IDs; an X-Chain address's oldest UTXOs name the vertex-era chain.
"""
from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from conformance.checks.data import plain_page_size
from conformance.clients.rest import RestClient
from conformance.discovery.crawl import Answer, Crawl, items, strings
from conformance.discovery.data import ALIASES, NETWORKS, DataPart
from conformance.discovery.evm import EvmChain
from conformance.discovery.record import Discovery
from conformance.discovery.tally import BECH32_ADDRESS, CB58, EVM_ADDRESS, NODE_ID, Tally


class PrimaryCrawl(DataPart):
    """Addresses and chain IDs of the P-, X- and C-Chain, an L1 validation, a node with blocks, and subnets."""

    def __init__(self, crawl: Crawl, client: RestClient, out: Discovery, given: Mapping[str, str]) -> None:
        super().__init__(crawl, client, out, given)
        self.tx_nodes = Tally()                               # node IDs P-Chain staking transactions name
        self.l1_subnets = Tally()                             # subnets P-Chain L1 transactions name

    def primary(self) -> None:
        """Addresses, chain IDs and L1 validation IDs from each primary chain's latest transactions."""
        seen: dict[str, Tally] = {}
        for letter in "pxc":
            alias = self.chain_path(letter)
            answer = self.crawl.rest(self.client, "listTransactions", {"network": self.network, "blockchainId": alias},
                                     {"pageSize": plain_page_size("listTransactions")})
            status = "no answer" if answer is None else "addresses of its UTXOs"
            what = f"listTransactions on {alias} ({status})"
            self._search((f"data_{letter}_chain_address", f"data_{letter}_chain_id"), what)
            if letter == "p":
                self._search(("data_l1_validation_id", "data_primary_subnet_id"), what)
            if letter == "c":
                self._search(("data_c_chain_evm_address",), what)
            if answer is None:
                continue
            addresses, evm, chain_ids, validations, subnets = Tally(), Tally(), Tally(), Tally(), Tally()
            for at, tx in items(answer.body, "transactions"):
                for where, text in strings(tx, ("addresses",), at):
                    if EVM_ADDRESS.match(text):
                        evm.add(text.lower(), answer, where)
                    elif BECH32_ADDRESS.match(text):
                        addresses.add(text, answer, where)
                for where, text in strings(tx.get("emittedUtxos"), ("createdOnChainId",), at + "/emittedUtxos"):
                    if CB58.match(text):
                        chain_ids.add(text, answer, where)
                for where, text in strings(tx.get("l1ValidatorDetails"), ("validationId",), at + "/l1ValidatorDetails"):
                    validations.add(text, answer, where)
                for where, text in strings(tx.get("l1ValidatorDetails"), ("subnetId",), at + "/l1ValidatorDetails"):
                    if CB58.match(text):
                        self.l1_subnets.add(text, answer, where)
                if str(tx.get("txType", "")).startswith(("AddValidator", "AddDelegator")) and \
                        isinstance(tx.get("subnetId"), str) and CB58.match(tx["subnetId"]):
                    subnets.add(tx["subnetId"], answer, at + "/subnetId")
                if isinstance(tx.get("nodeId"), str) and NODE_ID.match(tx["nodeId"]):
                    self.tx_nodes.add(tx["nodeId"], answer, at + "/nodeId")
            chain_ids.record_top(self.out, f"data_{letter}_chain_id")
            if letter == "p":
                validations.record_top(self.out, "data_l1_validation_id")
                subnets.record_top(self.out, "data_primary_subnet_id")
            if letter == "c":
                evm.record_top(self.out, "data_c_chain_evm_address")
            self._address_with_utxos(letter, addresses)
            seen[letter] = addresses
        for letter in "pxc":   # a key has the same address on each chain: another chain's address is a fair guess
            for other in "pxc":
                if not self.known(f"data_{letter}_chain_address") and seen.get(other) and seen[other].ranked():
                    seen[other].record(self.out, f"data_{letter}_chain_address", seen[other].ranked()[0])

    def _address_with_utxos(self, letter: str, addresses: Tally) -> None:
        """The most frequent address that owns UTXOs on the chain (X-Chain: oldest first, for the vertex era)."""
        name = f"data_{letter}_chain_address"
        ranked = addresses.ranked()
        if self.known(name) and letter != "x":
            return
        candidates = [self.known(name)] if self.known(name) else ranked[:2]
        params = {"pageSize": 20, **({"sortOrder": "asc"} if letter == "x" else {})}
        for address in candidates:
            answer = self.crawl.rest(self.client, "listUtxos",
                                     {"network": self.network, "blockchainId": self.chain_path(letter)},
                                     params, {"addresses": address})
            self.out.search(name, f"listUtxos on {ALIASES[letter]} of the addresses its transactions name")
            utxos = list(items(answer.body if answer else None, "utxos"))
            if not utxos or answer is None:
                continue
            if address in addresses.where:
                addresses.record(self.out, name, address)
            if letter == "x":
                self._vertex_era(answer, utxos)
            return
        if ranked:
            addresses.record(self.out, name, ranked[0])

    def _vertex_era(self, answer: Answer, utxos: list[tuple[str, dict[str, Any]]]) -> None:
        """The X-Chain's vertex-era ID: the chain its oldest UTXOs were created on, when not the X-Chain itself."""
        era = Tally()
        others = tuple(self.known(f"data_{letter}_chain_id") for letter in "pxc")
        for at, utxo in utxos:
            created = utxo.get("createdOnChainId")
            if isinstance(created, str) and CB58.match(created):
                era.add(created, answer, at + "/createdOnChainId")
        era.record_top(self.out, "data_x_chain_vertex_id", without=others)

    def validators(self, chosen: EvmChain | None = None) -> None:
        """A node with the most validations, the primary network's subnet and another subnet with validators."""
        answer = self.crawl.rest(self.client, "listValidators", {"network": self.network},
                                 {"pageSize": plain_page_size("listValidators")})
        self._search(("data_block_node_id", "data_primary_subnet_id", "data_subnet_id"),
                     f"listValidators on {self.network} ({'no answer' if answer is None else 'nodeId, subnetId'})")
        if answer is None:
            self.tx_nodes.record_top(self.out, "data_block_node_id")
            self._other_subnet(chosen)
            return
        nodes, primary, subnets = Tally(), Tally(), Tally()
        for at, validator in items(answer.body, "validators"):
            node, subnet = validator.get("nodeId"), validator.get("subnetId")
            if isinstance(node, str) and NODE_ID.match(node):
                nodes.add(node, answer, at + "/nodeId")
            if isinstance(subnet, str) and CB58.match(subnet):
                subnets.add(subnet, answer, at + "/subnetId")
                # only primary network validations have a delegation fee
                if isinstance(validator.get("delegationFee"), str):
                    primary.add(subnet, answer, at + "/subnetId")
        if not nodes.record_top(self.out, "data_block_node_id"):
            self.tx_nodes.record_top(self.out, "data_block_node_id")
        if not primary.record_top(self.out, "data_primary_subnet_id"):
            subnets.record_top(self.out, "data_primary_subnet_id")
        subnets.record_top(self.out, "data_subnet_id", without=(self.known("data_primary_subnet_id"),))
        self._other_subnet(chosen)

    def own_network(self, chains: list[EvmChain]) -> list[EvmChain]:
        """The EVM chains listBlockchains names on the tested network that the other network does not name too.

        An identifier is used only once a second route confirms it: a blockchain both networks list is not known
        to be this network's (a listing that mixes networks is DATA-REL-004's deviation, and an EVM chain read from
        it would carry that deviation into the tests of the balance routes).
        """
        if not chains:
            return chains
        other = "fuji" if NETWORKS.get(self.network, self.network) == "mainnet" else "mainnet"
        answer = self.crawl.rest(self.client, "listBlockchains", {"network": other},
                                 {"pageSize": plain_page_size("listBlockchains"), "sortOrder": "desc"})
        theirs = {c.get("blockchainId") for _, c in items(answer.body if answer else None, "blockchains")}
        kept = [chain for chain in chains if chain.blockchain_id not in theirs]
        if len(kept) < len(chains):
            self.out.notes.append(f"listBlockchains on {self.network} names {len(chains) - len(kept)} EVM chains that "
                                  f"{other} names too: none of them is used")
        return kept

    def _other_subnet(self, chain: EvmChain | None) -> None:
        """Without subnet validations listed: the subnet of L1 validator transactions, else of the EVM chain tested
        (an L1 has validators of its own)."""
        primary = self.known("data_primary_subnet_id")
        self.out.search("data_subnet_id", "subnetId of P-Chain L1 transactions and of the EVM chain")
        if self.l1_subnets.record_top(self.out, "data_subnet_id", without=(primary,)):
            return
        if chain is not None and chain.subnet_id and chain.subnet_id != primary:
            self.out.add("data_subnet_id", chain.subnet_id, "listBlockchains", chain.answer.request,
                         chain.at + "/subnetId")
