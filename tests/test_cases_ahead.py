"""Cases drawn ahead: a helper process draws what a property test would, placeholders are filled with what the run
discovered, and the run sends the same requests with the helper as without it."""
from __future__ import annotations

import pickle
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import settings, strategies as st

from conformance import schemathesis_support as generated
from conformance.cases_ahead import (DrawAhead, OperationPlan, StrategyPlan, drawn, filled, placeholder,
                                      usable_cores)
from conformance.checks import data as data_checks
from conformance.profiles import PROFILES
from conformance.reference import ReferenceServer
from conformance.session import reference_credentials
from conformance.strategies import invalid_params
from conformance.strategies.jsonrpc import InvalidCase


#: The quick profile's example count, drawn the same way every time.
settings.register_profile("cases-ahead-test", parent=settings.get_profile(PROFILES["quick"].hypothesis_profile),
                          derandomize=True)


@pytest.fixture
def drawing() -> Iterator[None]:
    current = settings._current_profile  # type: ignore[attr-defined]
    settings.load_profile("cases-ahead-test")
    try:
        yield
    finally:
        settings.load_profile(current)


def test_placeholders_are_filled_wherever_they_were_drawn() -> None:
    case = InvalidCase({"id": placeholder("id"), "encoding": 7}, "encoding", "type", "RPC-IDX-015")
    assert filled([case, (placeholder("id"), "x")], {"id": "2Zb…"}) == [
        InvalidCase({"id": "2Zb…", "encoding": 7}, "encoding", "type", "RPC-IDX-015"), ("2Zb…", "x")]
    assert filled({"text": "an ordinary value"}, {}) == {"text": "an ordinary value"}


def _operation_plan() -> OperationPlan:
    spec = data_checks.operation("listTransactions")
    names = [part.split("}")[0] for part in spec.template.split("{")[1:]]
    return OperationPlan.of("data", f"{spec.method} {spec.template}", limit=10,
                            path_parameters=[{name: placeholder(name) for name in names}])


def test_drawn_cases_read_back_as_they_were_and_take_the_discovered_path_values(drawing: None) -> None:
    cases = _operation_plan().draw()
    back = pickle.loads(pickle.dumps(cases))
    assert back == cases and all(isinstance(case, generated.WireCase) for case in back)
    known = {"network": "mainnet", "blockchainId": "c-chain", "address": "0xab"}
    # The fuzzed cases hold the placeholders (the examples and coverage phases generate their own path values).
    fuzzed = [case for case in back if placeholder("network") in case.request.path_parameters.values()]
    assert fuzzed
    for before, after in zip(back, filled(back, known)):
        assert "conformance-discovered" not in after.path + str(after.request.path_parameters)
        if before in fuzzed:
            assert after.request.path_parameters == {name: known[name] for name in before.request.path_parameters}
            assert after.params == before.params and after.body == before.body


def test_a_filled_placeholder_is_encoded_as_the_value_drawn_in_its_place(drawing: None) -> None:
    known = {"network": "main net", "blockchainId": "c/chain?", "address": "0xé%41"}
    assert filled(_operation_plan().draw(), known) == _operation_plan().draw(known)


def test_a_strategy_plan_draws_its_placeholders_and_what_is_known_alike(drawing: None) -> None:
    plan = StrategyPlan(lambda known: invalid_params("index.getContainerByID", api="index",
                                                     fixed={"id": known["id"]}), frozenset({"id"}))
    ahead = filled(plan.draw(), {"id": "X"})
    here = plan.draw({"id": "X"})
    assert ahead == here and len(here) == PROFILES["quick"].examples


class _Recorded:
    """Every request the reference answers: method, path with query, body."""

    def __init__(self, server: ReferenceServer) -> None:
        self.requests: list[tuple[str, str, bytes]] = []
        self._lock = threading.Lock()
        route = server.app.route

        def recorded(request: Any) -> Any:
            with self._lock:
                self.requests.append((request.method, request.full_path, request.get_data()))
            return route(request)
        server.app.route = recorded  # type: ignore[method-assign]


def _run(server: ReferenceServer, report_dir: Path, *options: str) -> str:
    target = ["--target-url", server.url, "--evm-chain", str(server.info()["evm_blockchain_id"]),
              *[f"--sample={name}={value}" for name, value in reference_credentials(server.info()).items()]]
    result = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--profile", "quick", "--api", "index,evm,data,metrics",
         "--report-dir", str(report_dir), *target, *options, "--",
         "-k", "test_generated_requests or test_invalid or test_drawn or test_page_never_exceeds_any_page_size "
         "or test_points_lie_within_any_aligned_range", "--hypothesis-seed=1"],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux") or usable_cores() < 2,
                    reason="the helper process runs on Linux with more than one core")
