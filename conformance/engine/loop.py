"""Tests in flight: the call phases of independent tests overlap on a pool of threads, over one HTTP session.

Against a target tens of milliseconds away a run waits on the network, not on the processor: most tests send
one to a few requests, so the requests of different tests must overlap. pytest's setup and teardown (the fixture
stack) are not made for threads, its call phase is: the main thread sets each test up in order, as pytest would,
hands its call to a thread of the pool and tears it down; the reports are made and logged in the main thread, in
the order of the tests, so the terminal and the reports see what a sequential run shows. Every request goes
through the run's one HttpSession: one rate limiter, one request budget, at most `--concurrency` requests in
flight on as many keep-alive connections. The loop listens to the sessions the fixtures make, for how long answers
take and how many each call received. The evidence of a test is recorded in a context variable set by its
own call, in its own thread, so it never mixes with another test's.

A teardown never overlaps its test's call: when the test or one of its fixtures registered teardown code (a yield
fixture, `request.addfinalizer`, whatever the mechanism), the test's call ends before it is torn down, and a
module's or class's teardown code waits for the calls running under it. A test runs alone, after the tests
before it finished and before any after it starts, when it changes the target (`mutating`), carries the `serial`
mark, or takes `request` (it may ask for fixtures while it runs, and fixtures are made in the main thread).
"""
from __future__ import annotations

import collections
import contextlib
import inspect
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Iterable, Iterator

import pytest

from conformance.clients.http import Exchange, FailedAttempt, HttpSession
from conformance.engine import pytest_internals as internals

#: Call phases run one at a time until they sent this many requests: how long a call waits for the target and how
#: long it computes are measured without other threads in the way.
_FIRST_REQUESTS = 3
#: How many of the latest answers the time of a request's wait is taken from.
_KEPT_ANSWER_TIMES = 200
PLUGIN_NAME = "conformance-concurrency"
#: Options under which pytest's own loop runs: they step through tests one at a time by design.
_SEQUENTIAL_OPTIONS = ("usepdb", "trace", "setuponly", "setupplan", "setupshow", "collectonly")


def serial_reason(item: pytest.Item, serial: Callable[[pytest.Item], bool] = lambda item: False) -> str | None:
    """Why `item` must run alone (None when its call may overlap other tests' calls); `serial` names more tests
    that must (those Hypothesis runs in their call)."""
    if not isinstance(item, pytest.Function):
        return "not a test function"
    if item.get_closest_marker("skip"):
        return None   # skipped at its setup: it never calls, so nothing needs to wait for it
    if item.get_closest_marker("serial"):
        return "marked serial"
    if item.get_closest_marker("mutating"):
        return "changes the target's state"
    if "request" in inspect.signature(item.obj).parameters:
        return "takes request: it may ask for fixtures while it runs"
    if serial(item):
        return "Hypothesis runs it in its call"
    return None


@dataclass
class _Slot:
    """One test between its setup and the logging of its reports."""

    item: pytest.Item
    setup: pytest.TestReport
    call: Future[Any] | None = None
    teardown: Any = None   # the teardown's CallInfo

    @property
    def running(self) -> bool:
        return self.call is not None and not self.call.done()


def _running(slots: Iterable[_Slot]) -> list[Future[Any]]:
    """The calls of these slots still in flight."""
    return [slot.call for slot in slots if slot.call is not None and not slot.call.done()]


