"""The contract a report was judged against, pinned in report.json, and `conformance diff` naming what changed in it."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import cli
from conformance.config import OPTIONS, resolve
from conformance.reporting import diff
from conformance.reporting.contract import DOCUMENTS, contract_changes, pinned_contract, run_options
from conformance.specs import specs_dir

RULE, OTHER_RULE = "MET-PAG-002", "MET-PAG-003"   # a rule the run below decides, and one whose quote is reworded
SELECTION = ("--api", "metrics", "--rule", "MET-PAG", "--profile", "quick")
#: Runs the suite with specs/ read from the folder named by the first argument: a changed contract, end to end.
RUN_WITH_SPECS = """
import sys
from pathlib import Path
import conformance.specs
conformance.specs.specs_dir = lambda: Path(sys.argv[1])
from conformance import cli
raise SystemExit(cli.main(["run", *sys.argv[2:]]))
"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_report(report_dir: Path, specs: Path | None = None) -> dict[str, Any]:
    command = [sys.executable, "-m", "conformance", "run"] if specs is None else \
        [sys.executable, "-c", RUN_WITH_SPECS, str(specs)]
    done = subprocess.run([*command, *SELECTION, "--report-dir", str(report_dir), "--api-key", "pinned-secret-1"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads((report_dir / "report.json").read_text())
    return report


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    where = tmp_path_factory.mktemp("baseline")
    return where, run_report(where)


def test_every_spec_catalogue_file_and_document_is_pinned_by_its_sha256(
        baseline: tuple[Path, dict[str, Any]]) -> None:
    pinned = baseline[1]["suite"]["contract"]
    specs = specs_dir()
    expected = {f"specs/{path.relative_to(specs).as_posix()}": sha256(path)
                for pattern in ("openrpc/*.json", "openapi/*.yaml", "rules/*.yaml") for path in specs.glob(pattern)}
    assert {name: digest for name, digest in pinned.items() if name.startswith("specs/")} == expected
    assert {"specs/rules/metrics.yaml", "specs/openapi/metrics-api.yaml", "specs/openrpc/evm.json"} <= set(pinned)
    docs = os.environ.get("CONFORMANCE_DOCS_DIR")
    if docs:
        assert {f"docs/{name}": sha256(Path(docs) / name) for name in DOCUMENTS}.items() <= pinned.items()


def test_a_document_that_cannot_be_found_is_said_missing_not_hashed(tmp_path: Path) -> None:
    (tmp_path / DOCUMENTS[0]).write_text("# the node APIs\n")
    pinned = pinned_contract(docs=tmp_path)
    assert pinned[f"docs/{DOCUMENTS[0]}"] == hashlib.sha256(b"# the node APIs\n").hexdigest()
    assert pinned[f"docs/{DOCUMENTS[1]}"] is None and pinned[f"docs/{DOCUMENTS[2]}"] is None


def test_the_options_used_are_pinned_with_the_api_key_redacted(baseline: tuple[Path, dict[str, Any]]) -> None:
    where, report = baseline
    options = report["suite"]["options"]
    assert set(options) == set(OPTIONS)
    assert options["api_key"] == "***" and options["profile"] == "quick" and options["api"] == ["metrics"]
    assert options["rule"] == ["MET-PAG"] and options["report_dir"] == str(where)
    assert report["suite"]["seed"] == 0 and "identifiers" in report
    for path in where.iterdir():
        assert "pinned-secret-1" not in path.read_text(encoding="utf-8"), path


def test_urls_in_the_options_carry_no_user_password_or_query() -> None:
    target = resolve({"target_url": "https://user:pw@node.example:9650", "api_key": "k"}, env={}, cwd=Path("/"))
    options = run_options(target)
    assert options["node_url"] == options["target_url"] == "https://node.example:9650"
    assert options["api_key"] == "***" and "pw" not in json.dumps(options)


def test_the_same_contract_is_said_the_same(baseline: tuple[Path, dict[str, Any]]) -> None:
    report = baseline[1]
    assert contract_changes(report, report) == {}
    assert diff.compare_reports(report, report).to_json()["same_contract"] is True


def test_a_changed_catalogue_changes_its_hash_and_diff_names_the_file_and_the_rules(
        baseline: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old_dir, old = baseline
    specs = tmp_path / "specs"
    shutil.copytree(specs_dir(), specs)
    catalogue_file = specs / "rules" / "metrics.yaml"
    catalogue = yaml.safe_load(catalogue_file.read_text())
    for rule in catalogue["rules"]:
        if rule["id"] == RULE:
            assert rule["level"] == "must"
            rule["level"] = "standard"
        if rule["id"] == OTHER_RULE:
            rule["quote"] += " (reworded)"
    catalogue_file.write_text(yaml.safe_dump(catalogue, sort_keys=False, allow_unicode=True))

    pinned = pinned_contract(specs=specs)
    assert pinned["specs/rules/metrics.yaml"] != old["suite"]["contract"]["specs/rules/metrics.yaml"]
    assert {name for name in pinned if pinned[name] != old["suite"]["contract"].get(name)} == {
        "specs/rules/metrics.yaml"}

    new_dir = tmp_path / "new"
    new = run_report(new_dir, specs)
    assert new["suite"]["contract"] == pinned
    old_path, new_path = str(old_dir / "report.json"), str(new_dir / "report.json")

    # A changed contract alone is no regression: the exit code says what the verdicts say.
    assert cli.main(["diff", old_path, new_path]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert "different contracts" in lines[1]   # said first, right under the verdict
    assert "specs/rules/metrics.yaml" in text
    assert f"{RULE} level must -> standard" in text and f"{OTHER_RULE} quote reworded" in text

    assert cli.main(["diff", old_path, new_path, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["same_contract"] is False and result["regressed"] is False
    assert result["contract"]["files"] == {"changed": ["specs/rules/metrics.yaml"], "added": [], "removed": []}
    changes = {change["rule"]: change for change in result["contract"]["rules"]}
    assert set(changes) == {RULE, OTHER_RULE}
    assert changes[RULE]["level"] == {"old": "must", "new": "standard"}
    assert changes[OTHER_RULE]["fields"] == ["quote_sha256"]

    assert cli.main(["diff", old_path, new_path, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "Different contracts" in markdown and "`specs/rules/metrics.yaml`" in markdown and RULE in markdown


def test_a_report_that_pins_nothing_is_said_unpinned(baseline: tuple[Path, dict[str, Any]]) -> None:
    report = baseline[1]
    older = json.loads(json.dumps(report))
    del older["suite"]["contract"]
    older["suite"]["version"] = "0.0.9"
    changes = contract_changes(older, report)
    assert changes["unpinned"] == "old" and changes["version"] == {"old": "0.0.9", "new": report["suite"]["version"]}
    assert "files" not in changes
    assert "pins no contract" in diff.render_text(diff.compare_reports(older, report), "a", "b")
