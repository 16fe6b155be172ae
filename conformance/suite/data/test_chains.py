"""Primary network routes on each chain the document allows: the X- and C-Chain answer in the documented shapes.

The other tests call these routes on the P-Chain, their default chain; here each route runs on the X- and C-Chain
with that chain's own discovered address (vertices are the X-Chain's alone, and tested as such elsewhere).
"""
from __future__ import annotations

from typing import Any

import pytest

from conformance.checks import data as checks
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import ALIASES, DataApi

CHAINS = ("x", "c")
#: (route, how it is asked): UTXOs and transactions of the chain's address, the chain's latest transactions, and
#: the blocks a validator proposed on it.
CASES = (("listUtxos", "address"), ("listTransactions", "address"), ("listTransactions", "latest"),
         ("listBlocksByNode", "node"))
AMOUNT_ROUTES = ("listUtxos", "listTransactions")


def on_chain(data: DataApi, operation_id: str, how: str, letter: str) -> Exchange:
    """The route's answer on one chain (sent once a run; other tests reuse identical requests)."""
    chain = ALIASES[letter]
    if operation_id == "listUtxos":
        return data.once(operation_id, body={"addresses": data.need(f"{letter}_chain_address")}, blockchainId=chain)
    if how == "address":
        return data.once(operation_id, {"addresses": data.need(f"{letter}_chain_address")}, blockchainId=chain)
    return data.once(operation_id, blockchainId=chain)


def served(data: DataApi, operation_id: str, how: str, letter: str, rule: str) -> tuple[Exchange, Any]:
    exchange = on_chain(data, operation_id, how, letter)
    return exchange, checks.served(exchange, rule, f"{operation_id} on {ALIASES[letter]}")


@pytest.mark.parametrize(("operation_id", "how", "letter"), [
    pytest.param(op, how, letter, marks=pytest.mark.rule(checks.SHAPE_RULES[op]), id=f"{op}-{how}-{ALIASES[letter]}")
    for letter in CHAINS for op, how in CASES])
def test_route_on_each_chain_has_the_documented_shape(data: DataApi, operation_id: str, how: str,
                                                      letter: str) -> None:
    """The route's 200 body on the X- and C-Chain has the documented member types, as on the P-Chain."""
    rule = checks.SHAPE_RULES[operation_id]
    exchange, body = served(data, operation_id, how, letter, rule)
    checks.assert_route_shape(rule, operation_id, body, exchange)


@pytest.mark.rule("DATA-SHP-016")
@pytest.mark.parametrize(("operation_id", "how", "letter"), [
    pytest.param(op, how, letter, id=f"{op}-{how}-{ALIASES[letter]}")
    for letter in CHAINS for op, how in CASES if op in AMOUNT_ROUTES])
def test_amounts_on_each_chain_are_decimal_integers(data: DataApi, operation_id: str, how: str,
                                                    letter: str) -> None:
    """Asset amounts of the X- and C-Chain answers are decimal integer strings."""
    exchange, body = served(data, operation_id, how, letter, "DATA-SHP-016")
    if not checks.assert_format("DATA-SHP-016", operation_id, body, fmt="decimal-integer", within="AssetAmount",
                                exchange=exchange, members=("amount",)):
        pytest.skip(f"the {operation_id} answer on {ALIASES[letter]} holds no asset amount")
