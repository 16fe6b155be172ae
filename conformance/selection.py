"""Which API each test of the suite belongs to, so that a run collects the tests of the APIs it selects and no other.

A test of an API that was not selected is not part of the run: it is neither collected (a folder of its own) nor
reported as skipped or deselected. Deselection stays for what the user narrowed (--rule, the profile).
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conformance.errors import ConfigError
from conformance.specs import ALL_APIS

if TYPE_CHECKING:
    from conformance.rules import Catalogue

SUITE_DIR = Path(__file__).resolve().parent / "suite"
#: Folders of the suite that hold one API's tests.
API_FOLDERS = {SUITE_DIR / "data": "data", SUITE_DIR / "metrics": "metrics", SUITE_DIR / "rpc" / "admin": "admin",
               SUITE_DIR / "rpc" / "index": "index", SUITE_DIR / "rpc" / "evm": "evm",
               SUITE_DIR / "rpc" / "validators": "validators"}
_FOLDERS = tuple((str(folder), api) for folder, api in API_FOLDERS.items())
#: Fixtures that are one API's client: a test in a module shared by several APIs belongs to those it asks for.
API_FIXTURES = {"admin": "admin", "admin_api": "admin", "index_at": "index", "evm": "evm",
                "validators": "validators", "data_api": "data", "metrics_api": "metrics"}


def folder_api(path: Path | str) -> str | None:
    """The API whose folder holds `path`, if one does."""
    return _folder_api(str(path))


@functools.lru_cache(maxsize=4096)
def _folder_api(path: str) -> str | None:
    for folder, api in _FOLDERS:
        if path == folder or path.startswith(folder + os.sep):
            return api
    return None


def apis_of(item: pytest.Item, rule_apis: set[str]) -> set[str]:
    """The APIs `item` tests: its folder's; else the API it is parametrized with; else those of the client fixtures
    it asks for; else those of its rules."""
    api = folder_api(str(item.path))
    if api is not None:
        return {api}
    callspec = getattr(item, "callspec", None)
    param = callspec.params.get("api") if callspec is not None else None
    if param in ALL_APIS:
        return {param}
    asked = {API_FIXTURES[name] for name in getattr(item, "fixturenames", ()) if name in API_FIXTURES}
    return asked or rule_apis


def check_rules(wanted: tuple[str, ...], catalogue: Catalogue, apis: tuple[str, ...] = ALL_APIS) -> None:
    """Each --rule names a rule of the catalogue of a selected API, or the prefix of some: one that names none is a
    typo, refused before any request (and before the reports of an earlier run are replaced by an empty one)."""
    import difflib

    for given in wanted:
        matching = [rule for rule in catalogue if rule.id.startswith(given)]
        if not matching:
            close = difflib.get_close_matches(given, [rule.id for rule in catalogue], n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ConfigError(f"--rule {given}: no rule of the catalogue has this ID or prefix{hint}")
        if not any(set(rule.apis) & set(apis) for rule in matching):
            theirs = sorted({api for rule in matching for api in rule.apis})
            raise ConfigError(f"--rule {given}: its rules are of {','.join(theirs)}, not of the APIs selected "
                              f"({','.join(apis)})")
