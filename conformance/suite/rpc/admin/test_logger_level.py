"""admin.getLoggerLevel and admin.setLoggerLevel: shapes, one logger or all, set and read back, restore."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterator

import pytest

from conformance.checks import check
from conformance.checks.admin import SAMPLE_LEVELS, empty_object, logger_levels, other_level
from conformance.checks.envelope import expect_refusal, is_error, is_response_object, result_of
from conformance.checks.served import not_served
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.session import Endpoints


@pytest.mark.rule("RPC-ADM-001")
def test_admin_answers_json_rpc(admin: JsonRpcClient) -> None:
    """The Admin API answers JSON-RPC calls at /ext/admin (when the node enables it)."""
    exchange = admin.call("admin.getLoggerLevel", {})
    if exchange.status == 404 or is_response_object(exchange) and not_served(exchange):
        pytest.skip("the Admin API is not enabled on this node")
    check(is_response_object(exchange), "RPC-ADM-001", "/ext/admin does not answer JSON-RPC",
          expected="a JSON-RPC response object", received=f"HTTP {exchange.status}: {exchange.text(200)}",
          exchange=exchange)


@pytest.mark.rule("RPC-ADM-011", "RPC-ADM-014")
def test_logger_levels_have_the_documented_shape(admin_api: JsonRpcClient,
                                                 observe: Callable[[str, Any], None]) -> None:
    """admin.getLoggerLevel maps each logger name to a string logLevel and displayLevel."""
    levels = logger_levels(admin_api, "RPC-ADM-011")
    observe("RPC-ADM-014", sorted({v for entry in levels.values() for v in entry.values()} - set(SAMPLE_LEVELS)))


# RPC-ADM-036 is the watch's: the logger seen in both answers is compared (its x-identity in specs/openrpc/admin.json)
@pytest.mark.rule("RPC-ADM-012", "RPC-ADM-036")
# "uneven": a logger whose two levels differ, where levels answered the other way round show
@pytest.mark.parametrize("pick", ["first", "last", "uneven"])
def test_logger_name_returns_that_logger_only(admin_api: JsonRpcClient, pick: str) -> None:
    """admin.getLoggerLevel with loggerName returns that logger and no other, with the levels the answer for every
    logger gives it."""
    levels = logger_levels(admin_api, "RPC-ADM-012")
    names = sorted(levels)
    if pick == "uneven":
        names = [name for name in names if isinstance(levels[name], dict)
                 and levels[name].get("logLevel") != levels[name].get("displayLevel")]
    if not names:
        pytest.skip("the node reports no loggers" if pick != "uneven" else "no logger has two different levels")
    name = names[-1] if pick == "last" else names[0]
    one = logger_levels(admin_api, "RPC-ADM-012", name)
    check(list(one) == [name], "RPC-ADM-012", "admin.getLoggerLevel with loggerName returns other loggers",
          expected=f"only {name!r}", received=sorted(one), exchange=admin_api.http.last)


@pytest.mark.rule("RPC-ADM-013")
def test_without_logger_name_returns_every_logger(admin_api: JsonRpcClient, endpoints: Endpoints,
                                                 blockchain_id_or_none: str | None) -> None:
    """admin.getLoggerLevel without loggerName returns every logger that exists by name."""
    everyone = logger_levels(admin_api, "RPC-ADM-013")
    exchange = admin_api.http.last
    candidates = {name for name in (endpoints.evm_chain, blockchain_id_or_none, endpoints.sample("logger_name"))
                  if name is not None}
    for name in sorted(candidates - set(everyone)):
        answer = admin_api.call("admin.getLoggerLevel", {"loggerName": name})
        if is_error(answer):
            continue  # no logger of that name
        found = answer.json()["result"].get("loggerLevels", {}) if isinstance(answer.json().get("result"), dict) \
            else {}
        check(name not in found, "RPC-ADM-013", "admin.getLoggerLevel without loggerName leaves out a logger",
              expected=f"a logger {name!r} (it answers by name)", received=sorted(everyone), exchange=exchange)


@pytest.fixture
def logger(admin_api: JsonRpcClient) -> Iterator[tuple[str, dict[str, str]]]:
    """A logger and its levels, restored after the test."""
    levels = logger_levels(admin_api, "RPC-ADM-011")
    if not levels:
        pytest.skip("the node reports no loggers")
    name = sorted(levels)[-1]
    yield name, dict(levels[name])
    admin_api.call("admin.setLoggerLevel", {"loggerName": name, **levels[name]})


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-015", "RPC-ADM-016")
def test_set_log_level_is_read_back(admin_api: JsonRpcClient, logger: tuple[str, dict[str, str]]) -> None:
    """admin.setLoggerLevel with loggerName and logLevel returns {} and getLoggerLevel reads the new level."""
    name, before = logger
    wanted = other_level(before["logLevel"])
    empty_object(admin_api.call("admin.setLoggerLevel", {"loggerName": name, "logLevel": wanted}),
                 "RPC-ADM-015", "admin.setLoggerLevel")
    after = logger_levels(admin_api, "RPC-ADM-016", name).get(name, {})
    check(after.get("logLevel") == wanted, "RPC-ADM-016", "the logLevel set is not read back",
          expected=f"logLevel {wanted!r}", received=after, exchange=admin_api.http.last)


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-015", "RPC-ADM-017", "RPC-ADM-020")
def test_set_display_level_is_read_back(admin_api: JsonRpcClient, logger: tuple[str, dict[str, str]],
                                        observe: Callable[[str, Any], None]) -> None:
    """admin.setLoggerLevel with loggerName and displayLevel sets the displayLevel getLoggerLevel reads."""
    name, before = logger
    wanted = other_level(before["displayLevel"])
    empty_object(admin_api.call("admin.setLoggerLevel", {"loggerName": name, "displayLevel": wanted}),
                 "RPC-ADM-015", "admin.setLoggerLevel")
    after = logger_levels(admin_api, "RPC-ADM-017", name).get(name, {})
    check(after.get("displayLevel") == wanted, "RPC-ADM-017", "the displayLevel set is not read back",
          expected=f"displayLevel {wanted!r}", received=after, exchange=admin_api.http.last)
    observe("RPC-ADM-020", {"logLevel kept": after.get("logLevel") == before["logLevel"]})


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-035")
def test_set_one_logger_leaves_the_others(admin_api: JsonRpcClient, logger: tuple[str, dict[str, str]]) -> None:
    """admin.setLoggerLevel with loggerName changes that logger only: every other logger keeps its levels."""
    name, before = logger
    others = {other: entry for other, entry in logger_levels(admin_api, "RPC-ADM-011").items() if other != name}
    if not others:
        pytest.skip("the node reports one logger only")
    admin_api.call("admin.setLoggerLevel", {"loggerName": name, "logLevel": other_level(before["logLevel"])})
    after = logger_levels(admin_api, "RPC-ADM-011")
    changed = {other: [entry, after[other]] for other, entry in others.items() if other in after
               and after[other] != entry}
    check(not changed, "RPC-ADM-035", f"admin.setLoggerLevel with loggerName {name!r} changes other loggers",
          expected=f"only {name!r} changed", received={other: f"{was} -> {now}" for other, (was, now) in
                                                       changed.items()}, exchange=admin_api.http.last)


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-018")
def test_set_without_logger_name_changes_every_logger(admin_api: JsonRpcClient) -> None:
    """admin.setLoggerLevel without loggerName changes the logLevel of every logger."""
    before = logger_levels(admin_api, "RPC-ADM-018")
    wanted = other_level(sorted(before.values(), key=str)[0]["logLevel"]) if before else SAMPLE_LEVELS[0]
    try:
        # A refusal is this rule's deviation; the form of the answer is RPC-ADM-015's.
        result_of(admin_api.call("admin.setLoggerLevel", {"logLevel": wanted}), "RPC-ADM-018", "admin.setLoggerLevel")
        after = logger_levels(admin_api, "RPC-ADM-018")
        unchanged = sorted(name for name, entry in after.items() if entry.get("logLevel") != wanted)
        check(not unchanged, "RPC-ADM-018", "admin.setLoggerLevel without loggerName leaves loggers unchanged",
              expected=f"every logLevel {wanted!r}", received=f"unchanged: {unchanged}", exchange=admin_api.http.last)
    finally:
        for name, entry in before.items():
            admin_api.call("admin.setLoggerLevel", {"loggerName": name, **entry})


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-019")
@pytest.mark.parametrize("with_name", [True, False], ids=["one-logger", "all-loggers"])
def test_set_without_any_level_is_rejected(admin_api: JsonRpcClient, logger: tuple[str, dict[str, str]],
                                           with_name: bool) -> None:
    """admin.setLoggerLevel with both logLevel and displayLevel omitted is rejected."""
    params = {"loggerName": logger[0]} if with_name else {}
    expect_refusal(admin_api.call("admin.setLoggerLevel", params), "RPC-ADM-019",
                   "admin.setLoggerLevel without logLevel and displayLevel")
