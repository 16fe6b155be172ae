"""One door to the engine: what tests, checks, strategies and the reference are made of never reaches into how tests
run, and nothing in the package patches Python's or pytest's globals."""
from __future__ import annotations

import ast
import threading
from pathlib import Path
from typing import cast

import pytest

from conformance.clients.http import Exchange, FailedAttempt, HttpSession
from conformance.engine import loop

PACKAGE = Path(__file__).resolve().parents[1] / "conformance"
#: Code people extend: it reaches the engine only through fixtures and conformance.generated.
BEHIND_THE_DOOR = ("suite", "checks", "strategies", "reference")


def _modules(*folders: str) -> list[Path]:
    roots = [PACKAGE / folder for folder in folders] if folders else [PACKAGE]
    return sorted(path for root in roots for path in root.rglob("*.py"))


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


@pytest.mark.parametrize("path", _modules(*BEHIND_THE_DOOR), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_code_people_extend_imports_nothing_from_the_engine(path: Path) -> None:
    reached = sorted(name for name in _imports(path) if name == "conformance.engine"
                     or name.startswith("conformance.engine."))
    assert reached == []


def test_no_module_assigns_to_python_s_or_pytest_s_globals() -> None:
    """No `ast.parse = ...`, no attribute of a pytest class or of the session replaced for the run."""
    offending = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                text = ast.unparse(target)
                if text.startswith(("ast.", "pytest.", "_pytest.", "FixtureRequest.", "Session.")) \
                        or text.endswith((".gethookproxy", ".getfixturevalue", ".pytest_runtest_protocol")):
                    # an assignment is a statement: it has a line
                    offending.append(f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', '?')}: {text}")
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr" and node.args \
                    and ast.unparse(node.args[0]).startswith(("ast", "pytest", "_pytest")):
                offending.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert offending == []


def test_only_the_engine_s_adapter_imports_pytest_s_private_modules() -> None:
    users = sorted(str(path.relative_to(PACKAGE)) for path in _modules()
                   if any(name == "_pytest" or name.startswith("_pytest.") for name in _imports(path)))
    assert users == ["engine/pytest_internals.py"]


def test_no_suite_test_asks_for_fixtures_while_it_runs() -> None:
    """Fixtures are made in the main thread, while a test is set up; a test body asking for one by name would make
    it while other tests run."""
    asking = []
    for path in _modules("suite"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                if any(arg.arg == "request" for arg in node.args.args + node.args.kwonlyargs):
                    asking.append(f"{path.relative_to(PACKAGE)}: {node.name} takes request")
    assert asking == []


# The HTTP client ---------------------------------------------------------------------------------------------------

def _module_path(name: str) -> Path | None:
    """The file of a module of the package named `name`; None for a name that is not one (a class, say)."""
    if name != "conformance" and not name.startswith("conformance."):
        return None
    base = PACKAGE.parent.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _reached(path: Path) -> set[str]:
    """Every module of the package `path` imports, directly or through the modules it imports."""
    seen: set[str] = set()
    waiting = [path]
    while waiting:
        for name in _imports(waiting.pop()):
            found = _module_path(name)
            if found is not None and name not in seen:
                seen.add(name)
                waiting.append(found)
    return seen


@pytest.mark.parametrize("path", _modules("clients"), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_the_client_reaches_neither_the_engine_nor_the_plugin(path: Path) -> None:
    """The engine follows the client through the listeners of its sessions; the client knows nothing of who listens."""
    reached = sorted(name for name in _reached(path)
                     if name.startswith(("conformance.engine", "conformance.plugin")))
    assert reached == []


def _frozen(value: ast.expr) -> bool:
    """Whether a value written in the source can never change: literals, tuples and frozensets of them, and a
    sentinel (`object()`, which holds nothing)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Call) and ast.unparse(value) == "object()":
        return True
    if isinstance(value, ast.Tuple):
        return all(_frozen(item) for item in value.elts)
    if isinstance(value, ast.UnaryOp):
        return _frozen(value.operand)
    if isinstance(value, ast.BinOp):
        return _frozen(value.left) and _frozen(value.right)
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "frozenset" and not value.keywords:
        return all(_frozen(item) or (isinstance(item, ast.Set) and all(_frozen(e) for e in item.elts))
                   for item in value.args)
    return False


def _state_of(source: str) -> set[str]:
    """The names a module binds at its top level to values that may change (anything but a class, a function, an
    import or a frozen value)."""
    state: set[str] = set()
    statements = list(ast.parse(source).body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.If | ast.Try):
            statements += node.body + node.orelse + getattr(node, "finalbody", [])
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                        and len(target.elts) == len(node.value.elts):
                    pairs = list(zip(target.elts, node.value.elts))
                else:
                    pairs = [(target, node.value)]
                state |= {name.id for part, value in pairs if not _frozen(value)
                          for name in ast.walk(part) if isinstance(name, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and node.value is not None and not _frozen(node.value):
            state |= {name.id for name in ast.walk(node.target) if isinstance(name, ast.Name)}
        elif isinstance(node, ast.AugAssign):
            state |= {name.id for name in ast.walk(node.target) if isinstance(name, ast.Name)}
    return state


def _read_from_clients(path: Path) -> set[tuple[str, str]]:
    """(module, name) for each name of a module of conformance.clients that `path` imports or reads as an attribute
    of the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    read: set[tuple[str, str]] = set()
    modules: dict[str, str] = {}   # local name -> the clients module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("conformance.clients"):
            for alias in node.names:
                if _module_path(f"{node.module}.{alias.name}") is not None:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                else:
                    read.add((node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("conformance.clients.") and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) in modules:
            read.add((modules[ast.unparse(node.value)], node.attr))
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value).startswith("conformance.clients."):
            read.add((ast.unparse(node.value), node.attr))
    return read


def test_what_counts_as_state() -> None:
    assert _state_of("import threading\nA = threading.local()\nB: int = 3\nC, D = [], 'x'\nE = frozenset({1})\n"
                     "if B:\n    F = {}\nG = object()\nB += 1\ndef H(): pass\n") == {"A", "B", "C", "F"}


def test_nothing_reads_state_the_client_keeps_for_the_whole_process() -> None:
    """What a session measures reaches the engine and the reports through the session (its listeners, its
    counts), never through a module's global: a second session in the process would mix into it."""
    states = {}
    for path in _modules("clients"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        states[name] = _state_of(path.read_text(encoding="utf-8"))
    reading = sorted(f"{path.relative_to(PACKAGE)}: {module}.{name}"
                     for path in _modules() if "clients" not in path.relative_to(PACKAGE).parts[:1]
                     for module, name in _read_from_clients(path) if name in states.get(module, set()))
    assert reading == []


def test_the_loop_measures_answers_by_listening_to_the_session() -> None:
    """An answer counts for the call of the thread that received it; a request that got no answer does not."""
    measuring = loop.ConcurrentLoop(cast(pytest.Config, None), 4)
    session = HttpSession()
    measuring.listen(session)
    measuring.listen(session)
    assert len(session.listeners) == 1
    answered = Exchange("GET", "http://target.invalid/", {}, None, status=200, elapsed=0.05)
    failed = FailedAttempt("GET", "http://target.invalid/", {}, None, fault="refused")
    elsewhere = threading.Thread(target=session.listeners[0], args=(answered,))
    with measuring._measuring():
        for exchange in (answered, failed, answered):
            for listener in session.listeners:
                listener(exchange)
        elsewhere.start()
        elsewhere.join()
    assert measuring.requests == 2

