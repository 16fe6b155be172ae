"""UTXO filters: assetId on the X-Chain, minUtxoAmount (inclusive), includeSpent, and the owners in the body."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from conformance.checks import check, data as checks
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import DataApi

MAX = checks.plain_page_size("listUtxos")   # a page inside every bound: the bound is not on trial


def utxos(data: DataApi, rule: str, params: dict[str, Any], **path: Any) -> tuple[Exchange, list[dict]]:
    exchange = data.once("listUtxos", {"pageSize": MAX, **params}, **path)
    body = checks.served(exchange, rule, f"listUtxos with {params}")
    return exchange, [u for u in checks.items_of("listUtxos", body) if isinstance(u, dict)]


def amount(utxo: dict) -> int | None:
    value = utxo.get("amount")
    if value is None and isinstance(utxo.get("asset"), dict):
        value = utxo["asset"].get("amount")
    number = checks.number(value)
    return int(number) if isinstance(number, (int, float)) else None


def asset(utxo: dict) -> str | None:
    value = utxo.get("assetId")
    if value is None and isinstance(utxo.get("asset"), dict):
        value = utxo["asset"].get("assetId")
    return value if isinstance(value, str) else None


def spent(utxo: dict) -> bool:
    return bool(utxo.get("consumingTxHash")) or utxo.get("consumingBlockTimestamp") not in (None, 0)


def bare(address: str) -> str:
    """An address without its chain letter prefix (P-, X-, C-)."""
    return address[2:] if len(address) > 2 and address[1] == "-" else address


@pytest.mark.rule("DATA-FLT-031")
def test_asset_filter_on_the_x_chain(data: DataApi) -> None:
    """listUtxos on the X-Chain with assetId returns only UTXOs of that asset."""
    body = {"addresses": data.need("x_chain_address")}
    _, items = utxos(data, "DATA-FLT-031", {"pageSize": 50}, body=body, blockchainId=data.chain("x"))
    assets = sorted({a for a in map(asset, items) if a})
    if not assets:
        pytest.skip("the X-Chain address has no UTXO with an assetId")
    wanted = assets[-1]
    exchange, found = utxos(data, "DATA-FLT-031", {"assetId": wanted}, body=body, blockchainId=data.chain("x"))
    wrong = [asset(u) for u in found if asset(u) not in (None, wanted)]
    check(not wrong, "DATA-FLT-031", "assetId returns UTXOs of other assets", expected=f"only asset {wanted}",
          received=f"assets {wrong[:5]}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-032")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_asset_filter_elsewhere_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What listUtxos with assetId answers on the P-Chain is recorded."""
    exchange = data.call("listUtxos", {"pageSize": 5, "assetId": "2jgTFB6MM4vwLzUNWFYGPfyeQfpLaEqj4XWku6FoW7vaGrrEd5"})
    observe("DATA-FLT-032", {"chain": "p", "status": exchange.status})


@pytest.mark.rule("DATA-FLT-033")
def test_min_utxo_amount_is_inclusive(data: DataApi) -> None:
    """listUtxos with minUtxoAmount returns only UTXOs of at least that amount, including equal amounts."""
    _, items = utxos(data, "DATA-FLT-033", {"pageSize": 20, "sortBy": "amount", "sortOrder": "desc"})
    priced = [u for u in items if amount(u) is not None]
    if not priced:
        pytest.skip("the address has no UTXO with an amount")
    pick = priced[len(priced) // 2]
    bound = amount(pick)
    exchange, found = utxos(data, "DATA-FLT-033", {"minUtxoAmount": bound, "sortBy": "amount", "sortOrder": "asc"})
    wrong = [amount(u) for u in found if (amount(u) if amount(u) is not None else bound) < bound]
    has_equal = any(amount(u) == bound for u in found)
    check(not wrong and has_equal, "DATA-FLT-033", f"minUtxoAmount={bound} is not an inclusive minimum",
          expected=f"amounts >= {bound}, including a UTXO of exactly {bound}",
          received=f"below: {wrong[:5]}; an equal amount returned: {has_equal}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-034")
def test_include_spent_false_returns_no_spent_utxo(data: DataApi) -> None:
    """listUtxos with includeSpent=false returns no spent UTXO."""
    exchange, items = utxos(data, "DATA-FLT-034", {"includeSpent": False})
    wrong = [u.get("utxoId") for u in items if spent(u)]
    check(not wrong, "DATA-FLT-034", "includeSpent=false returns spent UTXOs", expected="only unspent UTXOs",
          received=f"spent UTXOs {wrong[:5]}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-035")
def test_include_spent_true_keeps_unspent(data: DataApi) -> None:
    """listUtxos with includeSpent=true returns every UTXO returned with includeSpent=false."""
    # the largest amounts (the minUtxoAmount test's listing), to narrow the comparison to one page
    _, top = utxos(data, "DATA-FLT-035", {"pageSize": 20, "sortBy": "amount", "sortOrder": "desc"})
    top = top[:10]
    amounts = [a for a in map(amount, top) if a is not None]
    narrow = {"minUtxoAmount": min(amounts)} if amounts else {}   # a window small enough for one page
    _, unspent = utxos(data, "DATA-FLT-035", {**narrow, "includeSpent": False})
    exchange, every = utxos(data, "DATA-FLT-035", {**narrow, "includeSpent": True})
    if len(every) >= MAX:
        pytest.skip("the window does not fit one page")
    missing = {u.get("utxoId") for u in unspent} - {u.get("utxoId") for u in every}
    check(not missing, "DATA-FLT-035", "includeSpent=true drops UTXOs that includeSpent=false returns",
          expected="every unspent UTXO too", received=f"missing {sorted(map(str, missing))[:5]}", exchange=exchange)


@pytest.mark.rule("DATA-FLT-036")
def test_utxos_belong_to_the_addresses(data: DataApi) -> None:
    """listUtxos returns only UTXOs owned by one of the addresses in the body."""
    address = bare(data.need("p_chain_address"))
    # The pages of the profile's walk at a page size inside every bound: a foreign UTXO is rare among many owned.
    walk = data.walk("listUtxos", {"pageSize": MAX})
    if not walk.walk.pages:
        checks.served(walk.walk.exchanges[0], "DATA-FLT-036", "listUtxos")
    for exchange, items, _ in walk.pages():
        wrong = [u.get("addresses") for u in items if isinstance(u, dict) and isinstance(u.get("addresses"), list)
                 and address not in {bare(str(a)) for a in u["addresses"]}]
        check(not wrong, "DATA-FLT-036", "UTXOs of other owners are returned",
              expected=f"UTXOs owned by {address}", received=f"owners {wrong[:3]}", exchange=exchange)
