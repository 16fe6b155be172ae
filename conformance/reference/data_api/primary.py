"""Primary network routes: UTXOs, transactions, blockchains, validators, vertices and blocks by node."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from conformance.reference.calls import RestCall
from conformance.reference.data_api import params, shapes
from conformance.reference.data_api.pages import deviates, on_first_page
from conformance.reference.data_api.world import PRIMARY_NETWORK_ID, Tx, Validation
from conformance.reference.rest import RestError, query_bool, query_enum, query_int, query_number

if TYPE_CHECKING:
    from conformance.reference.data_api import DataService

CHAIN_PREFIX = re.compile(r"^[PXC]-", re.IGNORECASE)
STATUSES = ("completed", "active", "pending", "removed")
VALIDATOR_SORTS = ("blockIndex", "delegationCapacity", "timeRemaining", "delegationFee", "uptimePerformance")
CAPACITY_MAX = 720_000_000_000_000_000
SECONDS_MAX = 2_147_483_647


def _address(raw: str) -> str:
    """An address without its optional chain letter prefix; 0x addresses compare case-insensitively."""
    bare = CHAIN_PREFIX.sub("", raw)
    return bare.lower() if bare.lower().startswith("0x") else bare


def list_utxos(svc: DataService, call: RestCall) -> dict[str, Any]:
    """POST .../blockchains/{blockchainId}/utxos: UTXOs of the addresses in the JSON body."""
    net = params.network(call)
    chain = params.primary_chain(call, net)
    size = params.page_size(call, 1024, 10)
    body = call.body
    if (not isinstance(body, dict) or not isinstance(body.get("addresses"), str)
            or not params.comma_list(body["addresses"])):
        raise RestError(400, "addresses is required: a JSON body {\"addresses\": \"<comma-separated addresses>\"}")
    addresses = sorted({_address(a) for a in params.comma_list(body["addresses"])})
    asset_id = call.first("assetId") or None
    if asset_id is not None and chain != "x":
        # not shown: assetId off the X-Chain; the document says X-Chain only, so the reference refuses it
        raise RestError(400, "assetId is supported only on the X-Chain")
    min_amount = query_number(call, "minUtxoAmount", minimum=0, default=0)
    # not shown: the default of includeSpent; the reference lists unspent UTXOs unless asked
    include_spent = query_bool(call, "includeSpent", default=False)
    # not shown: the default sort; the reference sorts by timestamp, newest first
    sort_by = query_enum(call, "sortBy", ("timestamp", "amount"), default="timestamp")
    order = params.sort_order(call, "desc")
    owners = list(addresses)
    if deviates("utxo-owner-ignored"):
        owners += svc.world.data.pool(net)[:3]
    least = on_first_page(call, "minUtxoAmount", min_amount) or 0
    with svc.world.lock:
        records = [u for a in owners for u in svc.world.data.utxos(net, chain, a)
                   if u.amount >= least and (include_spent or not u.spent)
                   and (asset_id is None or u.asset == asset_id)]
        if deviates("spent-only"):
            records = [u for u in records if u.spent] if include_spent else records
    key = (lambda u: (u.ts, u.utxo_id)) if sort_by == "timestamp" else (lambda u: (u.amount, u.utxo_id))
    records.sort(key=key, reverse=order == "desc")
    scope = {"net": net, "chain": chain, "addresses": addresses, "assetId": asset_id, "min": min_amount,
             "spent": include_spent, "sortBy": sort_by, "sortOrder": order}
    page, token = svc.pager.page(call, scope, records, size, key=key, descending=order == "desc")
    return svc.listing(token, utxos=[shapes.utxo(svc.world.data, net, chain, u) for u in page],
                       chainInfo=shapes.chain_info(net, chain))


def list_transactions(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET .../blockchains/{blockchainId}/transactions: the chain's transactions, or those of addresses."""
    net = params.network(call)
    chain = params.primary_chain(call, net)
    size = params.page_size(call, 100, 10)
    addresses = sorted({_address(a) for a in params.comma_list(call.first("addresses"))})
    l1 = call.first("l1ValidationId") or None
    if l1 is not None and chain != "p":
        # not shown: l1ValidationId off the P-Chain; L1 validator transactions live on the P-Chain only
        raise RestError(400, "l1ValidationId is supported only on the P-Chain")
    types = sorted({t for raw in call.query.get("txTypes", []) for t in params.comma_list(raw)})
    start = query_int(call, "startTimestamp", minimum=0)
    end = query_int(call, "endTimestamp", minimum=0)
    order = params.sort_order(call, "desc")
    if not addresses and l1 is None:
        # not shown: txTypes and timestamps without an address filter are "unsupported"; the reference checks
        # them as above and then ignores them
        types, start, end = [], None, None
    # deviations: the address switching the filters on and selecting nothing; the validation matched by its L1
    wanted = set() if deviates("addresses-ignored") else set(addresses)
    any_validation = deviates("l1-any-validation")
    kinds = on_first_page(call, "txTypes", types)
    with svc.world.lock:
        txs = svc.world.data.txs(net, chain)
        picked = [t for t in txs if (not wanted or wanted & t.addresses)
                  and (l1 is None or t.l1_validation == l1 or (any_validation and t.l1_validation is not None))
                  and (not kinds or t.tx_type in kinds) and (start is None or t.ts >= start)
                  and (end is None or t.ts <= end)]
    if order == "desc":
        picked.reverse()

    def key(t: Tx) -> tuple[int, str]:
        return (t.ts, t.tx_hash)
    scope = {"net": net, "chain": chain, "addresses": addresses, "l1": l1, "types": types, "start": start,
             "end": end, "sortOrder": order}
    page, token = svc.pager.page(call, scope, picked, size, key=key, descending=order == "desc")
    return svc.listing(token, transactions=[shapes.transaction(svc.world.data, net, chain, t) for t in page],
                       chainInfo=shapes.chain_info(net, chain))


