"""Generated cases drawn ahead: a helper process on another core draws the cases of the property tests while the
run sends its requests.

Drawing a case costs more processor time than the request it becomes (a negative Data API case, several times
more); on one core the run waits for every draw. A test that draws its cases up front names them with a plan:
`OperationPlan` (schemathesis' examples, coverage and fuzzed cases of one operation) or `StrategyPlan` (the
examples of a hypothesis strategy), marked on the test with `@planned`. Once the tests are collected, a helper
process forked from the run draws every selected plan in the order of the tests and hands the cases back pickled
(a schemathesis case as the request it becomes, a `WireCase`: the run needs none of schemathesis' document
machinery to send it); the test takes them with `drawn(...)`, or draws them itself when the helper did not.

A value the run learns only later (a discovered address, a container ID) is drawn as a placeholder and filled in
when the test takes its cases. Such values are fixed, never drawn, so the cases are the ones the test would have
drawn itself under the same hypothesis seed: the requests and the reproducers are the same with or without the
helper. A value the drawing itself depends on (the last index of a chain, the bound of the indexes drawn) cannot
be a placeholder: a plan `needs` it, the run `publish`es it as soon as it learns it (usually tests before the
plan's own), and the helper draws such a plan once its values arrive, the other plans meanwhile. The helper
sends back the values it drew with; a test whose values differ draws its own cases.

A fork starts at once with what the run has loaded (the documents, the strategies built at collection). The helper
runs only where it helps and is safe: on Linux, forked once the tests are collected while no thread of the run but
the request watchdog exists (an embedded reference target serving from the run's process keeps it off), with more
than one usable core, outside pytest-xdist (its workers use the cores already), when the run asks for it
(`conformance run` does; `--no-draw-ahead` turns it off). A helper that stalls is given up on once, after
`WAIT_SECONDS`: every later test draws its own cases.
"""
from __future__ import annotations

import dataclasses
import multiprocessing
import os
import pickle
import re
import signal
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, TypeVar

import pytest
from hypothesis import given, strategies as st

from conformance import schemathesis_support as generated
from conformance.profiles import PROFILES, Profile

F = TypeVar("F", bound=Callable[..., Any])
PLUGIN_NAME = "conformance-draw-ahead"
#: How long a test waits for the helper to reach its plan before the run gives up on the helper.
WAIT_SECONDS = 120.0
#: A placeholder travels as it is written: characters a URL path never encodes (schemathesis encodes fixed path
#: parameters), a prefix no identifier has.
_PREFIX = "conformance-discovered-"
_PLACEHOLDER = re.compile(re.escape(_PREFIX) + r"(\w+)")


def placeholder(name: str) -> str:
    """What a value the run discovers later is drawn as; `filled` puts the value in its place."""
    return _PREFIX + name


