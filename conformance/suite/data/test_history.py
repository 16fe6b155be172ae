"""History parameters: a balance asked at a past blockNumber is the balance of that block, not the latest one.

What changed at a block is read from other documented answers, never assumed: the address's own transfers of a
token (listTokenTransfers, listErc1155Transactions) and the gas a deploying transaction paid (getDeployment). Past
blocks do not move, so the comparisons hold on a live chain as on a still one.
"""
from __future__ import annotations

from typing import Any

import pytest

from conformance import evidence
from conformance.checks import check, data as checks
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import DataApi

#: Wallet transfers of the token a test looks at for a block where the wallet's balance changed.
CANDIDATES = 3


def party(transfer: dict[str, Any], side: str) -> str | None:
    info = transfer.get(side)
    address = info.get("address") if isinstance(info, dict) else None
    return address.lower() if isinstance(address, str) else None


def amount(value: Any) -> int | None:
    number = checks.number(value)
    return number if isinstance(number, int) else None


def at_block(data: DataApi, operation_id: str, rule: str, block: int, **path: str) -> tuple[Exchange, Any]:
    """The route's answer at `block`; skips when the target refuses a past block number (the document gives no
    block a route must still hold)."""
    params: dict[str, Any] = {"blockNumber": str(block)}
    if operation_id == "listErc20Balances":
        params["contractAddresses"] = data.need("erc20_contract")
    if operation_id == "listErc1155Balances":
        params["contractAddress"] = path.pop("contract")
    exchange = data.once(operation_id, params, **path)
    checks.unavailable(exchange)
    if 400 <= (exchange.status or 0) < 500:
        pytest.skip(f"the target refuses {operation_id} at block {block} (status {exchange.status})")
    return exchange, checks.served(exchange, rule, f"{operation_id} at block {block}")


def wallet_change(data: DataApi, block: int, wallet: str) -> int | None:
    """What the wallet's transfers of the token at `block` add to its balance, from the transfers of that one
    block; None when the route does not isolate the block (its range is another rule's subject)."""
    exchange = data.once("listTokenTransfers", {"startBlock": block, "endBlock": block + 1,
                                                "pageSize": checks.plain_page_size("listTokenTransfers")})
    body = checks.answered(exchange)
    listed = [t for t in checks.items_of("listTokenTransfers", body) if isinstance(t, dict)]
    if not listed or any(amount(t.get("blockNumber")) != block for t in listed) or checks.next_token(body):
        return None
    change = 0
    for transfer in listed:
        value = amount(transfer.get("value")) or 0
        change += value if party(transfer, "to") == wallet else 0
        change -= value if party(transfer, "from") == wallet else 0
    return change


@pytest.mark.rule("DATA-REL-002")
def test_erc20_balance_at_a_past_block(data: DataApi) -> None:
    """At the block of one of the address's transfers of a token and at the block before it, listErc20Balances
    states different balances of that token: the balance of each block, not the latest one twice."""
    wallet, token = data.need("evm_address").lower(), data.need("erc20_contract").lower()
    listed = checks.items_of("listTokenTransfers", checks.input_of(data.first("listTokenTransfers"),
                                                                   "listTokenTransfers"))
    blocks = list(dict.fromkeys(amount(t.get("blockNumber")) for t in listed if isinstance(t, dict)
                                and wallet in (party(t, "from"), party(t, "to")) and amount(t.get("blockNumber"))))
    for block in [b for b in blocks if b][:CANDIDATES]:
        change = wallet_change(data, block, wallet)
        if change:
            break
    else:
        pytest.skip(f"no transfer of {token} on its first page changes the balance of {wallet} in its block")

    def balance(answer: Any) -> int | None:
        found = [b for b in checks.items_of("listErc20Balances", answer) if isinstance(b, dict)
                 and str(b.get("address", "")).lower() == token]
        return (amount(found[0].get("balance")) or 0) if found else None
    exchange, after = at_block(data, "listErc20Balances", "DATA-REL-002", block)
    _, before = at_block(data, "listErc20Balances", "DATA-REL-002", block - 1)
    if balance(after) is None and balance(before) is None:
        pytest.skip(f"neither answer lists a balance of {token} (the contract filter is DATA-FLT-026's subject)")
    check((balance(after) or 0) != (balance(before) or 0), "DATA-REL-002",
          f"listErc20Balances answers the same balance of {token} before and after a transfer that changed it",
          expected=f"different balances at blocks {block - 1} and {block}: the address's transfers in block {block} "
                   f"add {change} to it", received=f"{balance(before)} at both blocks", exchange=exchange)


