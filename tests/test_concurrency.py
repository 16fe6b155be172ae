"""Tests in flight: the same requests and verdicts as one at a time, one rate limit and one budget for every thread,
and each test's evidence kept to itself."""
from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from benchmarks.delay_proxy import DelayProxy
from conformance.clients import shared_limits
from conformance.clients.http import HttpSession, Limits
from conformance.clients.shared_limits import SharedLimits
from conformance.concurrency import Once, serial_reason
from conformance.errors import BudgetExhausted
from conformance.reference import ReferenceServer
from conformance.session import reference_credentials
from tests.suite_runs import SuiteRun, run_suite

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

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        with _Counting.lock:
            _Counting.seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
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
        except BaseException as exc:  # noqa: BLE001 - the test looks at every outcome
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
    http.rate.wait = recorded  # type: ignore[method-assign]
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
    once, calls, ready = Once(), Counter(), threading.Barrier(8)

    def compute() -> int:
        calls["key"] += 1
        return 42

    def ask() -> None:
        ready.wait()
        assert once.get("key", compute) == 42
    assert _in_threads(8, ask) == []
    assert calls["key"] == 1


def test_a_failed_computation_is_tried_again_by_the_next_caller() -> None:
    once = Once()
    with pytest.raises(ZeroDivisionError):
        once.get("key", lambda: 1 // 0)
    assert once.get("key", lambda: 7) == 7


def _report(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "report.json").read_text(encoding="utf-8"))


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {rule["id"]: rule["status"] for rule in report["rules"]}


@dataclass
class _Behind:
    """The reference as the suite sees it through a proxy: the proxy's address, the reference's description."""

    url: str
    server: ReferenceServer

    def info(self) -> dict[str, Any]:
        return self.server.info()


