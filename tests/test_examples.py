"""The CI-matrix example keeps working: each matrix entry, given to the action at the repository root, becomes a
`conformance run` command line the real command line accepts; the comparing job's commands parse too."""
from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest
import yaml

from conformance import cli, config
from conformance.reporting import expectations
from conformance.rules import load_catalogue
from tests.actions import stubbed

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / "examples" / "github-actions" / "conformance-matrix.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
OPERATORS = {"|", "||", "&", "&&", ";", ">", ">>", "<", "2>", "(", ")"}
#: what a shell variable or a secret stands for when the options are checked
PLACEHOLDER_URL = "https://target.example"


def _workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _expand(script: str, matrix: dict[str, Any]) -> str:
    """`${{ matrix.NAME }}` becomes that entry's value, `${{ env.NAME }}` the workflow's; any other expression
    (secrets, inputs) a placeholder."""
    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        if re.fullmatch(r"matrix\.\w+", name):
            return str(matrix[name.removeprefix("matrix.")])
        if re.fullmatch(r"env\.\w+", name):
            return str(_workflow()["env"][name.removeprefix("env.")])
        return "EXPRESSION"
    return EXPRESSION.sub(value, script)


def _commands(script: str) -> Iterator[list[str]]:
    """Each `conformance ...` command of a shell script, as its words up to the next shell operator."""
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
        for start, word in enumerate(words):
            if word == "conformance" and (start == 0 or words[start - 1] in OPERATORS):
                end = next((i for i in range(start + 1, len(words)) if words[i] in OPERATORS), len(words))
                yield words[start + 1:end]


def _scripts() -> Iterator[tuple[str, dict[str, Any], str]]:
    """(job name, matrix entry, expanded script) for every `run:` step, once per matrix entry."""
    for name, job in _workflow()["jobs"].items():
        entries = job.get("strategy", {}).get("matrix", {}).get("include") or [{}]
        for entry in entries:
            for step in job["steps"]:
                if "run" in step:
                    yield name, entry, _expand(step["run"], entry)


def _parse(words: list[str]) -> argparse.Namespace:
    try:
        return cli.build_parser().parse_args(words)
    except SystemExit:
        pytest.fail(f"the real command line refuses: conformance {shlex.join(words)}")


def _action_step() -> dict[str, Any]:
    [step] = [step for step in _workflow()["jobs"]["conformance"]["steps"] if step.get("uses") == "./"]
    return step


def _runs(tmp_path: Path) -> list[tuple[dict[str, Any], dict[str, str], argparse.Namespace]]:
    """(matrix entry, the action's inputs, the `conformance run` command line the action builds from them)."""
    out = []
    for n, entry in enumerate(_workflow()["jobs"]["conformance"]["strategy"]["matrix"]["include"]):
        inputs = {name: _expand(str(value), entry) for name, value in _action_step()["with"].items()}
        run, seen = stubbed(tmp_path / f"entry-{n}", inputs)
        assert run.exit_code == 0 and seen, run.log
        assert seen["argv"][:1] == ["run"]
        out.append((entry, inputs, _parse(seen["argv"])))
    return out


def test_the_workflow_is_yaml_with_a_matrix_job_and_a_comparing_job() -> None:
    workflow = _workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert triggers and "workflow_dispatch" in triggers
    assert workflow["jobs"]["compare"]["needs"] == "conformance"
    targets = [entry["target"] for entry in workflow["jobs"]["conformance"]["strategy"]["matrix"]["include"]]
    assert len(targets) >= 2 and len(set(targets)) == len(targets)


def test_the_conformance_job_runs_the_action_at_the_repository_root() -> None:
    assert (ROOT / "action.yml").is_file()
    steps = _workflow()["jobs"]["conformance"]["steps"]
    assert [step.get("uses") for step in steps] == ["actions/checkout@v4", "./"]
    declared = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert set(_action_step()["with"]) <= set(declared)


def test_every_matrix_entry_runs_the_suite_with_options_the_command_line_accepts(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    targets = [entry["target"] for entry in _workflow()["jobs"]["conformance"]["strategy"]["matrix"]["include"]]
    assert sorted(entry["target"] for entry, _, _ in runs) == sorted(targets)
    for entry, inputs, args in runs:
        # a stray word would not be refused: it would reach pytest as an argument
        assert args.pytest_args == [], args.pytest_args
        assert args.workers == "2" and args.report_dir == f"reports/{entry['target']}" and args.expectations
        assert (args.api, args.profile) == (entry["api"], entry["profile"])
        assert args.evm_chain == (entry["evm_chain"] or None)
        # the key is never a command-line argument: the action hands it to the suite in its environment
        assert args.api_key is None and inputs["api-key"] == "EXPRESSION"
        cli_options = {name: getattr(args, name, None) for name in config.OPTIONS}
        cli_options["target_url"] = PLACEHOLDER_URL
        target = config.resolve(cli_options, env={}, cwd=tmp_path)  # --api, --profile, --rate-limit... are valid
        assert not target.reference


def test_every_target_has_an_expectations_file_that_loads_with_its_example_entries(tmp_path: Path) -> None:
    catalogue = load_catalogue()
    for entry, _, args in _runs(tmp_path):
        path = ROOT / args.expectations
        assert args.expectations == f"{_workflow()['env']['EXPECTATIONS']}/{entry['target']}.yaml"
        assert expectations.load(path, catalogue) == []
        # the commented example must stay a valid entry: its rule in the catalogue, its keys the known ones
        example = tmp_path / path.name
        example.write_text("\n".join(line[2:] for line in path.read_text(encoding="utf-8").splitlines()
                                     if line.startswith(("# - ", "#   "))), encoding="utf-8")
        assert len(expectations.load(example, catalogue)) == 1


def test_the_comparing_job_diffs_every_target_against_the_baseline_as_markdown() -> None:
    diffs = [_parse(words) for name, _, script in _scripts() if name == "compare"
             for words in _commands(script) if words[:1] == ["diff"]]
    assert diffs, "the compare job runs no `conformance diff`"
    for args in diffs:
        assert args.format == "markdown" and args.old == "$base/report.json"
    [script] = [script for name, _, script in _scripts() if name == "compare" and "conformance diff" in script]
    assert 'base="reports/conformance-$BASELINE"' in script
    workflow = _workflow()
    targets = [entry["target"] for entry in workflow["jobs"]["conformance"]["strategy"]["matrix"]["include"]]
    assert re.search(r"\|\|\s*'([\w-]+)'", workflow["env"]["BASELINE"]).group(1) in targets  # type: ignore[union-attr]


def test_the_reports_the_comparing_job_reads_are_written_by_every_run() -> None:
    schema = json.loads((Path(cli.__file__).parent / "reporting" / "report.schema.json").read_text(encoding="utf-8"))
    # the comparing job skips targets that share no API with the baseline by reading target.apis
    assert "apis" in schema["properties"]["target"]["required"]
    # every run's reports are the artifact conformance-<target>, downloaded into reports/conformance-<target>/
    assert _action_step()["with"]["artifact-name"] == "conformance-${{ matrix.target }}"
    download = next(step for step in _workflow()["jobs"]["compare"]["steps"]
                    if str(step.get("uses", "")).startswith("actions/download-artifact"))
    assert download["with"] == {"pattern": "conformance-*", "path": "reports"}
