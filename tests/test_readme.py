"""The README is for users: short, and its settings table is the settings the suite has."""
from __future__ import annotations

import re
from pathlib import Path

from conformance.config import SETTINGS

README = Path(__file__).resolve().parents[1] / "README.md"


def _settings_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]


def _flags_in_table() -> set[str]:
    rows = [line for line in _settings_section().splitlines() if line.startswith("| `")]
    return {flag for row in rows for flag in re.findall(r"`(--[a-z-]+)", row.split(" | ")[0])}


def test_the_readme_fits_a_first_read() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_the_settings_table_lists_every_setting_and_nothing_else() -> None:
    expected = {f"--no-{s.flag[2:]}" if s.kind == "negatable" else s.flag for s in SETTINGS}
    assert _flags_in_table() == expected
