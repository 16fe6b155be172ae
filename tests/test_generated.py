"""Generated tests (`conformance.generated.cases`): written as Hypothesis users expect, their cases drawn while they
are set up, every case judged, and the same seed giving the same requests."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from conformance.engine.cases import draw, kept_key
from conformance.generated import CASES_FIXTURE, cases, operation_requests, spec_of
from conformance.profiles import PROFILES
from conformance.reference import ReferenceServer
from conformance.schemathesis_support import WireCase
from conformance.session import reference_credentials


def test_the_case_arguments_are_not_fixtures_and_the_sources_needs_are() -> None:
    @cases(size=lambda known: st.integers(max_value=known))
    def test_sizes(client: object, size: int) -> None:
        pass

    assert list(inspect.signature(test_sizes).parameters) == ["client", "known", CASES_FIXTURE]
    spec = spec_of(test_sizes)
    assert spec is not None and spec.needs() == {"known"}


def test_a_source_that_names_no_argument_of_the_test_is_refused() -> None:
    with pytest.raises(TypeError, match="no argument page_size"):
        @cases(page_size=st.integers())
        def test_other(size: int) -> None:
            pass


def test_requests_made_from_discovered_values_are_kept_under_those_values() -> None:
    """The requests of an operation say every value they were made with, so a store can name them; a strategy made
    from a discovered value may hide it in a function, so its cases are drawn afresh."""
    label = "GET /v1/networks/{network}/blockchains/{blockchainId}/transactions"
    nodeid = "conformance/suite/data/test_properties.py::test_generated_requests_get_documented_answers[x]"

    def key(**path: str) -> str | None:
        return kept_key(nodeid, {"case": operation_requests("data", label, path=path)}, at_collection=False)

    assert key(network="mainnet") == key(network="mainnet") != key(network="fuji")
    assert key(network="mainnet") != kept_key(nodeid, {}, at_collection=True)
    assert kept_key(nodeid, {"case": st.integers(max_value=7)}, at_collection=False) is None
    assert kept_key("site-packages/" + nodeid, {}, at_collection=True) == kept_key(nodeid, {}, at_collection=True)


def test_the_requests_of_an_operation_come_as_they_are_sent() -> None:
    source = operation_requests("metrics", "GET /v1/avg_tps/{chainId}", path={"chainId": "total"}, limit=3)
    drawn = draw({"case": source}, PROFILES["quick"])
    assert drawn and all(isinstance(case["case"], WireCase) for case in drawn)
    assert any(case["case"].path == "v1/avg_tps/total" for case in drawn)


GENERATED = '''
import pytest
from hypothesis import settings, strategies as st

from conformance.checks import fail
from conformance.generated import cases

SEEN = []


@pytest.fixture
def limit():
    return 5


@pytest.mark.rule("RPC-ENV-001")
@cases(size=lambda limit: st.integers(min_value=0, max_value=limit))
def test_every_case_is_judged(size):
    SEEN.append(size)
    if size % 2:
        fail("RPC-ENV-001", f"odd size {size}", expected="even", received=str(size))


@pytest.mark.rule("RPC-ENV-001")
def test_every_case_ran():
    assert len(SEEN) == 5 and all(0 <= size <= 5 for size in SEEN)
'''


def test_every_case_runs_and_a_violation_of_one_leaves_the_others_judged(tmp_path: Path) -> None:
    (tmp_path / "test_generated_cases.py").write_text(GENERATED, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                             str(tmp_path), "--rootdir", str(tmp_path), "--node-url", "http://127.0.0.1:9",
                             "--conformance-profile", "quick", "--report-dir", "", "--hypothesis-seed=3"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    # The seed draws odd and even sizes: the odd ones fail the first test, each recorded, none stopping the rest.
    assert "odd size" in result.stdout and "1 failed, 1 passed" in result.stdout, result.stdout[-3000:]


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
        server.app.route = recorded  # type: ignore[method-assign]  # the app's own dispatch, recorded


def _generated_run(server: ReferenceServer, report_dir: Path, cases: Path, *options: str) -> None:
    target = ["--target-url", server.url, "--evm-chain", str(server.info()["evm_blockchain_id"]),
              *[f"--sample={name}={value}" for name, value in reference_credentials(server.info()).items()]]
    result = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--profile", "quick", "--api", "index,evm,data,metrics",
         "--report-dir", str(report_dir), *target, *options, "--",
         "-k", "test_generated_requests or test_invalid or test_drawn or test_page_never_exceeds_any_page_size "
         "or test_points_lie_within_any_aligned_range", "--hypothesis-seed=1"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "CONFORMANCE_CASES_DIR": str(cases)})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.mark.selftest_slow
def test_the_same_seed_sends_the_same_generated_requests_drawn_or_kept_in_flight_or_not(tmp_path: Path) -> None:
    """One test at a time with every case drawn, then tests in flight with every case read from the store."""
    with ReferenceServer() as server:
        recorded = _Recorded(server)
        _generated_run(server, tmp_path / "one", tmp_path / "cases", "--concurrency", "1")
        first = list(recorded.requests)
        recorded.requests.clear()
        _generated_run(server, tmp_path / "eight", tmp_path / "cases")
    generated_routes = [request for request in first if not request[1].startswith("/ext/info")]
    assert len(generated_routes) > 100
    assert sorted(recorded.requests) == sorted(first)