class ConcurrentLoop:
    """pytest's run loop with the call phases of `width` tests in flight at once."""

    def __init__(self, config: pytest.Config, width: int,
                 serial: Callable[[pytest.Item], bool] = lambda item: False,
                 pressed: Callable[[], bool] = lambda: False) -> None:
        self.config = config
        self.width = width
        self.serial = serial
        self.pressed = pressed   # the run presses on its memory bound: one call at a time
        self._measured = threading.Lock()
        self.requests = 0     # requests the finished call phases sent
        self.busy = 0.0       # processor seconds the call phases used
        self._lanes: tuple[tuple[int, float], int] | None = None   # the last count, and what it was worked out from
        self._answer_times: collections.deque[float] = collections.deque(maxlen=_KEPT_ANSWER_TIMES)  # seconds
        self._answered_here = threading.local()   # answers each thread received

    def lanes(self) -> int:
        """Call phases to keep in flight now: one, and one more for each stretch of a call's own processor time
        that it spends waiting for the target.

        A call that waits 50 ms for each answer and computes for 3 ms leaves the processor idle while it waits, and
        other calls can use it; against a target on the same machine a call computes most of its time, and more
        threads would only take turns at the interpreter's lock, slower than one. A request's wait is taken as fast
        as the fastest tenth of the latest answers (an answer that also waited for that lock is slower, never
        faster), its processor time from the calls so far, one at a time until they sent a few requests; at most
        `width`.
        """
        with self._measured:
            measured = (self.requests, self.busy)
        if self.pressed():
            return 1
        if self._lanes is not None and self._lanes[0] == measured:
            return self._lanes[1]
        times = sorted(self._answer_times.copy())
        requests, busy = measured
        if requests < _FIRST_REQUESTS or busy <= 0 or not times:
            lanes = 1
        else:
            lanes = max(1, min(self.width, int(1 + requests * times[len(times) // 10] / busy)))
        self._lanes = (measured, lanes)
        return lanes

    def listen(self, session: HttpSession) -> None:
        """Measures the answers `session` receives."""
        if self._answered not in session.listeners:
            # first: a listener after it may raise into the test, and the answer arrived all the same
            session.listeners.insert(0, self._answered)

    def _answered(self, exchange: Exchange) -> None:
        if isinstance(exchange, FailedAttempt):
            return
        self._answered_here.count = self._answered_in_this_thread() + 1
        self._answer_times.append(exchange.elapsed)

    def _answered_in_this_thread(self) -> int:
        return getattr(self._answered_here, "count", 0)

    def applies(self, session: pytest.Session) -> bool:
        config = self.config
        if self.width <= 1:
            return False
        if session.testsfailed and not config.option.continue_on_collection_errors:
            return False   # pytest's own loop reports the collection errors
        if not any(item.get_closest_marker("rule") for item in session.items):
            return False   # not a run of the suite (a session of other tests with the plugin loaded)
        return not any(config.getoption(name, False) for name in _SEQUENTIAL_OPTIONS)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if not self.applies(session):
            return None
        items = session.items
        slots: collections.deque[_Slot] = collections.deque()
        with internals.warnings_caught(self.config), \
                ThreadPoolExecutor(max_workers=self.width, thread_name_prefix="conformance-test") as pool:
            for index, item in enumerate(items):
                nextitem = items[index + 1] if index + 1 < len(items) else None
                if serial_reason(item, self.serial) is not None:
                    self._drain(slots)
                    item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                else:
                    while sum(slot.running for slot in slots) >= self.lanes():
                        wait(_running(slots), return_when=FIRST_COMPLETED)
                        self._log_finished(slots)
                    self._start(item, nextitem, pool, slots)
                    if self.lanes() == 1:   # one at a time: the next setup must not compete with this call
                        wait(_running(slots))
                self._log_finished(slots)
                if session.shouldfail or session.shouldstop:
                    self._drain(slots)
                    raise (session.Failed(session.shouldfail) if session.shouldfail
                           else session.Interrupted(session.shouldstop))
            self._drain(slots)
        return True

    def _start(self, item: pytest.Item, nextitem: pytest.Item | None, pool: ThreadPoolExecutor,
               slots: collections.deque[_Slot]) -> None:
        """Sets `item` up, sends its call to the pool, and tears it down once nothing its teardown ends still
        runs."""
        ihook, reraise = item.ihook, _reraise(item.config)
        setup = pytest.CallInfo.from_call(lambda: ihook.pytest_runtest_setup(item=item), when="setup",
                                          reraise=reraise)
        slot = _Slot(item, ihook.pytest_runtest_makereport(item=item, call=setup))
        slots.append(slot)
        if slot.setup.passed:
            if self.lanes() == 1 and not any(other.running for other in slots):
                # One call at a time: handing it to a thread of the pool would only add the hand-over.
                slot.call = Future()
                slot.call.set_result(self._call(item))
            else:
                slot.call = pool.submit(self._call, item)
        waited = _running([slot]) if slot.running and internals.teardown_code_pending(item) else []
        ended = internals.ending_scopes_run_code(item, nextitem)
        if ended:
            waited += _running(other for other in slots if other.running
                               and any(node in other.item.listchain() for node in ended))
        if waited:
            wait(waited)
        slot.teardown = pytest.CallInfo.from_call(
            lambda: ihook.pytest_runtest_teardown(item=item, nextitem=nextitem), when="teardown", reraise=reraise)

    def _call(self, item: pytest.Item) -> Any:
        """The call phase of `item`, in a thread of the pool (or the main thread, one call at a time)."""
        hook = internals.call_hook(item)
        with self._measuring():
            return pytest.CallInfo.from_call(lambda: hook(item=item), when="call", reraise=_reraise(item.config))

    @contextlib.contextmanager
    def _measuring(self) -> Iterator[None]:
        """Adds the requests this thread sends inside the block, and the processor time it uses, to the loop's
        measure of how long calls wait against how long they compute (`lanes`)."""
        requests, cpu = self._answered_in_this_thread(), time.thread_time()
        try:
            yield
        finally:
            requests_after, cpu_after = self._answered_in_this_thread(), time.thread_time()
            with self._measured:
                self.requests += requests_after - requests
                self.busy += cpu_after - cpu

    def _log_finished(self, slots: collections.deque[_Slot]) -> None:
        """Logs the reports of the tests at the front whose calls are done, in the order of the tests."""
        while slots and not slots[0].running:
            self._log(slots.popleft())

    def _drain(self, slots: collections.deque[_Slot]) -> None:
        while slots:
            slot = slots.popleft()
            if slot.call is not None:
                wait([slot.call])
            self._log(slot)

    def _log(self, slot: _Slot) -> None:
        item, ihook = slot.item, slot.item.ihook
        reports = [slot.setup]
        if slot.call is not None:
            reports.append(ihook.pytest_runtest_makereport(item=item, call=slot.call.result()))
        reports.append(ihook.pytest_runtest_makereport(item=item, call=slot.teardown))
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        for report in reports:
            ihook.pytest_runtest_logreport(report=report)
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        internals.release(item)


def _reraise(config: pytest.Config) -> tuple[type[BaseException], ...]:
    """As pytest's runner: pytest.exit always ends the run, Ctrl-C too unless a debugger takes it."""
    return (pytest.exit.Exception,) + (() if config.getoption("usepdb", False) else (KeyboardInterrupt,))


def install(config: pytest.Config, width: int, *, serial: Callable[[pytest.Item], bool] = lambda item: False,
            pressed: Callable[[], bool] = lambda: False) -> None:
    """Registers the concurrent loop when the run asks for more than one test in flight."""
    if width > 1:
        config.pluginmanager.register(ConcurrentLoop(config, width, serial, pressed), PLUGIN_NAME)
