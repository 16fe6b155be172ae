"""What the self-tests need beside Python: where it is missing, a test skips with one line saying how to provide
it, except in CI, which provides everything and fails the test instead."""
from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing_from_npm(what: str, how: str) -> NoReturn:
    """Skips the test for want of something `make test` fetches from npm, or fails it where
    CONFORMANCE_REQUIRE_NPM=1 (CI)."""
    reason = f"{what} is missing: {how}"
    if os.environ.get("CONFORMANCE_REQUIRE_NPM") == "1":
        pytest.fail(f"{reason}; CONFORMANCE_REQUIRE_NPM=1", pytrace=False)
    pytest.skip(reason)