def list_blockchains(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET /v1/networks/{network}/blockchains, by createBlockTimestamp."""
    net = params.network(call)
    size = params.page_size(call, 10000, 100)
    # not shown: the default order; the reference lists the oldest chain first
    order = params.sort_order(call, "asc")
    items = svc.world.data._cached(("blockchains", net), lambda: [
        shapes.blockchain(svc.world.data, net, i) for i in range(svc.world.data.blockchain_count(net))])
    items = sorted(items, key=_chain_key, reverse=order == "desc")
    page, token = svc.pager.page(call, {"net": net, "sortOrder": order}, items, size, key=_chain_key,
                                 descending=order == "desc")
    return svc.listing(token, blockchains=page)


def _chain_key(chain: dict[str, Any]) -> tuple[int, str]:
    return (chain["createBlockTimestamp"], chain["blockchainId"])


def list_validators(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET /v1/networks/{network}/validators with the filter table of endpoint 5."""
    net = params.network(call)
    size = params.page_size(call, 100, 10)
    node_ids = params.comma_list(call.first("nodeIds"))
    # not shown: the default sort; the reference sorts by block index, newest first
    sort_by = query_enum(call, "sortBy", VALIDATOR_SORTS, default="blockIndex")
    order = params.sort_order(call, "desc")
    status = query_enum(call, "validationStatus", STATUSES)
    min_cap = _capacity(call, "minDelegationCapacity")
    max_cap = _capacity(call, "maxDelegationCapacity")
    min_time = query_number(call, "minTimeRemaining", minimum=0, maximum=SECONDS_MAX)
    max_time = query_number(call, "maxTimeRemaining", minimum=0, maximum=SECONDS_MAX)
    min_fee = query_number(call, "minFeePercentage", minimum=2, maximum=100)
    max_fee = query_number(call, "maxFeePercentage", minimum=2, maximum=100)
    min_up = query_number(call, "minUptimePerformance", minimum=0, maximum=100, default=90)
    max_up = query_number(call, "maxUptimePerformance", minimum=0, maximum=100, default=100)
    subnet = call.first("subnetId") or None
    if sort_by == "delegationFee" and (net != "mainnet" or subnet != PRIMARY_NETWORK_ID):
        # not shown: the answer off mainnet or without the primary network subnetId; the reference refuses it
        raise RestError(400, "sortBy=delegationFee needs network mainnet and subnetId set to the primary network")
    fee_filter = min_fee is not None or max_fee is not None
    now = int(svc.world.clock.now)
    kept_status = on_first_page(call, "validationStatus", status)

    def keep(v: Validation) -> bool:
        if fee_filter and v.fee is None and not deviates("subnet-fee-null-kept"):
            return False
        remaining = max(0, v.end - now)
        return ((not node_ids or any(part in v.node for part in node_ids))
                and (kept_status is None or v.status == kept_status)
                and (subnet is None or v.subnet == subnet)
                and (v.fee is None or ((min_fee is None or v.fee >= min_fee) and (max_fee is None or v.fee <= max_fee)))
                and (min_cap is None or v.capacity >= min_cap) and (max_cap is None or v.capacity <= max_cap)
                and (min_time is None or remaining >= min_time) and (max_time is None or remaining <= max_time)
                and min_up <= v.uptime <= max_up)
    key = {"blockIndex": lambda v: (v.index, v.tx_hash), "delegationCapacity": lambda v: (v.capacity, v.tx_hash),
           # the time remaining (end - now, at least 0) orders as the end timestamp does, and stays put as time passes
           "timeRemaining": lambda v: (v.end, v.tx_hash), "delegationFee": lambda v: (v.fee or 0.0, v.tx_hash),
           "uptimePerformance": lambda v: (v.uptime, v.tx_hash)}[sort_by]
    picked = sorted((v for v in svc.world.data.validations(net) if keep(v)), key=key, reverse=order == "desc")
    scope = {"net": net, "nodeIds": node_ids, "sortBy": sort_by, "sortOrder": order, "status": status,
             "cap": [min_cap, max_cap], "time": [min_time, max_time], "fee": [min_fee, max_fee], "up": [min_up, max_up],
             "subnet": subnet}
    page, token = svc.pager.page(call, scope, picked, size, key=key, descending=order == "desc")
    return svc.listing(token, validators=[shapes.validator(svc.world.data, v) for v in page])


def _capacity(call: RestCall, name: str) -> int | None:
    raw = call.first(name)
    if raw is None or raw == "":
        return None
    if not re.fullmatch(r"-?\d+", raw):
        raise RestError(400, f"{name} must be an integer string in the smallest native unit")
    value = int(raw)
    if not 0 <= value <= CAPACITY_MAX:
        raise RestError(400, f"{name} must be between 0 and {CAPACITY_MAX}")
    return value


def _node_id(call: RestCall) -> str:
    node = call.path_params["nodeId"]
    if not node.startswith("NodeID-") or len(node) < 12:
        # not shown: the answer for a malformed node ID; the reference refuses it
        raise RestError(400, "nodeId must be a primary network node ID (NodeID-...)")
    return node


def validators_by_node(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET /v1/networks/{network}/validators/{nodeId}: the node's validations, by start time."""
    net = params.network(call)
    node = _node_id(call)
    size = params.page_size(call, 100, 10)
    status = query_enum(call, "validationStatus", STATUSES)
    # not shown: the timestamp that orders this list and the default order; startTimestamp, newest first
    order = params.sort_order(call, "desc")
    any_node = deviates("node-ignored")
    ended = deviates("node-validations-without-completed")   # only the node's current and future validations
    picked = sorted((v for v in svc.world.data.validations(net)
                     if (any_node or v.node == node) and (status is None or v.status == status)
                     and not (ended and v.status == "completed")),
                    key=_start_key, reverse=order == "desc")
    page, token = svc.pager.page(call, {"net": net, "node": node, "status": status, "sortOrder": order}, picked,
                                 size, key=_start_key, descending=order == "desc")
    return svc.listing(token, validators=[shapes.validator(svc.world.data, v) for v in page])


def _start_key(v: Validation) -> tuple[int, str]:
    return (v.start, v.tx_hash)


def list_vertices(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET .../blockchains/{blockchainId}/vertices:listByHeight: the X-Chain vertices at one height."""
    net = params.network(call)
    chain = params.primary_chain(call, net)
    if chain != "x":
        # not shown: the status for another chain; the document says the route accepts only the X-Chain
        raise RestError(400, "vertices are listed only for the X-Chain (its IDs or x-chain)")
    height = query_int(call, "vertexHeight", minimum=0, required=True)
    assert height is not None
    size = params.page_size(call, 100, 10)
    order = params.sort_order(call, "desc")
    # deviation: the height read as the lowest one, so the next height's vertices follow
    heights = (height, height + 1) if deviates("vertices-from-height") else (height,)
    indices = [(h, j) for h in heights for j in range(svc.world.data.vertex_count(net, h))]
    if order == "desc":
        indices.reverse()

    def key(at: tuple[int, int]) -> int:
        return svc.world.data.vertex_time(*at)
    page, token = svc.pager.page(call, {"net": net, "height": height, "sortOrder": order}, indices, size, key=key,
                                 descending=order == "desc")
    return svc.listing(token, vertices=[shapes.vertex(svc.world.data, net, h, j) for h, j in page],
                       chainInfo=shapes.chain_info(net, "x"))


def blocks_by_node(svc: DataService, call: RestCall) -> dict[str, Any]:
    """GET .../blockchains/{blockchainId}/nodes/{nodeId}/blocks: the latest blocks the node proposed first."""
    net = params.network(call)
    chain = params.primary_chain(call, net)
    node = _node_id(call)
    size = params.page_size(call, 100, 10)
    start = query_int(call, "startTimestamp", minimum=0)
    end = query_int(call, "endTimestamp", minimum=0)
    with svc.world.lock:
        blocks = svc.world.data.blocks(net, chain, node)
        if deviates("proposer-ignored"):
            other = svc.world.data.nodes(net)[1 if node != svc.world.data.nodes(net)[1] else 2]
            blocks = sorted(blocks + svc.world.data.blocks(net, chain, other), key=lambda b: b.ts)
    # not shown: whether the bounds are inclusive; the reference includes blocks at either bound
    since = on_first_page(call, "startTimestamp", start)
    picked = [b for b in reversed(blocks) if (since is None or b.ts >= since) and (end is None or b.ts <= end)]
    page, token = svc.pager.page(call, {"net": net, "chain": chain, "node": node, "start": start, "end": end},
                                 picked, size, key=lambda b: (b.ts, b.height, b.node), descending=True)
    return svc.listing(token, blocks=[shapes.block(svc.world.data, net, chain, b) for b in page],
                       chainInfo=shapes.chain_info(net, chain))
