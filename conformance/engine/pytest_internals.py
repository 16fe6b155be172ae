"""Everything the engine takes from pytest beyond its public hooks, in one place.

Running the call phases of several tests at once needs a few facts pytest does not publish: which teardown code
a test's fixtures registered, how to run a test's call without the plugins that redirect the whole process's
output, pytest's warning filters around a loop of its own, and how pytest lets go of a finished test's fixture
values. Each is read here and nowhere else; `make test` runs the engine's self-tests on the oldest and the newest
pytest the project supports, so an upgrade that moves one of them fails here, not in a run.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any, cast
from collections.abc import Callable, Generator, Iterator

import pytest

#: Plugins whose call-phase wrappers act on the whole process (output capture, log capture): a call running beside
#: others must not go through them.
PROCESS_WIDE = ("capturemanager", "logging-plugin")


def teardown_code_pending(item: pytest.Item) -> bool:
    """Whether tearing `item` down runs code that a fixture or the test registered: a yield fixture's rest, a
    `request.addfinalizer` callback, a finalizer added to the test itself. pytest's own bookkeeping (letting go
    of cached values, its post-finalizer hook) does not count."""
    stack = item.session._setupstate.stack
    finalizers, _ = stack.get(item, ([], None))
    if any(_registered_by_user(finalizer, item) for finalizer in finalizers):
        return True
    return any(_user_finalizers(definition) for definition in _function_fixtures(item))


def ending_scopes_run_code(item: pytest.Item, nextitem: pytest.Item | None) -> list[Any]:
    """The nodes above `item` (module, class, package, session) that tearing it down before `nextitem` ends and
    whose teardown runs registered code: a call still running under one of them must end first."""
    keep = set(nextitem.listchain()) if nextitem is not None else set()
    stack = item.session._setupstate.stack
    ended = []
    for node in item.listchain():
        if node is item or node in keep:
            continue
        finalizers, _ = stack.get(node, ([], None))
        if any(_registered_by_user(finalizer, node) for finalizer in finalizers):
            ended.append(node)
    return ended


def forget_failures(item: pytest.Item, kinds: tuple[type[BaseException], ...]) -> None:
    """Lets the next test make again the fixtures of `item` whose making failed with one of `kinds`: pytest keeps a
    session fixture's error for the rest of the run, and a target that was down for a moment would otherwise fail
    every later test that needs the fixture."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return
    for definitions in info.name2fixturedefs.values():
        for definition in definitions:
            cached = getattr(definition, "cached_result", None)
            if cached is not None and cached[2] is not None and isinstance(cached[2][0] if isinstance(
                    cached[2], tuple) else cached[2], kinds):
                definition.cached_result = None
                # what the failed making registered (pytest's post-finalizer hook): made again, it registers anew
                getattr(definition, "_finalizers", []).clear()


def remade_fixtures(item: pytest.Item) -> tuple[dict[str, Any], list[Generator[Any, None, None]]]:
    """The values `item`'s fixtures would have if its function-scoped fixtures were made again now (each after what
    it depends on; one with `params` made again with this test's parameter; wider scopes keep theirs), and the
    generators of the yield fixtures among them, to close once the values are done with. How a test runs again as
    a fresh observation: pytest's own setup cannot run again while other tests' calls are in flight."""
    info = getattr(item, "_fixtureinfo", None)
    request = getattr(item, "_request", None)
    given: dict[str, Any] = dict(getattr(item, "funcargs", None) or {})
    if info is None or not request:
        return given, []
    made: dict[str, Any] = {}
    closers: list[Generator[Any, None, None]] = []
    callspec = getattr(item, "callspec", None)
    parameters: dict[str, Any] = dict(getattr(callspec, "params", {}) or {})

    def value(name: str) -> Any:
        if name == "request":
            made[name] = made.get(name) or _Remaking(request, value)
            return made[name]
        if name in made:
            return made[name]
        found = info.name2fixturedefs.get(name)
        if not found:   # a fixture the test asks for by name while it runs
            manager = getattr(request, "_fixturemanager", None)
            found = manager.getfixturedefs(name, item) if manager is not None else None
        definition = found[-1] if found else None
        function = definition is not None and str(getattr(definition, "scope", "")) in ("function", "Scope.Function")
        with_params = definition is not None and getattr(definition, "params", None) is not None
        # a value of @pytest.mark.parametrize is the test's own, never made; a fixture with params is made again
        # with the parameter this test runs with
        if definition is None or not function or (name in parameters) != with_params:
            made[name] = given[name] if name in given else request.getfixturevalue(name)
            return made[name]
        result = definition.func(**{arg: _Remaking(request, value, parameters[name]) if arg == "request"
                                    and with_params else value(arg) for arg in definition.argnames})
        if inspect.isgenerator(result):
            closers.append(cast("Generator[Any, None, None]", result))
            result = next(result)
        made[name] = result
        return result
    names: list[str] = list(getattr(item, "fixturenames", ()))
    try:
        for name in names:
            value(name)
    except BaseException:
        close(closers)
        raise
    return {name: made.get(name, given.get(name)) for name in names if name in made or name in given}, closers


