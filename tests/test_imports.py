"""No module of the package imports itself through others: read from the source alone (no module is imported),
an import inside a function counts like one at the top, one under `if TYPE_CHECKING:` does not (it never runs), and
importing a module imports its packages too."""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "conformance"


def _name(path: Path) -> str:
    """The dotted name of a module of the package (a package's `__init__.py` is the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _import_statements(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under `node`, in functions and classes too, but for those under `if TYPE_CHECKING:`
    (their `else:` runs, and is read)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child):
            for statement in child.orelse:
                yield from _import_statements(ast.Module(body=[statement], type_ignores=[]))
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        else:
            yield from _import_statements(child)


def _imported(name: str, path: Path) -> set[str]:
    """The modules of the package that the module `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for statement in _import_statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                target = alias.name
                while target and target not in MODULES:   # `import a.b.c` of a name inside a module
                    target = target.rpartition(".")[0]
                out.add(target)
            continue
        if statement.level:
            base = package.split(".")[:len(package.split(".")) - statement.level + 1]
            source = ".".join(base + ([statement.module] if statement.module else []))
        else:
            source = statement.module or ""
        for alias in statement.names:
            # `from a import b` imports the module a.b when there is one, else a name of a
            out.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source)
    # importing a.b.c runs a/__init__.py and a/b/__init__.py first: the packages of what is imported are imported
    # too, but for the importing module's own, which have begun before it runs
    packages = {target.rsplit(".", depth)[0] for target in out for depth in range(1, target.count(".") + 1)}
    own = {name.rsplit(".", depth)[0] for depth in range(name.count(".") + 1)}
    return {target for target in out | packages if target in MODULES and target not in own}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Circles that pass through every module on one (found as the groups of modules that reach one another,
    Tarjan's strongly connected components), each as the modules in the order they import one another, the first
    again at the end."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        # deep enough for the package's graph: its longest chain of imports is far below Python's recursion limit
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    circles = []
    for group in groups:
        on_one: set[str] = set()
        for start in sorted(group):
            if start not in on_one:
                circles.append(_circle_from(graph, group, start))
                on_one |= set(circles[-1])
    return circles


def _circle_from(graph: dict[str, set[str]], group: set[str], start: str) -> list[str]:
    """A shortest way from `start` back to itself, through modules of its group."""
    ways = {start: [start]}
    frontier = [start]
    while frontier:
        reached = []
        for module in frontier:
            for target in sorted(graph[module] & group):
                if target == start:
                    return ways[module] + [start]
                if target not in ways:
                    ways[target] = ways[module] + [target]
                    reached.append(target)
        frontier = reached
    raise AssertionError(f"{sorted(group)} is no circle")   # a strongly connected group always has one


def test_the_import_graph_is_read_from_every_module_of_the_package() -> None:
    graph = {name: _imported(name, path) for name, path in MODULES.items()}
    assert "conformance.clients.http" in graph["conformance.clients.jsonrpc"]
    # reference/variants.py imports faults/data.py, and so faults/__init__.py; its own package has begun already
    variants = graph["conformance.reference.variants"]
    assert {"conformance.reference.faults.data", "conformance.reference.faults"} <= variants
    assert "conformance.reference" not in variants
    assert sum(len(targets) for targets in graph.values()) > len(graph)


def test_the_circle_finder_finds_a_circle_and_names_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert _circles(graph) == [["a", "b", "c", "a"], ["e", "f", "e"]]
    # every module of a knot is on a circle shown, though no one circle passes through them all
    assert _circles({"a": {"b", "c"}, "b": {"a"}, "c": {"a"}}) == [["a", "b", "a"], ["c", "a", "c"]]


def test_an_import_under_type_checking_is_not_an_import_and_one_in_a_function_is() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from conformance import rules\n"
              "else:\n    from conformance import specs\n"
              "def f():\n    from conformance import errors\n")
    found = {alias.name for statement in _import_statements(ast.parse(source)) for alias in statement.names}
    assert found == {"TYPE_CHECKING", "specs", "errors"}


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    graph = {name: _imported(name, path) for name, path in MODULES.items()}
    circles = [" -> ".join(circle) for circle in _circles(graph)]
    assert not circles, "modules that import themselves through others:\n" + "\n".join(circles)
