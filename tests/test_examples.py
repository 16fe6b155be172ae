"""The CI-matrix example keeps working: each matrix entry, given to the action at the repository root, becomes a
`conformance run` command line the real command line accepts; the merging job's commands parse too; the Kubernetes
Indexed Job runs one target of its fleet file per index and merges their folders."""
from __future__ import annotations

import argparse
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


def _workflow() -> dict[Any, Any]:   # YAML keys: `on` reads as True
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


def test_the_workflow_is_yaml_with_a_matrix_job_and_a_merging_job() -> None:
    workflow = _workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert triggers and "workflow_dispatch" in triggers
    assert workflow["jobs"]["fleet"]["needs"] == "conformance"
    # -n is refused by `conformance run`: no example may pass it
    assert not re.search(r"(^|\s)-n\s", WORKFLOW.read_text(encoding="utf-8"))
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
        assert args.workers is None and args.report_dir == f"reports/{entry['target']}" and args.expectations
        assert args.name == entry["target"]
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


def test_the_merging_job_merges_every_folder_and_posts_the_fleet_summary() -> None:
    [script] = [script for name, _, script in _scripts() if name == "fleet" and "conformance merge" in script]
    merges = [_parse(words) for words in _commands(script) if words[:1] == ["merge"]]
    assert [(args.folders, args.report_dir) for args in merges] == [(["targets/*"], "fleet")]
    assert 'cat fleet/fleet.md >> "$GITHUB_STEP_SUMMARY"' in script
    assert 'exit "$code"' in script


def test_the_reports_the_merging_job_reads_are_written_by_every_run() -> None:
    # every run's reports are the artifact conformance-<target>, downloaded into reports/conformance-<target>/
    assert _action_step()["with"]["artifact-name"] == "conformance-${{ matrix.target }}"
    download = next(step for step in _workflow()["jobs"]["fleet"]["steps"]
                    if str(step.get("uses", "")).startswith("actions/download-artifact"))
    assert download["with"] == {"pattern": "conformance-*", "path": "reports"}
    # the nodes of one chain say so, so that the fleet report compares their answers
    chains = {entry["target"]: _parse(["run", *shlex.split(entry["options"])]).chain
              for entry in _workflow()["jobs"]["conformance"]["strategy"]["matrix"]["include"]}
    assert sum(1 for chain in chains.values() if chain) >= 2


KUBERNETES = ROOT / "examples" / "kubernetes" / "indexed-job.yaml"


def test_the_indexed_job_runs_one_target_of_its_fleet_file_per_index_and_the_merge_job_merges_them() -> None:
    import tomllib

    from conformance.fleet import file as fleet_file

    documents = {document["kind"] + "/" + document["metadata"]["name"]: document
                 for document in yaml.safe_load_all(KUBERNETES.read_text(encoding="utf-8"))}
    fleet_text = documents["ConfigMap/conformance-fleet"]["data"]["fleet.toml"]
    fleet = fleet_file.parse(tomllib.loads(fleet_text), Path("fleet.toml"),
                             {"VENDOR_DATA_API_KEY": "placeholder"})
    names = [target.name for target in fleet.targets]
    job = documents["Job/conformance-fleet"]["spec"]
    assert job["completionMode"] == "Indexed" and job["completions"] == job["parallelism"] == len(names)
    [container] = job["template"]["spec"]["containers"]
    # each pod is index N of the Job: Kubernetes sets JOB_COMPLETION_INDEX
    script = container["args"][0].replace('"$JOB_COMPLETION_INDEX"', "3").replace("exec conformance", "conformance")
    [run] = [words for words in _commands(script) if words[:1] == ["run"]]
    args = _parse(run)
    assert (args.fleet, args.fleet_index, args.report_dir) == ("/fleet/fleet.toml", 3, "/reports")
    merge = documents["Job/conformance-fleet-merge"]["spec"]["template"]["spec"]["containers"][0]
    script = merge["args"][0].replace("exec conformance", "conformance")
    [merged] = [_parse(words) for words in _commands(script) if words[:1] == ["merge"]]
    assert merged.folders == names and merged.report_dir == "fleet"
    assert [e["value"] for e in merge["env"] if e["name"] == "TARGETS"] == [" ".join(names)]
