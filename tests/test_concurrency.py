"""Tests in flight: the same requests and verdicts as one at a time, one rate limit and one budget for every thread,
and each test's evidence kept to itself."""
from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from benchmarks.delay_proxy import DelayProxy
from conformance.clients.http import HttpSession, Limits
from conformance.engine.cache import RunCache
from conformance.engine.loop import serial_reason
from conformance.errors import BudgetExhausted
from conformance.reference import ReferenceServer
from conformance.meaning.watch import watched_rules
from tests.suite_runs import Behind, Outcome, SuiteRun, run_suite

#: One seed for the generated examples of both runs, so that they send the same requests.
SUITE = ["--pyargs", "conformance.suite", "--hypothesis-seed=1"]
#: Added to every answer of the reference, so that the run keeps several tests in flight (on loopback it would keep
#: one: threads only take turns at the interpreter's lock there).
DELAY = 0.02


class _Counting(BaseHTTPRequestHandler):
    """Answers {} to every GET and counts them."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    seen: list[str] = []
    lock = threading.Lock()

    def do_GET(self) -> None:
        with _Counting.lock:
            _Counting.seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Counting.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _in_threads(count: int, action: Any) -> list[BaseException]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_the_rate_limit_holds_across_threads(server: str) -> None:
    http = HttpSession(Limits(rate_limit=20, in_flight=8))
    starts: list[float] = []
    reserve = http.rate.wait

    def recorded() -> float:
        start = reserve()
        starts.append(start)
        return start
    http.rate.wait = recorded  # type: ignore[method-assign]  # records the waits
    assert _in_threads(8, lambda: [http.request("GET", f"{server}/ok") for _ in range(4)]) == []
    starts.sort()
    # Whatever the threads' order, no second of the schedule holds more than 20 starts.
    assert len(starts) == len(_Counting.seen) == 32
    # (less a nanosecond: 20 intervals of 1/20 s added up in floating point may fall short of a second)
    assert max(sum(1 for other in starts if start <= other < start + 1 - 1e-9) for start in starts) <= 20
    assert all(later - earlier >= 1 / 20 - 1e-9 for earlier, later in zip(starts, starts[1:]))


def test_the_request_budget_holds_exactly_across_threads(server: str) -> None:
    http = HttpSession(Limits(max_requests=25, in_flight=8))
    errors = _in_threads(8, lambda: [http.request("GET", f"{server}/ok") for _ in range(5)])
    assert http.requests_sent == len(_Counting.seen) == 25
    assert errors and all(isinstance(error, BudgetExhausted) for error in errors)


def test_once_computes_a_key_once_however_many_threads_ask() -> None:
    once, ready = RunCache(), threading.Barrier(8)
    calls: Counter[str] = Counter()

    def compute() -> int:
        calls["key"] += 1
        return 42

    def ask() -> None:
        ready.wait()
        assert once(compute, "key") == 42
    assert _in_threads(8, ask) == []
    assert calls["key"] == 1


def test_a_failed_computation_is_tried_again_by_the_next_caller() -> None:
    once = RunCache()

    def compute(value: int) -> int:
        return 7 // value
    with pytest.raises(ZeroDivisionError):
        once(lambda: compute(0), "key")
    assert once(lambda: compute(1), "key") == 7


def test_a_cache_is_keyed_by_the_place_that_computes_and_its_arguments() -> None:
    once = RunCache()
    first = once(lambda: "a", "same key")
    second = once(lambda: "b", "same key")
    assert (first, second) == ("a", "b"), "two places in the code share no entry"

    def read(key: int) -> tuple[str, int]:
        return once(lambda: ("read", key), key)
    assert [read(key) for key in (1, 2, 1)] == [("read", 1), ("read", 2), ("read", 1)]


def _report(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "report.json").read_text(encoding="utf-8"))


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {rule["id"]: rule["status"] for rule in report["rules"]}



def _concurrent(server: ReferenceServer, report_dir: Path, *extra: str) -> tuple[SuiteRun, DelayProxy]:
    """The suite through a delay proxy in front of `server`, eight tests in flight at most."""
    with DelayProxy(server.url, DELAY, lifetime=600) as proxy:
        run = run_suite(Behind(proxy.url, server), SUITE, "--concurrency", "8",
                        f"--report-dir={report_dir}", *extra)
    return run, proxy


@pytest.mark.selftest_slow
@pytest.mark.parametrize("profile", ["quick", "standard"])
def test_a_concurrent_run_sends_the_sequential_requests_and_decides_alike(tmp_path: Path, profile: str) -> None:
    with ReferenceServer() as server:
        one = run_suite(server, SUITE, f"--report-dir={tmp_path / 'one'}", "--conformance-profile", profile)
        eight, proxy = _concurrent(server, tmp_path / "eight", "--conformance-profile", profile)
    assert one.exit_code == eight.exit_code == 0, eight.output[-3000:]
    first, second = _report(tmp_path / "one"), _report(tmp_path / "eight")
    assert proxy.most_in_flight > 1, "the tests did not overlap"
    assert _verdicts(first) == _verdicts(second)
    sent = first["summary"]["requests"]
    assert abs(second["summary"]["requests"] - sent) <= 0.02 * sent, (sent, second["summary"]["requests"])
    assert ({o.nodeid: o.outcome for o in one.outcomes.values()}
            == {o.nodeid: o.outcome for o in eight.outcomes.values()})


@pytest.mark.selftest_slow
def test_evidence_and_violations_stay_with_their_tests(tmp_path: Path) -> None:
    faults = ["ContainerIndexAsNumber", "BlockchainsPageOverfull", "AvgTpsStatusIsText", "ContentTypeTextPlain"]
    with ReferenceServer(faults=faults) as server:
        one = run_suite(server, SUITE, f"--report-dir={tmp_path / 'one'}")
        again = run_suite(server, SUITE)
        eight, proxy = _concurrent(server, tmp_path / "eight")
    assert proxy.most_in_flight > 1, "the tests did not overlap"
    assert one.failures(), "the faults made no test fail"
    # Generated requests differ from run to run (schemathesis draws some of its own): the tests whose evidence two
    # sequential runs agree on are the ones a concurrent run must match.
    # The relations every answer is judged against record their evidence with whichever test's request brought the
    # answer first: which test that is depends on the order of requests, theirs is compared at the rule's verdict.
    watched = watched_rules()

    def own(outcome: Outcome) -> tuple[str, list[str], dict[str, list[int]]]:
        return (outcome.outcome, [rule for rule in outcome.broken if rule not in watched],
                {rule: pair for rule, pair in outcome.evidence.items() if rule not in watched})
    kept = {nodeid: own(o) for nodeid, o in one.outcomes.items()}
    stable = {nodeid for nodeid, seen in kept.items() if seen == own(again.outcomes[nodeid])}
    assert len(stable) >= 0.9 * len(kept)
    for nodeid in stable:
        assert own(eight.outcomes[nodeid]) == kept[nodeid], nodeid
    failing = {rule["id"] for rule in _report(tmp_path / "one")["rules"] if rule["status"] == "fail"}
    assert failing == {rule["id"] for rule in _report(tmp_path / "eight")["rules"] if rule["status"] == "fail"}
    # Reproducers name the same requests (JSON-RPC ids counted per test), at the reference's or the proxy's address.
    tests = {nodeid.split("conformance/suite/", 1)[-1] for nodeid in stable}
    assert _reproducers(tmp_path / "one", tests) == _reproducers(tmp_path / "eight", tests, (proxy.url, server.url))
    assert _reproducers(tmp_path / "one", tests)


def _reproducers(report_dir: Path, tests: set[str], moved: tuple[str, str] = ("", "")) -> set[tuple[str, str]]:
    return {(failure["test"], failure["reproducer"].replace(*moved)) for rule in _report(report_dir)["rules"]
            for failure in rule.get("failures", []) if failure["test"] in tests}


def test_tests_that_change_the_target_or_ask_for_fixtures_while_they_run_run_alone(tmp_path: Path) -> None:
    (tmp_path / "test_kinds.py").write_text(
        "import pytest\n\n"
        "def test_plain():\n    pass\n\n"
        "@pytest.mark.mutating\ndef test_mutating():\n    pass\n\n"
        "@pytest.mark.serial\ndef test_marked():\n    pass\n\n"
        "def test_asking(request):\n    pass\n\n"
        "def test_with_a_teardown(tmp_path):\n    pass\n", encoding="utf-8")
    reasons: dict[str, str | None] = {}

    class Collect:
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            reasons.update({item.name: serial_reason(item) for item in session.items})
    assert pytest.main([str(tmp_path), "--collect-only", "-q", "-p", "no:cacheprovider"], plugins=[Collect()]) == 0
    assert reasons["test_plain"] is None and reasons["test_with_a_teardown"] is None   # its teardown waits instead
    assert reasons["test_mutating"] and reasons["test_marked"] and reasons["test_asking"]


def test_a_teardown_never_overlaps_its_test_s_call(tmp_path: Path) -> None:
    """Yield fixtures and request.addfinalizer alike: the teardown comes after the call, whatever else is in flight."""
    # Four calls in flight from the start (the loop would first measure how long answers take).
    (tmp_path / "conftest.py").write_text(
        "from conformance.engine.loop import ConcurrentLoop\n"
        "ConcurrentLoop.lanes = lambda self: 4\n", encoding="utf-8")
    (tmp_path / "test_teardowns.py").write_text(
        "import time, pytest\n"
        "EVENTS = []\n\n"
        "@pytest.fixture\n"
        "def by_yield():\n    yield\n    EVENTS.append('yield-teardown')\n\n"
        "@pytest.fixture\n"
        "def by_finalizer(request):\n    request.addfinalizer(lambda: EVENTS.append('finalizer'))\n\n"
        "@pytest.mark.rule('RPC-ENV-001')\n"
        "def test_with_yield(by_yield):\n    time.sleep(0.2); EVENTS.append('yield-call')\n\n"
        "@pytest.mark.rule('RPC-ENV-001')\n"
        "def test_with_finalizer(by_finalizer):\n    time.sleep(0.2); EVENTS.append('finalizer-call')\n\n"
        "@pytest.mark.rule('RPC-ENV-001')\n"
        "@pytest.mark.parametrize('n', range(4))\n"
        "def test_plain(n):\n    time.sleep(0.05)\n\n"
        "def test_order():\n"
        "    assert EVENTS.index('yield-call') < EVENTS.index('yield-teardown')\n"
        "    assert EVENTS.index('finalizer-call') < EVENTS.index('finalizer')\n", encoding="utf-8")
    code = pytest.main([str(tmp_path), "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--rootdir", str(tmp_path),
                        "--node-url", "http://127.0.0.1:9", "--concurrency", "4", "--report-dir", ""])
    assert code == 0


def test_a_run_of_the_suite_refuses_worker_processes(tmp_path: Path) -> None:
    from conformance.cli import main

    assert main(["run", "-n", "2", "--report-dir", str(tmp_path)]) == 2
