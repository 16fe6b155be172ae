"""Path and query parameters of the data API, checked as the document states them."""
from __future__ import annotations

import re
from decimal import Decimal

from conformance.reference.calls import RestCall
from conformance.reference.data_api.world import ALIASES, CHAIN_IDS, NETWORKS, VERTEX_ERA_IDS
from conformance.reference.rest import RestError, query_enum, query_int

CURRENCIES = ("usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd")
#: units of each currency per US dollar (fixed: the reference's market never moves)
RATES = {"usd": "1", "eur": "0.92", "aud": "1.52", "cad": "1.36", "chf": "0.88", "clp": "940", "cny": "7.21",
         "czk": "23.1", "dkk": "6.87", "gbp": "0.79", "hkd": "7.82", "huf": "365", "jpy": "151.4", "nzd": "1.66"}
SORT_ORDERS = ("asc", "desc")
EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


def network(call: RestCall) -> str:
    """The network the path names: mainnet or testnet (fuji is the same network)."""
    name = call.path_params["network"]
    if name not in NETWORKS:
        # an enumerated path parameter: a value outside it is a bad request
        raise RestError(400, "network must be one of the following values: mainnet, fuji, testnet")
    return NETWORKS[name]


def primary_chain(call: RestCall, net: str) -> str:
    """p, x or c for a primary network chain ID (or the X-Chain vertex-era ID) or alias of the network."""
    given = call.path_params["blockchainId"]
    if given in ALIASES:
        return ALIASES[given]
    for letter, chain_id in CHAIN_IDS[net].items():
        if given == chain_id:
            return letter
    if given == VERTEX_ERA_IDS[net]:
        return "x"
    # not shown: a chain ID of the other network; the reference refuses it like any unknown ID
    raise RestError(400, f"blockchainId {given} is not a primary network blockchain of this network")


def page_size(call: RestCall, maximum: int, default: int) -> int:
    value = query_int(call, "pageSize", minimum=1, maximum=maximum, default=default)
    assert value is not None
    return value


def sort_order(call: RestCall, default: str) -> str:
    value = query_enum(call, "sortOrder", SORT_ORDERS, default=default)
    assert value is not None
    return value


def currency(call: RestCall) -> str:
    value = query_enum(call, "currency", CURRENCIES, default="usd")
    assert value is not None
    return value


def evm_address(call: RestCall) -> str:
    given = call.path_params["address"]
    if not EVM_ADDRESS.match(given):
        # not shown: the answer for a malformed address; the reference refuses it
        raise RestError(400, "address must be a 0x-prefixed EVM address of 40 hexadecimal digits")
    return given.lower()


def comma_list(raw: str | None) -> list[str]:
    return [part.strip() for part in (raw or "").split(",") if part.strip()]


def price(usd: Decimal, code: str) -> dict[str, str]:
    """A Price: the currency code in lower case and the value as a decimal string."""
    return {"currencyCode": code, "value": decimal_text(usd * Decimal(RATES[code]))}


def decimal_text(value: Decimal) -> str:
    text = format(value.quantize(Decimal("0.000001")), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
