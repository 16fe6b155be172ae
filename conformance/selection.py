"""Which API each test of the suite belongs to, so that a run collects the tests of the APIs it selects and no other.

A test of an API that was not selected is not part of the run: it is neither collected (a folder of its own) nor
reported as skipped or deselected. Deselection stays for what the user narrowed (--rule, the profile).
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from conformance.specs import ALL_APIS

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