def test_a_run_sends_the_same_requests_with_and_without_the_helper(tmp_path: Path) -> None:
    with ReferenceServer() as server:
        recorded = _Recorded(server)
        alone = _run(server, tmp_path / "alone", "--no-draw-ahead")
        without = list(recorded.requests)
        recorded.requests.clear()
        helped = _run(server, tmp_path / "helped")
    assert "drawn ahead" not in alone
    taken = re.search(r"conformance: (\d+) of (\d+) property tests took cases drawn ahead", helped)
    assert taken and taken.group(1) == taken.group(2) and int(taken.group(1)) > 30, helped[-2000:]
    generated_routes = [request for request in without if not request[1].startswith("/ext/info")]
    assert len(generated_routes) > 100
    assert sorted(recorded.requests) == sorted(without)


def test_a_test_draws_its_own_cases_when_the_helper_did_not(drawing: None) -> None:
    ahead = DrawAhead(config=None)  # type: ignore[arg-type]
    ahead._expected = {"t"}
    ahead._ended = True   # the helper ended (or died) without sending this test's cases
    assert ahead.take("t") is None
    ahead._drawn["u"], ahead._expected = b"not a pickle", {"u"}
    assert ahead.take("u") is None

    class _Request:
        class config:   # noqa: N801 - the shape of pytest's request.config
            class pluginmanager:  # noqa: N801
                @staticmethod
                def get_plugin(name: str) -> DrawAhead:
                    return ahead

        class node:  # noqa: N801
            nodeid = "t"
    plan = StrategyPlan(lambda known: invalid_params("index.getContainerByID", api="index",
                                                     fixed={"id": known["id"]}), frozenset({"id"}))
    cases = drawn(_Request(), plan, {"id": "X"})  # type: ignore[arg-type]
    assert cases == plan.draw({"id": "X"}) and all("conformance-discovered" not in str(case) for case in cases)


def _bounded(known: Any) -> Any:
    return st.integers(min_value=0, max_value=known["last"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the helper process is forked, as on Linux")
def test_a_plan_that_needs_a_value_is_drawn_once_it_is_published_and_the_others_meanwhile(drawing: None) -> None:
    import multiprocessing

    from conformance.cases_ahead import _draw_all

    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    values_in, values_out = context.Pipe(duplex=False)
    plans = [("needs", StrategyPlan(_bounded, needs=frozenset({"last"}))),
             ("free", StrategyPlan(lambda known: st.just("free")))]
    helper = context.Process(target=_draw_all, args=(plans, sending, values_in), daemon=True)
    helper.start()
    sending.close()
    values_in.close()
    try:
        assert receiving.poll(60)
        key, payload = pickle.loads(receiving.recv_bytes())
        cases, used = pickle.loads(payload)
        assert key == "free" and set(cases) == {"free"} and used == {}
        assert not receiving.poll(0.2)   # the plan that needs a value waits for it
        values_out.send_bytes(pickle.dumps(("last", 3)))
        assert receiving.poll(60)
        key, payload = pickle.loads(receiving.recv_bytes())
        cases, used = pickle.loads(payload)
        assert key == "needs" and used == {"last": 3} and cases and all(0 <= case <= 3 for case in cases)
    finally:
        values_out.close()
        helper.join(10)


def test_cases_drawn_with_another_value_than_the_test_has_are_drawn_again() -> None:
    ahead = DrawAhead(config=None)  # type: ignore[arg-type]
    ahead._expected = {"t", "u"}
    ahead._drawn["t"] = ahead._drawn["u"] = pickle.dumps(([1, 2], {"last": 3}))
    assert ahead.take("t", {"last": 4}) is None
    assert ahead.take("u", {"last": 3}) == [1, 2]


def test_a_helper_that_stalls_is_given_up_on_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import conformance.cases_ahead as cases_ahead

    monkeypatch.setattr(cases_ahead, "WAIT_SECONDS", 0.05)
    ahead = DrawAhead(config=None)  # type: ignore[arg-type]
    ahead._expected = {"a", "b"}   # the helper never sends either
    assert ahead.take("a") is None
    assert ahead._ended   # so the next test draws its own cases at once
    assert ahead.take("b") is None