def filled(value: Any, known: Mapping[str, Any]) -> Any:
    """`value` with every placeholder inside it (in strings, containers, the suite's dataclasses, the paths of
    generated cases) replaced by the known value of its name."""
    if isinstance(value, str):
        match = _PLACEHOLDER.fullmatch(value)
        return known[match.group(1)] if match else value
    if isinstance(value, dict):
        return {key: filled(item, known) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(filled(item, known) for item in value)
    if isinstance(value, generated.WireCase):   # in its path, a placeholder stands encoded as a fixed path value
        return dataclasses.replace(
            value, path=_PLACEHOLDER.sub(lambda match: generated.path_segment(known[match.group(1)]), value.path),
            request=filled(value.request, known))
    if dataclasses.is_dataclass(value) and type(value).__module__.startswith("conformance."):
        return dataclasses.replace(value, **{f.name: filled(getattr(value, f.name), known)
                                             for f in dataclasses.fields(value) if f.init})
    return value


def examples_of(strategy: st.SearchStrategy[Any]) -> list[Any]:
    """What hypothesis draws from `strategy` under the run's settings (`max_examples` of them), in order."""
    out: list[Any] = []

    @given(value=strategy)
    def draw(value: Any) -> None:
        out.append(value)

    draw()
    return out


@dataclass(frozen=True)
class OperationPlan:
    """One operation's cases: the examples and coverage phases (up to `limit`), then the fuzzed cases with each
    set of fixed path parameters; a fixed value may be a placeholder."""

    api: str
    label: str                                           # "GET /v1/networks/{network}/blockchains"
    limit: int
    path_parameters: tuple[tuple[tuple[str, str], ...], ...] = ((),)

    @classmethod
    def of(cls, api: str, label: str, *, limit: int,
           path_parameters: Sequence[Mapping[str, str]] = ({},)) -> OperationPlan:
        return cls(api, label, limit, tuple(tuple(sorted(fixed.items())) for fixed in path_parameters))

    @property
    def names(self) -> set[str]:
        """Names of the values the run must supply (those drawn as placeholders)."""
        return {name for pairs in self.path_parameters for name, value in pairs if value == placeholder(name)}

    @property
    def needs(self) -> frozenset[str]:
        return frozenset()

    def draw(self, known: Mapping[str, str] | None = None) -> list[Any]:
        """The cases as they are sent (`WireCase`), in order; placeholders stay, except those `known` fills (a path
        parameter neither known nor fixed is generated)."""
        sets = []
        for pairs in self.path_parameters:
            fixed = {}
            for name, value in pairs:
                if value == placeholder(name) and known is not None:
                    if name not in known:
                        continue
                    value = known[name]
                fixed[name] = value
            sets.append(fixed)
        op = generated.operation(self.api, self.label)
        # Drawn first, sent afterwards: hypothesis never sees a request, so a target that stops answering ends
        # the test at once instead of being shrunk against.
        cases = generated.explicit_cases(op, limit=self.limit) + examples_of(generated.fuzzed_cases(
            op, path_parameters=sets))
        return [generated.wire_case(self.api, case) for case in cases]


@dataclass(frozen=True)
class StrategyPlan:
    """The examples of the strategy `build(values)` returns; drawn ahead, `values` holds a placeholder for each
    of `names` and the published value of each of `needs`."""

    build: Callable[[Mapping[str, Any]], st.SearchStrategy[Any]]
    names: frozenset[str] = frozenset()
    needs: frozenset[str] = frozenset()

    def draw(self, known: Mapping[str, Any] | None = None) -> list[Any]:
        values = {name: placeholder(name) for name in self.names} | dict(known or {})
        return examples_of(self.build(values))


Plan = OperationPlan | StrategyPlan
PlanOf = Callable[[Mapping[str, Any], Profile], "Plan | None"]


def planned(plan_of: PlanOf) -> Callable[[F], F]:
    """Decorator: the test draws the cases of `plan_of(its parameters, the run's profile)` (None: it draws in
    its own way), so that a helper may draw them ahead."""
    def mark(test: F) -> F:
        test.__conformance_plan__ = plan_of  # type: ignore[attr-defined]
        return test
    return mark


def plan_of_item(item: pytest.Item, profile: Profile) -> Plan | None:
    """The plan a test draws under `profile`, if it draws its cases up front."""
    plan_of = _plan_of_function(item)
    if plan_of is None:
        return None
    callspec = getattr(item, "callspec", None)
    plan = plan_of(dict(callspec.params) if callspec is not None else {}, profile)
    if isinstance(plan, StrategyPlan) and profile.shrink:
        return None   # hypothesis runs the test itself (`for_each`)
    return plan


def drawing_modules_last(items: list[pytest.Item]) -> list[pytest.Item]:
    """The tests in their order, except that the modules of tests that draw their cases up front come after the
    others: a helper has the most time to draw their cases ahead. The order is the same with or without one."""
    drawing = {getattr(item, "module", None) for item in items if _plan_of_function(item) is not None}
    drawing.discard(None)
    return [item for item in items if getattr(item, "module", None) not in drawing] + \
        [item for item in items if getattr(item, "module", None) in drawing]


def _plan_of_function(item: pytest.Item) -> PlanOf | None:
    return getattr(getattr(item, "function", None), "__conformance_plan__", None)


def drawn(request: pytest.FixtureRequest, plan: Plan, known: Mapping[str, Any] | None = None) -> list[Any]:
    """The cases of `plan` with its placeholders filled from `known` (which holds what it `needs` too): from the
    helper when it drew them with the same values, else drawn now, in this process (as a run without the helper
    draws them)."""
    known = dict(known or {})
    ahead: DrawAhead | None = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if ahead is not None and (plan.names | plan.needs) <= known.keys():
        needed = {name: known[name] for name in plan.needs}
        for name, value in needed.items():
            ahead.publish(name, value)   # the helper may be waiting for it
        cases = ahead.take(request.node.nodeid, needed)
        if cases is not None:
            return [filled(case, known) for case in cases]
    return plan.draw(known)


def publish(config: pytest.Config, name: str, value: Any) -> None:
    """Tells the helper, if there is one, a value the run learnt that plans may need (`StrategyPlan.needs`)."""
    ahead: DrawAhead | None = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if ahead is not None:
        ahead.publish(name, value)


def for_each(request: pytest.FixtureRequest, plan: StrategyPlan, known: Mapping[str, Any], test: Callable[[Any], None],
             profile: Profile) -> None:
    """Calls `test` with each example of `plan`, placeholders filled from `known`.

    Under a profile that shrinks, hypothesis calls the test itself, so that a failing example is shrunk to a
    minimal one; otherwise the examples are drawn first (ahead, when the helper drew them), then tested in turn.
    """
    if profile.shrink:
        @given(value=plan.build(known))
        def each(value: Any) -> None:
            test(value)

        each()
        return
    for value in drawn(request, plan, known):
        test(value)


# The helper process ----------------------------------------------------------------------------------------

class DrawAhead:
    """In the run's process: starts the helper once the tests are collected, receives its cases and hands them
    to the tests."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._drawn: dict[str, bytes | None] = {}
        self._expected: set[str] = set()
        self._ended = False
        self._lock = threading.Condition()
        self._process: Any = None
        self._reader: threading.Thread | None = None
        self._values: Any = None     # the run's end of the pipe that carries published values to the helper
        self._published: dict[str, Any] = {}
        self.taken = 0   # tests that took the helper's cases

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from conformance.plugin import resolved_target

        profile = PROFILES[resolved_target(self.config).profile]
        plans = [(item.nodeid, plan) for item in session.items if (plan := plan_of_item(item, profile)) is not None]
        if not plans or not _fork_safe():
            return
        context = multiprocessing.get_context("fork")
        receiving, sending = context.Pipe(duplex=False)
        values_in, values_out = context.Pipe(duplex=False)
        self._process = context.Process(target=_draw_all, args=(plans, sending, values_in), name=PLUGIN_NAME,
                                        daemon=True)
        try:
            with warnings.catch_warnings():
                # Python 3.12 warns of any fork beside other threads; `_fork_safe` allowed only the watchdog's
                warnings.simplefilter("ignore", DeprecationWarning)
                self._process.start()
        except OSError:    # no process to spare: every test draws its own cases
            self._process = None
            values_out.close()
            return
        finally:
            sending.close()
            values_in.close()
        self._values = values_out
        self._expected = {key for key, _ in plans}
        self._reader = threading.Thread(target=self._receive, args=(receiving,), name=PLUGIN_NAME, daemon=True)
        self._reader.start()

    def _receive(self, receiving: Any) -> None:
        try:
            while True:
                key, payload = pickle.loads(receiving.recv_bytes())
                with self._lock:
                    self._drawn[key] = payload
                    self._lock.notify_all()
        except (EOFError, OSError, pickle.UnpicklingError):
            pass
        finally:
            receiving.close()
            with self._lock:
                self._ended = True
                self._lock.notify_all()

    def publish(self, name: str, value: Any) -> None:
        """Sends the helper a value plans need, once; a value that changed is not sent again (the tests that
        need it see that the helper drew with another, and draw their own cases)."""
        with self._lock:
            if self._values is None or name in self._published:
                return
            self._published[name] = value
            try:
                self._values.send_bytes(pickle.dumps((name, value)))
            except (OSError, pickle.PicklingError, TypeError, AttributeError):
                pass   # a helper that ended, or a value that does not travel: the plans that need it are drawn here

    def take(self, key: str, needed: Mapping[str, Any] | None = None) -> list[Any] | None:
        """The cases the helper drew for test `key`, once it has, when it drew them with the `needed` values;
        None when it did not draw them."""
        if key not in self._expected:
            return None
        with self._lock:
            if not self._lock.wait_for(lambda: key in self._drawn or self._ended, timeout=WAIT_SECONDS):
                self._ended = True   # a helper that stalls is given up on: the later tests do not wait for it
            payload = self._drawn.pop(key, None)
        if payload is None:
            return None
        try:
            cases, used = pickle.loads(payload)
        except Exception:  # noqa: BLE001 - cases this process cannot read back are drawn here instead
            return None
        if used != dict(needed or {}):
            return None
        with self._lock:
            self.taken += 1
        return cases

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._expected:
            terminalreporter.write_line(f"conformance: {self.taken} of {len(self._expected)} property tests took "
                                        "cases drawn ahead by a helper process")

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._values is not None:
            with self._lock:
                self._values.close()
                self._values = None
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join(timeout=5)
        if self._reader is not None:
            self._reader.join(timeout=5)


def _fork_safe() -> bool:
    """Whether this process may fork: the child keeps only this thread, and a lock another thread holds stays held
    in it. The only other thread allowed is the request watchdog's, which the child never uses."""
    from conformance.clients.deadline import WATCHDOG_THREAD

    return all(thread is threading.current_thread() or thread.name == WATCHDOG_THREAD
               for thread in threading.enumerate())


def _draw_all(plans: list[tuple[str, Plan]], sending: Any, values: Any) -> None:
    """In the helper: draws each plan in turn and sends its cases; a plan that needs values the run has not yet
    published waits, and is drawn as soon as they arrive. A plan that cannot be drawn, or whose cases do not read
    back, is sent as None: the test draws it itself, and reports what went wrong."""
    # Ctrl-C reaches the whole process group: the run stops the helper itself, without a traceback from here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    known: dict[str, Any] = {}
    waiting = list(plans)
    try:
        while waiting:
            _receive_values(values, known, wait=False)
            ready = next((entry for entry in waiting if entry[1].needs <= known.keys()), None)
            if ready is None:   # every plan left needs a value the run has yet to learn
                if not _receive_values(values, known, wait=True):
                    break
                continue
            waiting.remove(ready)
            key, plan = ready
            used = {name: known[name] for name in plan.needs}
            try:
                payload: bytes | None = pickle.dumps((plan.draw(used or None), used))
            except Exception:  # noqa: BLE001 - the test draws again in the run, where an error is reported
                payload = None
            sending.send_bytes(pickle.dumps((key, payload)))
    except OSError:   # the run ended first
        pass
    finally:
        sending.close()


def _receive_values(values: Any, known: dict[str, Any], *, wait: bool) -> bool:
    """Adds the values the run published to `known` (waiting for one when `wait`); False once the run is gone."""
    try:
        while wait or values.poll():
            name, value = pickle.loads(values.recv_bytes())
            known.setdefault(name, value)
            wait = False
    except (EOFError, OSError, pickle.UnpicklingError):
        return False
    return True


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def install(config: pytest.Config, wanted: bool) -> None:
    """Registers the helper where the run asks for it and it can help."""
    if (wanted and sys.platform.startswith("linux") and usable_cores() > 1
            and not hasattr(config, "workerinput") and not getattr(config.option, "numprocesses", None)):
        config.pluginmanager.register(DrawAhead(config), PLUGIN_NAME)
