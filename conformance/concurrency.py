"""Tests in flight: the call phases of independent tests overlap on a pool of threads, over one HTTP session.

Against a target 50 ms away a run waits on the network, not on the processor: most tests send one to a few
requests, so the requests of different tests must overlap. pytest's setup and teardown (the fixture stack) are
not thread-safe, its call phase is: the main thread sets each test up in order, as pytest would, hands its call
to a thread of the pool and tears it down; the reports are made and logged in the main thread, in the order
of the tests, so the terminal, JUnit and the reports see what a sequential run shows. Every request goes
through the run's one HttpSession: one rate limiter, one request budget, at most `--concurrency` requests in
flight on as many keep-alive connections. The evidence of a test is recorded in a context variable set by its
own call, in its own thread, so it never mixes with another test's.

A test runs alone, after the tests before it finished and before any after it starts, when it changes the
target (`mutating`), carries the `serial` mark, or has a fixture whose teardown must follow its call (a
function-scoped yield fixture: pytest's own capsys, monkeypatch, tmp_path among them).
"""
from __future__ import annotations

import ast
import collections
import contextlib
import inspect
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterator, Sequence, TypeVar

import pytest

from conformance.clients.http import ANSWER_TIMES, answered_in_this_thread
from conformance.workers import computed_once_per_run

T = TypeVar("T")

#: Call phases run one at a time until they sent this many requests: how long a call waits for the target and how
#: long it computes are measured without other threads in the way.
_FIRST_REQUESTS = 3
PLUGIN_NAME = "conformance-concurrency"
#: Options under which pytest's own loop runs: they step through tests one at a time by design.
_SEQUENTIAL_OPTIONS = ("usepdb", "trace", "setuponly", "setupplan", "setupshow", "collectonly")


class Once:
    """Values computed once per key, however many threads ask at the same time (the others wait for it).

    A request that a cache sends once per run is still sent once when tests run concurrently; a computation
    that raises stores nothing, so the next caller tries again, as it would in a sequential run. With `shared`, a
    name for the cache that includes the target's address, the pytest-xdist workers of a run share its values too
    (conformance.workers): one worker sends, the others read its answer.
    """

    def __init__(self, shared: str | None = None) -> None:
        self.values: dict[Hashable, Any] = {}
        self.shared = shared
        self._locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        try:
            return self.values[key]
        except KeyError:
            pass
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self.values:
                self.values[key] = compute() if self.shared is None else \
                    computed_once_per_run(self.shared, key, compute)
            return self.values[key]


def serial_reason(item: pytest.Item) -> str | None:
    """Why `item` must run alone (None when its call may overlap other tests' calls)."""
    if not isinstance(item, pytest.Function):
        return "not a test function"
    if item.get_closest_marker("skip"):
        return None   # skipped at its setup: it never calls, so nothing needs to wait for it
    if item.get_closest_marker("serial"):
        return "marked serial"
    if item.get_closest_marker("mutating"):
        return "changes the target's state"
    info = getattr(item, "_fixtureinfo", None)
    for name in item.fixturenames:
        definitions = info.name2fixturedefs.get(name) if info is not None else None
        if not definitions:
            continue
        definition = definitions[-1]
        if _tears_down(definition) and (definition.scope == "function" or definition.params):
            return f"fixture {name} tears down after each test"
    return None


def _tears_down(definition: Any) -> bool:
    func = getattr(definition, "func", None)
    return inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func)


def _teardown_scopes(item: pytest.Item) -> set[str]:
    """Scopes above the function of the fixtures of `item` that run code at their teardown."""
    info = getattr(item, "_fixtureinfo", None)
    scopes = set()
    for name in item.fixturenames:
        definitions = info.name2fixturedefs.get(name) if info is not None else None
        if definitions and _tears_down(definitions[-1]) and definitions[-1].scope != "function":
            scopes.add(definitions[-1].scope)
    return scopes


