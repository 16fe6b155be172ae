"""Installed, not cloned: the wheel in a fresh venv outside the checkout carries the specs and the catalogue and
runs the suite against the embedded reference, as `conformance run` and as `pytest --pyargs conformance.suite`."""
from __future__ import annotations

import json
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fresh_venv import ROOT, build_wheel, clean_env, run, skip_if_offline

pytestmark = pytest.mark.selftest_slow
REPORTS = ("report.json", "summary.md", "report.html", "junit.xml")


@dataclass
class Installed:
    wheel: Path
    venv: Path
    home: Path       # the working folder of the commands: outside the checkout, nothing in it but what they write
    env: dict[str, str]

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"))
    root = tmp_path_factory.mktemp("installed")
    assert ROOT not in root.parents
    venv, home = root / "venv", root / "home"
    home.mkdir()
    env = clean_env()
    env["PATH"] = f"{venv / 'bin'}:{env['PATH']}"
    done = run([sys.executable, "-m", "venv", str(venv)], root, env)
    assert done.returncode == 0, done.stderr
    done = run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                str(wheel)], root, env)
    if done.returncode != 0:
        skip_if_offline(root, done)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return Installed(wheel, venv, home, env)


def test_the_wheel_carries_the_specs_and_the_catalogue(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    specs = {f"conformance/_specs/{path.relative_to(ROOT / 'specs').as_posix()}"
             for path in (ROOT / "specs").rglob("*") if path.is_file()}
    assert specs and specs <= names, sorted(specs - names)
    assert {name for name in specs if "/rules/" in name}, "the rule catalogue is not in the wheel"
    assert "conformance/suite/__init__.py" in names and "conformance/reporting/report.schema.json" in names
    assert not [name for name in names if name.startswith("tests/")]


def test_the_installed_suite_reads_nothing_from_the_checkout(installed: Installed) -> None:
    probe = ("import json, sys, conformance, conformance.specs, conformance.rules; "
             "print(json.dumps({'package': conformance.__file__, 'specs': str(conformance.specs.specs_dir()), "
             "'rules': len(conformance.rules.load_catalogue()), 'path': sys.path}))")
    done = run([installed.bin("python"), "-c", probe], installed.home, installed.env)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    site = installed.venv.resolve()
    assert site in Path(seen["package"]).resolve().parents
    assert Path(seen["specs"]).resolve() == Path(seen["package"]).resolve().parent / "_specs"
    assert seen["rules"] > 100
    assert not [entry for entry in seen["path"] if entry and str(ROOT) in entry], seen["path"]


def _assert_reports(folder: Path, output: str) -> dict:
    assert [name for name in REPORTS if not (folder / name).is_file()] == [], output[-3000:]
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    # no URL was given: every URL tested is the embedded reference's, started on this machine
    urls = [url for url in report["target"]["urls"].values() if url]
    assert all(url.startswith("http://127.0.0.1:") for url in urls), report["target"]
    assert report["summary"]["verdict"] == "conformant", output[-3000:]
    assert str(ROOT) not in output and str(ROOT) not in (folder / "report.json").read_text(encoding="utf-8")
    return report


def test_conformance_run_tests_the_embedded_reference(installed: Installed) -> None:
    done = run([installed.bin("conformance"), "run", "--profile", "quick", "--report-dir", "reports"],
               installed.home, installed.env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    report = _assert_reports(installed.home / "reports", output)
    assert report["target"]["reference"] is True and report["suite"]["profile"] == "quick"
    assert set(report["target"]["apis"]) == {"admin", "index", "evm", "validators", "data", "metrics"}


def test_pytest_runs_the_installed_suite_through_its_plugin(installed: Installed) -> None:
    """No conftest, no -p: the plugin comes from the wheel's pytest11 entry point."""
    done = run([installed.bin("python"), "-m", "pytest", "--pyargs", "conformance.suite", "--conformance-profile",
                "quick", "--report-dir", "pytest-reports", "--junitxml", "pytest-reports/junit.xml", "-p",
                "no:cacheprovider", "-q"],
               installed.home, installed.env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    _assert_reports(installed.home / "pytest-reports", output)