class _Remaking:
    """The test's `request` while its fixtures are made again: a fixture that asks for another by name gets the one
    made again too, never the first making's (which may be torn down already); a fixture with `params` reads the
    test's parameter from it."""

    def __init__(self, request: Any, value: Callable[[str], Any], *param: Any) -> None:
        self._request = request
        self._value = value
        if param:
            self.param = param[0]   # what a fixture with `params` reads

    def getfixturevalue(self, name: str) -> Any:
        return self._value(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


def close(closers: list[Generator[Any, None, None]]) -> None:
    """Runs the rest of each yield fixture made again, last made first."""
    for generator in reversed(closers):
        with contextlib.suppress(StopIteration):
            next(generator)


def release(item: pytest.Item) -> None:
    """Lets go of a finished test's fixture values, as pytest's own protocol does once it is torn down."""
    if hasattr(item, "_request"):
        item._request = False  # pytest's own sentinel for "released"
        item.funcargs = None  # type: ignore[attr-defined]  # as pytest.runner.runtestprotocol does


def call_hook(item: pytest.Item) -> Callable[..., Any]:
    """pytest_runtest_call as it applies to `item` (its folder's conftests), without the plugins that act on the
    whole process."""
    manager = item.config.pluginmanager
    skipped = set(getattr(item.ihook, "remove_mods", ()))
    skipped |= {plugin for name in PROCESS_WIDE if (plugin := manager.get_plugin(name)) is not None}
    return _subset(manager, frozenset(skipped))


@functools.lru_cache(maxsize=64)
def _subset(manager: Any, skipped: frozenset[Any]) -> Callable[..., Any]:
    return manager.subset_hook_caller("pytest_runtest_call", remove_plugins=skipped)


@contextlib.contextmanager
def warnings_caught(config: pytest.Config) -> Iterator[None]:
    """pytest's warning filters and recording around a loop that runs tests outside pytest's own protocol."""
    try:
        from _pytest.warnings import catch_warnings_for_item
    except ImportError:  # a pytest that moved it: warnings show as Python shows them
        yield
        return
    with catch_warnings_for_item(config, ihook=config.hook, when="runtest", item=None):
        yield


def _function_fixtures(item: pytest.Item) -> list[Any]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    definitions = []
    for name in getattr(item, "fixturenames", ()):
        found = info.name2fixturedefs.get(name)
        if found and str(getattr(found[-1], "scope", "")) in ("function", "Scope.Function"):
            definitions.append(found[-1])
    return definitions


def _user_finalizers(definition: Any) -> list[Any]:
    """A fixture definition's registered finalizers, less pytest's own bookkeeping."""
    return [finalizer for finalizer in getattr(definition, "_finalizers", ()) if not _bookkeeping(finalizer)]


def _registered_by_user(finalizer: Any, node: Any) -> bool:
    """Whether a finalizer of a node runs code a fixture or test registered: a node's own teardown and pytest's
    letting go of a fixture do not, unless that fixture itself has registered code."""
    if getattr(finalizer, "__self__", None) is node and getattr(finalizer, "__name__", "") == "teardown":
        return False   # a node's own teardown: since pytest 8, xunit-style teardowns are fixtures too
    if isinstance(finalizer, functools.partial) and getattr(finalizer.func, "__name__", "") == "finish":
        return bool(_user_finalizers(getattr(finalizer.func, "__self__", None)))
    return not _bookkeeping(finalizer)


def _bookkeeping(finalizer: Any) -> bool:
    """pytest's own finalizers: a fixture letting go of its dependants, its post-finalizer hook."""
    if isinstance(finalizer, functools.partial) and getattr(finalizer.func, "__name__", "") == "finish":
        return not _user_finalizers(getattr(finalizer.func, "__self__", None))
    code = getattr(finalizer, "__code__", None)
    return code is not None and code.co_filename.endswith(("_pytest/fixtures.py", "_pytest\\fixtures.py"))