def _concurrent(server: ReferenceServer, report_dir: Path, *extra: str) -> tuple[SuiteRun, DelayProxy]:
    """The suite through a delay proxy in front of `server`, eight tests in flight at most."""
    with DelayProxy(server.url, DELAY, lifetime=600) as proxy:
        run = run_suite(_Behind(proxy.url, server), SUITE, "--concurrency", "8",  # type: ignore[arg-type]
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
    assert {o.nodeid: o.outcome for o in one.outcomes.values()} == {o.nodeid: o.outcome for o in eight.outcomes.values()}


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
    kept = {nodeid: (o.outcome, o.broken, o.evidence) for nodeid, o in one.outcomes.items()}
    stable = {nodeid for nodeid, seen in kept.items()
              if seen == (again.outcomes[nodeid].outcome, again.outcomes[nodeid].broken, again.outcomes[nodeid].evidence)}
    assert len(stable) >= 0.9 * len(kept)
    for nodeid in stable:
        other = eight.outcomes[nodeid]
        assert (other.outcome, other.broken, other.evidence) == kept[nodeid], nodeid
    failing = {rule["id"] for rule in _report(tmp_path / "one")["rules"] if rule["status"] == "fail"}
    assert failing == {rule["id"] for rule in _report(tmp_path / "eight")["rules"] if rule["status"] == "fail"}
    # Reproducers name the same requests (JSON-RPC ids counted per test), at the reference's or the proxy's address.
    tests = {nodeid.split("conformance/suite/", 1)[-1] for nodeid in stable}
    assert _reproducers(tmp_path / "one", tests) == _reproducers(tmp_path / "eight", tests, (proxy.url, server.url))
    assert _reproducers(tmp_path / "one", tests)


def _reproducers(report_dir: Path, tests: set[str], moved: tuple[str, str] = ("", "")) -> set[tuple[str, str]]:
    return {(failure["test"], failure["reproducer"].replace(*moved)) for rule in _report(report_dir)["rules"]
            for failure in rule.get("failures", []) if failure["test"] in tests}


def test_tests_that_change_the_target_or_tear_down_after_themselves_run_alone(tmp_path: Path) -> None:
    (tmp_path / "test_kinds.py").write_text(
        "import pytest\n\n"
        "def test_plain():\n    pass\n\n"
        "@pytest.mark.mutating\ndef test_mutating():\n    pass\n\n"
        "@pytest.mark.serial\ndef test_marked():\n    pass\n\n"
        "def test_with_a_teardown(tmp_path):\n    pass\n", encoding="utf-8")
    reasons: dict[str, str | None] = {}

    class Collect:
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            reasons.update({item.name: serial_reason(item) for item in session.items})
    assert pytest.main([str(tmp_path), "--collect-only", "-q", "-p", "no:cacheprovider"], plugins=[Collect()]) == 0
    assert reasons["test_plain"] is None
    assert reasons["test_mutating"] and reasons["test_marked"] and reasons["test_with_a_teardown"]


def _reserve_and_take(path: str, interval: float, budget: int, count: int, out: Any) -> None:
    shared = SharedLimits(Path(path))
    out.put(([shared.reserve(interval) for _ in range(count)], sum(shared.take(budget) for _ in range(count))))


@pytest.mark.skipif(not shared_limits.AVAILABLE, reason="no file locks (fcntl) on this platform")
def test_workers_keep_one_rate_schedule_and_one_budget(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    workers = [context.Process(target=_reserve_and_take, args=(str(tmp_path / "limits"), 0.01, 25, 10, out))
               for _ in range(4)]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    starts = sorted(start for schedule, _ in results for start in schedule)
    # Four processes, one schedule: every start is its interval after the one before, whichever process took it.
    assert len(starts) == 40 and all(later - earlier >= 0.01 - 1e-9 for earlier, later in zip(starts, starts[1:]))
    assert sum(taken for _, taken in results) == 25


def _command_run(report_dir: Path, *argv: str) -> dict[str, Any]:
    result = subprocess.run([sys.executable, "-m", "conformance", "run", "--profile", "quick", "--report-dir",
                             str(report_dir), *argv], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return _report(report_dir)


@pytest.mark.selftest_slow
@pytest.mark.skipif(not shared_limits.AVAILABLE, reason="no file locks (fcntl) on this platform")
def test_workers_share_the_run_s_reads_instead_of_repeating_them(tmp_path: Path) -> None:
    with ReferenceServer() as server:
        target = ["--target-url", server.url, "--evm-chain", str(server.info()["evm_blockchain_id"]),
                  *[f"--sample={name}={value}" for name, value in reference_credentials(server.info()).items()]]
        alone = _command_run(tmp_path / "alone", *target)
        four = _command_run(tmp_path / "four", *target, "-n", "4")
    assert _verdicts(alone) == _verdicts(four)
    sent = alone["summary"]["requests"]
    assert abs(four["summary"]["requests"] - sent) <= 0.02 * sent, (sent, four["summary"]["requests"])


def test_the_requests_of_one_test_go_out_together_and_come_back_in_order() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from conformance.clients.http import ANSWER_TIMES
    from conformance.concurrency import ConcurrentLoop, sent_each

    loop = ConcurrentLoop(config=None, width=4)  # type: ignore[arg-type]
    at_once, most, lock = [0], [0], threading.Lock()

    def send(value: int) -> int:
        with lock:
            at_once[0] += 1
            most[0] = max(most[0], at_once[0])
        time.sleep(0.02)
        with lock:
            at_once[0] -= 1
        return value * 10

    class _Config:
        class pluginmanager:  # noqa: N801 - the shape of pytest's config
            @staticmethod
            def get_plugin(name: str) -> ConcurrentLoop:
                return loop
    # Before the loop measured a far target it sends one at a time, in the test's own thread.
    assert sent_each(_Config(), send, list(range(8))) == [value * 10 for value in range(8)] and most[0] == 1
    ANSWER_TIMES.clear()
    ANSWER_TIMES.extend([0.05] * 20)
    loop.requests, loop.busy = 100, 0.01   # answers wait 50 ms, a call computes 0.1 ms a request
    with ThreadPoolExecutor(max_workers=4) as pool, loop._sending(pool):
        assert sent_each(_Config(), send, list(range(8))) == [value * 10 for value in range(8)]
    assert 1 < most[0] <= 4
    ANSWER_TIMES.clear()


def test_a_tests_hooks_are_worked_out_once_per_file_while_the_loop_runs() -> None:
    from conformance.concurrency import _hook_proxies_remembered

    class _Session:
        """pytest's, where conftests apply to some paths only: a new hook proxy on every call."""
        def gethookproxy(self, fspath: Any) -> object:
            return object()

    session = _Session()
    with _hook_proxies_remembered(session):  # type: ignore[arg-type]
        assert session.gethookproxy("a.py") is session.gethookproxy("a.py")
        assert session.gethookproxy("a.py") is not session.gethookproxy("b.py")
    assert session.gethookproxy("a.py") is not session.gethookproxy("a.py")   # pytest's own again
