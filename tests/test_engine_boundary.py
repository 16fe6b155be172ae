"""One door to the engine: what tests, checks, strategies and the reference are made of never reaches into how tests
run, and nothing in the package patches Python's or pytest's globals."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

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
