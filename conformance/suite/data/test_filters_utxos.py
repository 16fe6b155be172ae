"""UTXO filters: assetId on the X-Chain, minUtxoAmount (inclusive), includeSpent, and the owners in the body, on
every page a walk reads."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, data as checks, data_pages as pages
from conformance.checks.data_pages import DataWalk
from conformance.clients.http import Exchange
from conformance.pagination import is_token
from conformance.suite.data.conftest import FILTER_PAGE, DataApi

MAX = checks.plain_page_size("listUtxos")   # a page inside every bound: the bound is not on trial
#: Addresses tried for one whose UTXOs fit a page.
SMALL_OWNERS = 2


def utxos(data: DataApi, rule: str, params: dict[str, Any], **path: Any) -> tuple[Exchange, list[dict]]:
    exchange = data.once("listUtxos", {"pageSize": MAX, **params}, **path)
    body = checks.served(exchange, rule, f"listUtxos with {params}")
    return exchange, [u for u in checks.items_of("listUtxos", body) if isinstance(u, dict)]


def filtered(data: DataApi, rule: str, params: dict[str, Any], **path: Any) -> DataWalk:
    """The walk of listUtxos with the filter; its first page must be served."""
    walk = data.filtered("listUtxos", params, **path)
    pages.require_walk(walk, rule, f"listUtxos with {params}")
    return walk


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


bare = checks.bare_address


@pytest.mark.rule("DATA-FLT-031")
def test_asset_filter_on_the_x_chain(data: DataApi) -> None:
    """listUtxos on the X-Chain with assetId returns only UTXOs of that asset."""
    body = {"addresses": data.need("x_chain_address")}
    # The X-Chain by its ID: the alias is on trial elsewhere (DATA-SEM-006), the asset filter here.
    chain = data.chain_id("x")
    _, items = utxos(data, "DATA-FLT-031", {"pageSize": 50}, body=body, blockchainId=chain)
    assets = sorted({a for a in map(asset, items) if a})
    if not assets:
        pytest.skip("the X-Chain address has no UTXO with an assetId")
    wanted = assets[-1]
    walk = filtered(data, "DATA-FLT-031", {"assetId": wanted}, body=body, blockchainId=chain)
    pages.assert_every_page(walk, "DATA-FLT-031", lambda u: asset(u) in (None, wanted),
                            summary="assetId returns UTXOs of other assets", expected=f"only asset {wanted}",
                            shown=asset)


@pytest.mark.rule("DATA-FLT-032")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_asset_filter_elsewhere_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """What listUtxos with assetId answers on the P-Chain is recorded."""
    exchange = data.call("listUtxos", {"pageSize": 5, "assetId": "2jgTFB6MM4vwLzUNWFYGPfyeQfpLaEqj4XWku6FoW7vaGrrEd5"})
    observe("DATA-FLT-032", {"chain": "p", "status": exchange.status})


@pytest.mark.rule("DATA-FLT-033")
def test_min_utxo_amount_is_inclusive(data: DataApi) -> None:
    """listUtxos with minUtxoAmount returns only UTXOs of at least that amount, including equal amounts."""
    # The P-Chain by its ID: the alias is on trial elsewhere (DATA-SEM-006). The median amount of a page as large
    # as the filtered walk's is an amount a UTXO has, with many UTXOs above it, so that the filtered list spans
    # pages (the filter holds on each); in the same order, that UTXO comes within the first filtered page (the
    # minimum is inclusive). The page size is sent: the default's is another rule's (DATA-DEF-001).
    chain = data.chain_id("p")
    first = data.once("listUtxos", {"pageSize": FILTER_PAGE}, blockchainId=chain)
    items = [u for u in checks.items_of("listUtxos", checks.served(first, "DATA-FLT-033", "listUtxos"))
             if isinstance(u, dict)]
    priced = sorted((u for u in items if amount(u) is not None), key=lambda u: amount(u) or 0)
    if not priced:
        pytest.skip("the address has no UTXO with an amount")
    pick = priced[len(priced) // 2]
    bound = amount(pick)
    assert bound is not None
    walk = filtered(data, "DATA-FLT-033", {"minUtxoAmount": bound}, blockchainId=chain)
    def at_least(utxo: dict) -> bool:
        found = amount(utxo)
        return found is None or found >= bound
    pages.assert_every_page(walk, "DATA-FLT-033", at_least,
                            summary=f"minUtxoAmount={bound} returns smaller amounts", expected=f"amounts >= {bound}",
                            shown=amount)
    found = {u.get("utxoId") for u in walk.items if isinstance(u, dict)}
    check(pick.get("utxoId") in found, "DATA-FLT-033", f"minUtxoAmount={bound} leaves out the UTXO of exactly that "
          f"amount", expected=f"the UTXO {pick.get('utxoId')} of exactly {bound} (the minimum is inclusive)",
          received=f"amounts {sorted(a for a in map(amount, walk.items) if a is not None)[:5]}",
          exchange=walk.walk.exchanges[0])


@pytest.mark.rule("DATA-FLT-034")
def test_include_spent_false_returns_no_spent_utxo(data: DataApi) -> None:
    """listUtxos with includeSpent=false returns no spent UTXO."""
    # the P-Chain by its ID: the alias is on trial elsewhere (DATA-SEM-006)
    walk = filtered(data, "DATA-FLT-034", {"includeSpent": False}, blockchainId=data.chain_id("p"))
    pages.assert_every_page(walk, "DATA-FLT-034", lambda u: not spent(u),
                            summary="includeSpent=false returns spent UTXOs", expected="only unspent UTXOs",
                            shown=lambda u: u.get("utxoId"))


@pytest.mark.rule("DATA-FLT-035")
def test_include_spent_true_keeps_unspent(data: DataApi) -> None:
    """listUtxos with includeSpent=true returns every UTXO returned with includeSpent=false, for an address whose
    UTXOs fit one page (so that neither the order nor the tokens of the route are on trial here)."""
    chain = data.chain_id("p")   # by its ID: the alias is on trial elsewhere (DATA-SEM-006)
    hot = bare(data.need("p_chain_address"))
    # addresses of the known address's transactions (the time filter tests' listing): others hold fewer UTXOs
    listing = data.once("listTransactions", {"addresses": data.need("p_chain_address"), "pageSize": MAX})
    owners: dict[str, int] = {}
    for found in checks.items_of("listTransactions", checks.answered(listing)):
        for address in listed_strings(found, "addresses"):
            if bare(address) != hot and not address.lower().startswith("0x"):
                owners[bare(address)] = owners.get(bare(address), 0) + 1
    for owner in sorted(owners, key=lambda a: -owners[a])[:SMALL_OWNERS]:
        body = {"addresses": owner}
        every = data.once("listUtxos", {"pageSize": MAX, "includeSpent": True}, body=body, blockchainId=chain)
        checks.unavailable(every)
        if checks.answered(every) is not None and not is_token(checks.next_token(every.json())):
            break
    else:
        pytest.skip("no address of the known address's transactions has UTXOs that fit one page")
    _, unspent = utxos(data, "DATA-FLT-035", {"includeSpent": False}, body=body, blockchainId=chain)
    returned = {u.get("utxoId") for u in checks.items_of("listUtxos", every.json()) if isinstance(u, dict)}
    missing = [u.get("utxoId") for u in unspent if u.get("utxoId") not in returned]
    check(not missing, "DATA-FLT-035", "includeSpent=true drops UTXOs that includeSpent=false returns",
          expected=f"every unspent UTXO of {owner} too", received=f"missing {sorted(map(str, missing))[:5]}",
          exchange=every)


def listed_strings(value: Any, member: str) -> list[str]:
    """Every string listed under `member` anywhere inside a JSON value."""
    if isinstance(value, dict):
        listed: list[Any] = value[member] if isinstance(value.get(member), list) else []
        nested = [s for v in value.values() for s in listed_strings(v, member)]
        return [v for v in listed if isinstance(v, str)] + nested
    if isinstance(value, list):
        return [s for v in value for s in listed_strings(v, member)]
    return []


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
