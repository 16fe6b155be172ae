"""Property-based tests: valid params give the documented shape; invalid params give a JSON-RPC error."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest
from hypothesis import strategies as st

from conformance.checks import check, independently
from conformance.checks.evm_extras import check_active_rules
from conformance.checks.envelope import check_envelope, expect_refusal, is_error, record_error, result_of
from conformance.checks.index import (IndexAt, check_consecutive, check_container, max_fetch, param_schema, position,
                                      range_items)
from conformance.clients.jsonrpc import JsonRpcClient
from conformance.strategies import boundary_values, container_ranges, invalid_params, valid_params
from conformance.generated import cases
from conformance.suite.rpc.conftest import Known

MAX = max_fetch()
#: Drawn ranges stay small to keep each example one cheap request; the maximum itself is a boundary case below.
DRAWN_FETCH = 16
INDEX_READS = ["index.getContainerByID", "index.getContainerByIndex", "index.getContainerRange", "index.getIndex",
               "index.getLastAccepted", "index.isAccepted"]
ENVELOPE = ("RPC-ENV-001", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007", "RPC-ENV-015")


@pytest.mark.rule("RPC-IDX-001", "RPC-IDX-007", "RPC-IDX-008")
# numToFetch 0 is RPC-IDX-002's case, decided by its own tests: an answer to it says nothing of an array.
@cases(drawn_range=lambda known: container_ranges(last_index=known.last, max_fetch=DRAWN_FETCH, min_fetch=1))
def test_drawn_ranges_are_consecutive_and_complete(index_at: IndexAt, known: Known,
                                                   drawn_range: tuple[int, int]) -> None:
    """Any range inside the index returns consecutive containers, all that exist up to numToFetch."""
    start, count = drawn_range
    exchange = index_at.range(start, count)
    # One wording for every example: a form every range shares is one deviation, reported once.
    items = range_items(exchange, "RPC-IDX-008", "a drawn range")
    with independently():
        check(min(count, known.last + 1 - start) <= len(items) <= count, "RPC-IDX-007",
              "a range does not return the containers that exist", expected=f"{min(count, known.last + 1 - start)}"
              f" to {count} containers", received=f"{len(items)} containers", exchange=exchange)
    check_consecutive(items, start, exchange)


def indexes_up_to(last: int) -> st.SearchStrategy[tuple[int, Any]]:
    """An index up to `last`, and valid params asking for it."""
    return st.integers(min_value=0, max_value=last).flatmap(
        lambda wanted: valid_params("index.getContainerByIndex", api="index", fixed={"index": wanted}).map(
            lambda params: (wanted, params)))


@pytest.mark.rule("RPC-IDX-017", "RPC-IDX-009", "RPC-IDX-010", "RPC-IDX-012", "RPC-IDX-013", "RPC-IDX-014")
@cases(drawn_index=lambda known: indexes_up_to(known.last))
def test_drawn_indexes_give_that_container(index_at: IndexAt, drawn_index: tuple[int, Any]) -> None:
    """index.getContainerByIndex of any index up to the last accepted gives a Container carrying that index."""
    wanted, params = drawn_index
    exchange = index_at.client.call("index.getContainerByIndex", params)
    container = result_of(exchange, "RPC-IDX-017", "index.getContainerByIndex")
    check_container(container, exchange=exchange, what="index.getContainerByIndex result")
    # The index's form is RPC-IDX-014's: which container came back is read from it however it is written.
    check(position(container) == wanted, "RPC-IDX-017", "index.getContainerByIndex gives another container",
          expected=f'index "{wanted}"', received=container.get("index") if isinstance(container, dict)
          else container, exchange=exchange)


@pytest.mark.rule("RPC-EVM-022", "RPC-EVM-023", "RPC-EVM-024", "RPC-EVM-026")
@cases(params=valid_params("eth_getActiveRulesAt", api="evm"))
def test_drawn_timestamps_give_active_rules(evm: JsonRpcClient, params: Any) -> None:
    """eth_getActiveRulesAt answers any unsigned timestamp (or none) with the Active rules shape."""
    exchange = evm.call("eth_getActiveRulesAt", params)
    # Drawn params may leave the timestamp out: a refusal of that is RPC-EVM-025's, of a timestamp RPC-EVM-026's.
    answered_by = "RPC-EVM-026" if isinstance(params, list) and params and params[0] is not None else "RPC-EVM-025"
    result = result_of(exchange, answered_by, f"eth_getActiveRulesAt {params}")
    check_active_rules(result, what="eth_getActiveRulesAt result", exchange=exchange)


def _check_invalid(client: JsonRpcClient, method: str, case: Any, observe: Callable[[str, Any], None]) -> None:
    exchange = client.call(method, case.params)
    check_envelope(exchange, None)
    if case.rule:
        expect_refusal(exchange, case.rule, f"{method} with {case.param} {case.kind}")
    if is_error(exchange):
        record_error(observe, exchange)


@pytest.mark.rule(*ENVELOPE, "RPC-IDX-004", "RPC-IDX-015")
@pytest.mark.parametrize("method", INDEX_READS)
@cases(case=lambda method, known: invalid_params(method, api="index", fixed={"id": known.container.get("id")}))
def test_invalid_index_params_are_answered_in_the_envelope(index_at: IndexAt, method: str, case: Any,
                                                           observe: Callable[[str, Any], None]) -> None:
    """Invalid Index API params give a well-formed answer, an error where the document says so (the container ID
    the target holds is fixed where a valid one is drawn)."""
    _check_invalid(index_at.client, method, case, observe)


@pytest.fixture
def chain_client(request: pytest.FixtureRequest, api: str, method: str,
                 require_served: Callable[[str], None]) -> JsonRpcClient:
    """The client of the test's API once its method is known to be served (while the test is set up)."""
    require_served(method)
    return request.getfixturevalue(api)


@pytest.mark.rule(*ENVELOPE)
@pytest.mark.parametrize(("api", "method"), [("evm", "eth_feeConfig"), ("evm", "eth_getActiveRulesAt"),
                                             ("validators", "validators.getCurrentValidators")])
@cases(case=lambda method, api: invalid_params(method, api=api))
def test_invalid_chain_params_are_answered_in_the_envelope(chain_client: JsonRpcClient, method: str, case: Any,
                                                           observe: Callable[[str, Any], None]) -> None:
    """Invalid EVM and validators params give a well-formed JSON-RPC answer."""
    _check_invalid(chain_client, method, case, observe)


@pytest.mark.rule("RPC-IDX-002", "RPC-IDX-003", "RPC-IDX-004")
@pytest.mark.parametrize(("count", "accepted"),
                         [pair for pair in boundary_values(param_schema("index.getContainerRange", "numToFetch"),
                                                           api="index") if pair[0] >= 0])
def test_num_to_fetch_boundaries(index_at: IndexAt, known: Known, count: int, accepted: bool) -> None:
    """numToFetch at 0, 1, the maximum and one below are accepted; one above the maximum is refused."""
    exchange = index_at.range(0, count)
    if not accepted:
        expect_refusal(exchange, "RPC-IDX-004", f"numToFetch {count}")
        return
    rule = "RPC-IDX-002" if count == 0 else "RPC-IDX-003"
    items = range_items(exchange, rule, f"numToFetch {count}")
    check(len(items) == min(count, known.last + 1) or count > known.last + 1 and len(items) >= known.last + 1, rule,
          f"numToFetch {count} from index 0 does not return what exists", expected=f"{min(count, known.last + 1)} "
          "containers", received=f"{len(items)} containers", exchange=exchange)