def _scope_of(node: Any) -> str | None:
    for kind, scope in ((pytest.Session, "session"), (pytest.Package, "package"), (pytest.Module, "module"),
                        (pytest.Class, "class")):
        if isinstance(node, kind):
            return scope
    return None


@dataclass
class _Slot:
    """One test between its setup and the logging of its reports."""

    item: pytest.Item
    setup: pytest.TestReport
    call: Future[Any] | None = None
    teardown: Any = None   # the teardown's CallInfo
    scopes: set[str] = field(default_factory=set)

    @property
    def running(self) -> bool:
        return self.call is not None and not self.call.done()


class ConcurrentLoop:
    """pytest's run loop with the call phases of `width` tests in flight at once."""

    def __init__(self, config: pytest.Config, width: int) -> None:
        self.config = config
        self.width = width
        self.fixtures = threading.RLock()   # pytest's fixture machinery: one thread at a time
        self._call_hooks: dict[frozenset[Any], Any] = {}
        self._measured = threading.Lock()
        self.requests = 0     # requests the finished call phases sent
        self.busy = 0.0       # processor seconds the call phases used
        self._requests: ThreadPoolExecutor | None = None   # for the independent requests of one test (`each`)
        self._lanes: tuple[tuple[int, float], int] | None = None   # the last count, and what it was worked out from

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
        if self._lanes is not None and self._lanes[0] == measured:
            return self._lanes[1]   # asked three times a test: worked out again once a call phase added to it
        times = sorted(ANSWER_TIMES.copy())
        requests, busy = measured
        if requests < _FIRST_REQUESTS or busy <= 0 or not times:
            lanes = 1
        else:
            lanes = max(1, min(self.width, int(1 + requests * times[len(times) // 10] / busy)))
        self._lanes = (measured, lanes)
        return lanes

    def applies(self, session: pytest.Session) -> bool:
        config = self.config
        if self.width <= 1 or hasattr(config, "workerinput") or config.pluginmanager.has_plugin("dsession"):
            return False   # pytest-xdist's workers run the loop of their controller
        if not any(item.get_closest_marker("rule") for item in session.items):
            return False   # not a run of the suite (a session of other tests with the plugin loaded)
        if session.testsfailed and not config.option.continue_on_collection_errors:
            return False   # pytest's own loop reports the collection errors
        return not any(config.getoption(name, False) for name in _SEQUENTIAL_OPTIONS)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if not self.applies(session):
            return None
        items = session.items
        slots: collections.deque[_Slot] = collections.deque()
        ANSWER_TIMES.clear()   # this run's answers only (another run of this process may have had another target)
        with _warnings_caught(self.config), self._fixture_requests_locked(), _ast_parse_serialized(), \
                _hook_proxies_remembered(session), \
                ThreadPoolExecutor(max_workers=self.width, thread_name_prefix="conformance-test") as pool, \
                ThreadPoolExecutor(max_workers=self.width, thread_name_prefix="conformance-request") as requests, \
                self._sending(requests):
            for index, item in enumerate(items):
                nextitem = items[index + 1] if index + 1 < len(items) else None
                if serial_reason(item) is not None:
                    self._drain(slots)
                    item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                else:
                    while sum(slot.running for slot in slots) >= self.lanes():
                        wait([slot.call for slot in slots if slot.running], return_when=FIRST_COMPLETED)
                        self._log_finished(slots)
                    self._start(item, nextitem, pool, slots)
                    if self.lanes() == 1:   # one at a time: the next setup must not compete with this call
                        wait([slot.call for slot in slots if slot.running])
                self._log_finished(slots)
                if session.shouldfail or session.shouldstop:
                    self._drain(slots)
                    raise (session.Failed(session.shouldfail) if session.shouldfail
                           else session.Interrupted(session.shouldstop))
            self._drain(slots)
        return True

    def _start(self, item: pytest.Item, nextitem: pytest.Item | None, pool: ThreadPoolExecutor,
               slots: collections.deque[_Slot]) -> None:
        """Sets `item` up, sends its call to the pool, and tears down what the next test does not share."""
        ihook, reraise = item.ihook, _reraise(item.config)
        with self.fixtures:
            setup = pytest.CallInfo.from_call(lambda: ihook.pytest_runtest_setup(item=item), when="setup",
                                              reraise=reraise)
        slot = _Slot(item, ihook.pytest_runtest_makereport(item=item, call=setup), scopes=_teardown_scopes(item))
        slots.append(slot)
        if slot.setup.passed:
            if self.lanes() == 1 and not any(other.running for other in slots):
                # One call at a time: handing it to a thread of the pool would only add the hand-over.
                slot.call = Future()
                slot.call.set_result(self._call(item))
            else:
                slot.call = pool.submit(self._call, item)
        if self._ends_what_runs(item, nextitem, slots):
            wait([slot.call for slot in slots if slot.running])
        with self.fixtures:
            slot.teardown = pytest.CallInfo.from_call(
                lambda: ihook.pytest_runtest_teardown(item=item, nextitem=nextitem), when="teardown",
                reraise=reraise)

    def _call(self, item: pytest.Item) -> Any:
        """The call phase of `item`, in a thread of the pool."""
        hook = self._call_hook(item)
        with self._measuring():
            return pytest.CallInfo.from_call(lambda: hook(item=item), when="call", reraise=_reraise(item.config))

    @contextlib.contextmanager
    def _measuring(self) -> Iterator[None]:
        """Adds the requests this thread sends inside the block, and the processor time it uses, to the loop's
        measure of how long calls wait against how long they compute (`lanes`)."""
        requests, cpu = answered_in_this_thread(), time.thread_time()
        try:
            yield
        finally:
            requests_after, cpu_after = answered_in_this_thread(), time.thread_time()
            with self._measured:
                self.requests += requests_after - requests
                self.busy += cpu_after - cpu

    @contextlib.contextmanager
    def _sending(self, pool: ThreadPoolExecutor) -> Iterator[None]:
        self._requests = pool
        try:
            yield
        finally:
            self._requests = None

    def each(self, send: Callable[[T], Any], values: Sequence[T]) -> list[Any] | None:
        """`send` of each value, with as many in flight as the loop keeps tests; None when that is one."""
        pool = self._requests
        if pool is None or len(values) < 2 or self.lanes() <= 1:
            return None

        def measured(value: T) -> Any:
            with self._measuring():
                return send(value)
        return list(pool.map(measured, values))

    def _call_hook(self, item: pytest.Item) -> Any:
        """pytest_runtest_call without pytest's output and log capture: they redirect the whole process's output
        and the root logger, so one test's capture would take another's output and the terminal's (and the log
        capture keeps its records in what the test's teardown, already done, removed)."""
        removed = frozenset(getattr(item.ihook, "remove_mods", ()))
        if removed not in self._call_hooks:
            manager = self.config.pluginmanager
            capture = {manager.get_plugin(name) for name in ("capturemanager", "logging-plugin")} - {None}
            self._call_hooks[removed] = manager.subset_hook_caller("pytest_runtest_call",
                                                                   remove_plugins=set(removed) | capture)
        return self._call_hooks[removed]

    @staticmethod
    def _ends_what_runs(item: pytest.Item, nextitem: pytest.Item | None, slots: collections.deque[_Slot]) -> bool:
        """Whether tearing `item` down ends a fixture with teardown code that a running test still uses."""
        keep = set(nextitem.listchain()) if nextitem is not None else set()
        ended = [node for node in item.listchain() if node not in keep and node is not item]
        for slot in slots:
            if slot.running and slot.scopes:
                chain = slot.item.listchain()
                if any(_scope_of(node) in slot.scopes and node in chain for node in ended):
                    return True
        return False

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
        # As pytest's own protocol does once a test is torn down: its fixture values may go.
        if hasattr(item, "_request"):
            item._request = False  # type: ignore[attr-defined]
            item.funcargs = None  # type: ignore[attr-defined]

    @contextlib.contextmanager
    def _fixture_requests_locked(self) -> Iterator[None]:
        """A test that asks for a fixture by name while it runs (request.getfixturevalue) waits for the main
        thread's setups and teardowns, and for other such requests: a fixture is created once."""
        from _pytest.fixtures import FixtureRequest

        original = FixtureRequest.getfixturevalue
        lock = self.fixtures

        def getfixturevalue(request: Any, argname: str) -> Any:
            with lock:
                return original(request, argname)

        FixtureRequest.getfixturevalue = getfixturevalue  # type: ignore[method-assign]
        try:
            yield
        finally:
            FixtureRequest.getfixturevalue = original  # type: ignore[method-assign]


@contextlib.contextmanager
def _hook_proxies_remembered(session: pytest.Session) -> Iterator[None]:
    """A test's hooks (`item.ihook`) worked out once per test file while the loop runs. pytest works out again which
    conftest plugins apply to a path, and builds new hook callers without the others, every time a test or a
    fixture calls a hook: a tenth of a second of a standard run. The conftests are all loaded once the tests are
    collected."""
    original = session.gethookproxy
    proxies: dict[Any, Any] = {}

    def gethookproxy(fspath: Any) -> Any:
        proxy = proxies.get(fspath)
        if proxy is None:
            proxy = proxies[fspath] = original(fspath)
        return proxy

    session.gethookproxy = gethookproxy  # type: ignore[method-assign]
    try:
        yield
    finally:
        del session.gethookproxy   # the class's own again


def _reraise(config: pytest.Config) -> tuple[type[BaseException], ...]:
    """As pytest's runner: pytest.exit always ends the run, Ctrl-C too unless a debugger takes it."""
    return (pytest.exit.Exception,) + (() if config.getoption("usepdb", False) else (KeyboardInterrupt,))


@contextlib.contextmanager
def _warnings_caught(config: pytest.Config) -> Iterator[None]:
    """pytest's warning filters and recording around the whole loop (its own wrap each test's protocol, which
    the concurrent tests do not go through)."""
    try:
        from _pytest.warnings import catch_warnings_for_item
    except ImportError:  # pragma: no cover - a pytest that moved it: warnings show as Python shows them
        yield
        return
    with catch_warnings_for_item(config, ihook=config.hook, when="runtest", item=None):
        yield


@contextlib.contextmanager
def _ast_parse_serialized() -> Iterator[None]:
    """One ast.parse at a time: CPython 3.11 keeps the depth of the syntax tree it converts in state every thread
    shares, so two threads parsing at once can fail with "AST constructor recursion depth mismatch" (Hypothesis
    parses the source of a strategy's lambda to describe it, while a test runs)."""
    original = ast.parse
    lock = threading.Lock()

    def parse(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(*args, **kwargs)

    ast.parse = parse  # type: ignore[assignment]
    try:
        yield
    finally:
        ast.parse = original


def sent_each(config: pytest.Config, send: Callable[[T], Any], values: Sequence[T]) -> list[Any]:
    """`send(value)` for each value, in order: several at once when the run keeps tests in flight and the target
    is far enough for that to gain, one after another otherwise.

    For the independent requests of one test (the generated cases of a property test): `send` only sends, and the
    test judges the answers afterwards, in order, in its own thread, where its evidence is recorded. The same
    requests go out either way; only their order on the wire may differ.
    """
    loop = config.pluginmanager.get_plugin(PLUGIN_NAME)
    sent = loop.each(send, values) if isinstance(loop, ConcurrentLoop) else None
    return sent if sent is not None else [send(value) for value in values]


def install(config: pytest.Config, width: int) -> None:
    """Registers the concurrent loop when the run asks for more than one test in flight."""
    if width > 1:
        config.pluginmanager.register(ConcurrentLoop(config, width), PLUGIN_NAME)
