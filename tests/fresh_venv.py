"""A virtual environment of its own, outside the checkout: the suite as a user installs it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Variables that would let a child process see the checkout, this venv, or this pytest run.
_LEAKING = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID",
            "PYTEST_CURRENT_TEST", "PIP_REQUIRE_VIRTUALENV")


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what points at the checkout or its venv, nor any CONFORMANCE_ setting."""
    venv_bin = str(Path(sys.prefix) / "bin")
    env = {name: value for name, value in os.environ.items()
           if name not in _LEAKING and not name.startswith("CONFORMANCE_")}
    env["PATH"] = os.pathsep.join(part for part in env.get("PATH", "").split(os.pathsep)
                                  if part and part != venv_bin)
    env.update(extra)
    return env


def run(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def build_wheel(dest: Path) -> Path:
    """The wheel of the checkout, built as `pip wheel` builds it (in an isolated build environment)."""
    done = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "--quiet",
                "--wheel-dir", str(dest), str(ROOT)], dest, clean_env())
    if done.returncode != 0:
        skip_if_offline(dest, done)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [wheel] = dest.glob("conformance-*.whl")
    return wheel


def skip_if_offline(where: Path, failed: subprocess.CompletedProcess[str]) -> None:
    """Skips the test when pip failed because no package index answers (it installs the suite's dependencies);
    fails it where CONFORMANCE_REQUIRE_INDEX=1 (CI). Any other failure is left to the caller to report."""
    probe = run([sys.executable, "-m", "pip", "index", "versions", "PyYAML", "--disable-pip-version-check"],
                where, clean_env(), timeout=120)
    if probe.returncode == 0:
        return
    reason = "the package index is not reachable: installing the suite into a fresh venv needs it (pip install)"
    if os.environ.get("CONFORMANCE_REQUIRE_INDEX") == "1":
        pytest.fail(f"{reason}; CONFORMANCE_REQUIRE_INDEX=1\n{failed.stderr[-2000:]}", pytrace=False)
    pytest.skip(reason)