@pytest.mark.rule("DATA-REL-003")
def test_native_balance_at_a_past_block(data: DataApi) -> None:
    """The account that sent a contract's deploying transaction paid for its gas in that block: getNativeBalance
    states different balances of it at that block and at the block before."""
    _, native, block = data.deployment()
    sender = party(native, "from")
    fee = (amount(native.get("gasUsed")) or 0) * (amount(native.get("gasPrice")) or 0)
    if block is None or not sender or block < 1:
        pytest.skip("getDeployment names no sender or block of the deploying transaction")
    if not fee:
        pytest.skip("the deploying transaction paid no fee, so its sender's balance need not change")
    before = data.transfers_before(data.address_for("getDeployment"), block)
    if before is not None and before[1]:   # not the deployment: DATA-SEM-011 reports it
        evidence.blocked_by("DATA-SEM-011")
        pytest.skip(f"blocked by DATA-SEM-011: getDeployment's transaction at block {block} is not the deployment")
    exchange, after = at_block(data, "getNativeBalance", "DATA-REL-003", block, address=sender)
    _, earlier = at_block(data, "getNativeBalance", "DATA-REL-003", block - 1, address=sender)

    def balance(answer: Any) -> Any:
        found = answer.get("nativeTokenBalance") if isinstance(answer, dict) else None
        return found.get("balance") if isinstance(found, dict) else None
    check(balance(after) != balance(earlier), "DATA-REL-003",
          f"getNativeBalance answers the same balance of {sender} before and after it paid for a transaction",
          expected=f"different balances at blocks {block - 1} and {block}: the deploying transaction in block {block} "
                   f"cost {sender} {fee}", received=f"{balance(earlier)} at both blocks", exchange=exchange)


def token_of(transfer: dict[str, Any]) -> tuple[str | None, str | None]:
    token = transfer.get("erc1155Token")
    if not isinstance(token, dict):
        return None, None
    address, token_id = token.get("address"), token.get("tokenId")
    return (address.lower() if isinstance(address, str) else None), (str(token_id) if token_id is not None else None)


@pytest.mark.rule("DATA-REL-007")
def test_erc1155_balance_at_a_past_block(data: DataApi) -> None:
    """At the block of one of the address's ERC-1155 transfers and at the block before it, listErc1155Balances
    states different balances of that token: the balance of each block, not the latest one twice."""
    wallet = data.need("evm_address").lower()
    listed = [t for t in checks.items_of("listErc1155Transactions", checks.input_of(
        data.first("listErc1155Transactions"), "listErc1155Transactions")) if isinstance(t, dict)]
    for transfer in listed[:CANDIDATES]:
        block, (contract, token_id) = amount(transfer.get("blockNumber")), token_of(transfer)
        if not block or not contract or token_id is None:
            continue
        # every transfer of that block: the route's own window, read by each transfer's block
        window = data.once("listErc1155Transactions", {"startBlock": block, "endBlock": block + 1,
                                                       "pageSize": checks.plain_page_size("listErc1155Transactions")})
        same = [t for t in checks.items_of("listErc1155Transactions", checks.answered(window))
                if isinstance(t, dict)]
        if not same or any(amount(t.get("blockNumber")) != block for t in same):
            continue
        change = sum((amount(t.get("value")) or 0) * ((party(t, "to") == wallet) - (party(t, "from") == wallet))
                     for t in same if token_of(t) == (contract, token_id))
        if change:
            break
    else:
        pytest.skip(f"no ERC-1155 transfer on the first page changes the balance of {wallet} in its block")

    def balance(answer: Any) -> int | None:
        found = [b for b in checks.items_of("listErc1155Balances", answer) if isinstance(b, dict)
                 and str(b.get("address", "")).lower() == contract and str(b.get("tokenId")) == token_id]
        return (amount(found[0].get("balance")) or 0) if found else None
    exchange, after = at_block(data, "listErc1155Balances", "DATA-REL-007", block, contract=contract)
    _, before = at_block(data, "listErc1155Balances", "DATA-REL-007", block - 1, contract=contract)
    if balance(after) is None and balance(before) is None:
        pytest.skip(f"neither answer lists token {token_id} of {contract} (the contract filter is DATA-FLT-027's)")
    check((balance(after) or 0) != (balance(before) or 0), "DATA-REL-007",
          f"listErc1155Balances answers the same balance of token {token_id} of {contract} before and after a "
          f"transfer that changed it", expected=f"different balances at blocks {block - 1} and {block}: the "
          f"address's transfers in block {block} add {change} to it", received=f"{balance(before)} at both blocks",
          exchange=exchange)
