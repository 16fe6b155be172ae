"""The data REST API of the reference target: the 15 routes of 2-data-api.md over the synthetic world.

Not shown, and chosen here: requests are served with or without an `x-data-api-key` header (any value);
an unknown route is a 404 with the document's error body.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from conformance.reference.data_api import evm, primary
from conformance.reference.data_api.pages import Pager
from conformance.reference.rest import RestService, phrase

if TYPE_CHECKING:
    from conformance.reference.world import World

NETWORK = "/v1/networks/{network}"
BLOCKCHAIN = NETWORK + "/blockchains/{blockchainId}"
ADDRESS = "/v1/chains/{chainId}/addresses/{address}"
ROUTES: list[tuple[str, str, Callable[..., dict[str, Any]]]] = [
    ("POST", BLOCKCHAIN + "/utxos", primary.list_utxos),
    ("GET", BLOCKCHAIN + "/transactions", primary.list_transactions),
    ("GET", "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", evm.get_deployment),
    ("GET", NETWORK + "/blockchains", primary.list_blockchains),
    ("GET", NETWORK + "/validators", primary.list_validators),
    ("GET", NETWORK + "/validators/{nodeId}", primary.validators_by_node),
    ("GET", ADDRESS + "/transactions:listErc721", evm.list_erc721_transactions),
    ("GET", ADDRESS + "/transactions:listErc1155", evm.list_erc1155_transactions),
    ("GET", "/v1/chains/{chainId}/tokens/{address}/transfers", evm.list_token_transfers),
    ("GET", ADDRESS + "/balances:listErc20", evm.list_erc20_balances),
    ("GET", ADDRESS + "/balances:listErc1155", evm.list_erc1155_balances),
    ("GET", ADDRESS + "/balances:listErc721", evm.list_erc721_balances),
    ("GET", ADDRESS + "/balances:getNative", evm.get_native_balance),
    ("GET", BLOCKCHAIN + "/vertices:listByHeight", primary.list_vertices),
    ("GET", BLOCKCHAIN + "/nodes/{nodeId}/blocks", primary.blocks_by_node),
]


class DataService(RestService):
    api = "data"

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world
        self.pager = Pager(world.seed)
        for method, template, handler in ROUTES:
            self.route(method, template, (lambda h: lambda call: h(self, call))(handler))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"message": message, "statusCode": status, "error": phrase(status)}

    @staticmethod
    def listing(token: str | None, **members: Any) -> dict[str, Any]:
        """A list response: nextPageToken only when more data exists."""
        return {**({"nextPageToken": token} if token else {}), **members}
