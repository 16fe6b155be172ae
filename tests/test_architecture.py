"""docs/architecture.md's worked example is the code it describes: each of its code blocks stands, line for line, in
the file the text before it names, so the example cannot drift from the code."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: A fenced block of the worked example, and the text before it back to the previous block.
BLOCK = re.compile(r"```(?:yaml|python)\n(.*?)```", re.S)
#: A file of the project named in backticks.
FILE = re.compile(r"`((?:specs|conformance)/[\w/.-]+\.(?:py|yaml))`")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _blocks() -> list[tuple[str, str]]:
    """(file named before the block, block) for each code block of the worked example."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    example = text[text.index("## Worked example"):]
    out, named, position = [], None, 0
    for block in BLOCK.finditer(example):
        files = FILE.findall(example[position:block.start()])
        named = files[-1] if files else named
        assert named is not None, f"no file is named before the block {block.group(1)[:60]!r}"
        out.append((named, block.group(1)))
        position = block.end()
    return out


def test_the_worked_example_has_its_rule_check_test_and_fault() -> None:
    named = {file for file, _ in _blocks()}
    assert any(file.startswith("specs/rules/") for file in named)
    assert any(file.startswith("conformance/suite/") for file in named)
    assert any(file.startswith("conformance/reference/faults/") for file in named)


@pytest.mark.parametrize(("file", "block"), _blocks(), ids=lambda value: value.splitlines()[0][:40])
def test_each_block_of_the_worked_example_stands_in_the_file_it_names(file: str, block: str) -> None:
    wanted = _lines(block)
    found = _lines((ROOT / file).read_text(encoding="utf-8"))
    starts = [i for i, line in enumerate(found) if line == wanted[0]]
    assert any(found[i:i + len(wanted)] == wanted for i in starts), \
        f"docs/architecture.md shows code that is not in {file}:\n{block}"


def test_the_engine_readme_lists_every_module_of_the_engine() -> None:
    engine = ROOT / "conformance" / "engine"
    listed = set(re.findall(r"^\| `(\w+\.py)` \|", (engine / "README.md").read_text(encoding="utf-8"), re.M))
    assert listed == {path.name for path in engine.glob("*.py") if path.name != "__init__.py"}
