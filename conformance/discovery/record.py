"""What discovery found: each identifier with the answer it was read from, and what was searched for the rest."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Requests a crawl may send at most.
BUDGET = 60

#: What each identifier is, in the words of a skip message ("no P-Chain address found: …").
LABELS = {
    "evm_chain": "EVM chain the node serves",
    "blockchain_id": "blockchain ID of the EVM chain",
    "evm_chain_id": "EVM chain ID",
    "evm_address": "EVM address",
    "data_network": "network",
    "data_p_chain_address": "P-Chain address",
    "data_x_chain_address": "X-Chain address",
    "data_c_chain_address": "C-Chain address",
    "data_c_chain_evm_address": "0x address with C-Chain atomic transactions",
    "data_evm_address": "EVM address with token balances",
    "data_erc20_contract": "ERC-20 contract with transfers",
    "data_erc721_contract": "ERC-721 contract",
    "data_erc1155_contract": "ERC-1155 contract",
    "data_contract_address": "contract with an indexed deployment",
    "data_deployment_tx_hash": "deployment transaction",
    "data_evm_chain_id": "EVM chain of the Data API",
    "data_evm_blockchain_id": "blockchain ID of the Data API's EVM chain",
    "data_block_node_id": "node ID with blocks",
    "data_vertex_height": "vertex height",
    "data_l1_validation_id": "L1 validation ID",
    "data_p_chain_id": "P-Chain blockchain ID",
    "data_x_chain_id": "X-Chain blockchain ID",
    "data_x_chain_vertex_id": "X-Chain vertex-era blockchain ID",
    "data_c_chain_id": "C-Chain blockchain ID",
    "data_primary_subnet_id": "primary network subnet ID",
    "data_subnet_id": "subnet with validators other than the primary network",
    "data_api_key": "API key the target accepts",
}
#: How the operator gives an identifier, where it is not --sample NAME=VALUE.
HINTS = {"evm_chain": "--evm-chain BLOCKCHAIN_ID_OR_ALIAS", "data_api_key": "--api-key KEY"}
#: Names never listed in reports: credentials, not identifiers.
SECRET_NAMES = frozenset({"data_api_key"})


@dataclass(frozen=True)
class Identifier:
    """One identifier and where it came from: `given` by the operator, or read from an answer of the target."""

    name: str
    value: str
    source: str = "given"          # "given", or the route's operationId or JSON-RPC method it was read from
    request: str | None = None     # the request that answered it: method and URL path with its query
    pointer: str | None = None     # where in that answer (RFC 6901 JSON pointer)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class Discovery:
    """The identifiers one crawl found, what it searched for each, and the requests it spent."""

    found: dict[str, Identifier] = field(default_factory=dict)
    searched: dict[str, list[str]] = field(default_factory=dict)
    requests: int = 0
    budget: int = BUDGET
    notes: list[str] = field(default_factory=list)
    given: frozenset[str] = frozenset()   # names the operator gave: discovery never records those

    def value(self, name: str) -> str | None:
        found = self.found.get(name)
        return found.value if found else None

    def add(self, name: str, value: Any, source: str, request: str | None = None,
            pointer: str | None = None) -> bool:
        """Records `value` for `name` unless one is already known; True when it was recorded."""
        if name in self.found or name in self.given or value is None or str(value) == "":
            return False
        self.found[name] = Identifier(name, str(value), source, request, pointer)
        return True

    def search(self, name: str, what: str) -> None:
        """Notes that `what` was searched for `name` (said in the skip message when nothing turns up)."""
        places = self.searched.setdefault(name, [])
        if what not in places:
            places.append(what)

    def missing(self, name: str) -> str:
        """Why a test that needs `name` skips: what it is and where discovery looked for it."""
        label = LABELS.get(name, name)
        if name in SECRET_NAMES:   # a credential: no answer names one
            return f"needs an {label}: pass {HINTS.get(name, f'--sample {name}=VALUE')}"
        places = self.searched.get(name)
        where = f"searched {'; '.join(places)}" if places else "no answer of the target names one"
        return f"no {label} found: {where} (or pass {HINTS.get(name, f'--sample {name}=VALUE')})"
