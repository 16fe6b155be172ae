"""The composite action at the repository root (`uses: <owner>/<repo>@<tag>`): its shell steps, run as a runner runs
them with the inputs filled in, install the suite, run it, post summary.md to the job summary, keep the API key off
every command line, upload the reports even when the gate fails, and end with the suite's exit code."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest
import yaml

from conformance import cli
from conformance.reference import ReferenceServer
from conformance.reference.faults import REGISTRY
from tests.actions import ActionRun, ActionRunner, job as new_job, stubbed
from tests.fresh_venv import ROOT, skip_if_offline

ACTION = ROOT / "action.yml"
KEY = "sk-ACTION-9d41c07e"
PROMISED_INPUTS = {"target-url", "node-url", "data-url", "metrics-url", "api", "profile", "evm-chain", "api-key",
                   "samples", "expectations", "gate", "args"}
def _definition() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def _nowhere(secret: str, run: ActionRun, folder: Path) -> None:
    """`secret` is in no command line, no log line, not in the summary and in no report file."""
    assert not [step.name for step in run.steps if secret in step.script], "the key is on a command line"
    assert secret not in run.log and secret not in run.summary
    assert [str(path) for path in folder.rglob("*") if path.is_file() and secret.encode() in path.read_bytes()] == []


def _installed(run: ActionRun) -> None:
    """Skips when the install step could not reach the package index; any other install failure is a failure."""
    install = run.step("install")
    if install.ran and install.code != 0:
        skip_if_offline(ROOT, subprocess.CompletedProcess([], install.code, install.output, install.output))
        pytest.fail(f"the install step failed ({install.code}):\n{install.output[-3000:]}")


# What the action declares ----------------------------------------------------------------------------------

def test_the_action_is_composite_with_the_promised_inputs() -> None:
    action = _definition()
    assert action["runs"]["using"] == "composite"
    assert PROMISED_INPUTS <= set(action["inputs"]), sorted(PROMISED_INPUTS - set(action["inputs"]))
    assert all(spec.get("description") for spec in action["inputs"].values())
    assert {"exit-code", "report-dir"} <= set(action["outputs"])


def test_the_api_key_reaches_the_suite_through_the_environment_only() -> None:
    steps = _definition()["runs"]["steps"]
    where = [(step.get("id") or step.get("name"), place) for step in steps
             for place, text in (("run", step.get("run", "")), ("with", json.dumps(step.get("with", {}))))
             if "inputs.api-key" in text.replace("inputs.api-key-header", "")]
    assert where == []
    carriers = [name for step in steps for name, value in (step.get("env") or {}).items()
                if str(value).replace(" ", "") == "${{inputs.api-key}}"]
    assert carriers == ["CONFORMANCE_API_KEY"]


def test_the_reports_are_uploaded_whatever_the_outcome() -> None:
    steps = _definition()["runs"]["steps"]
    upload = next(step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact@"))
    assert "!cancelled()" in upload["if"].replace(" ", "")
    assert upload["with"]["path"].replace(" ", "") == "${{steps.run.outputs.report-dir}}"
    # the last step ends the action with the suite's exit code, the upload comes before it
    assert steps.index(upload) < len(steps) - 1
    assert "steps.run.outputs.exit-code" in json.dumps(steps[-1])


# Inputs to the command line, with a stand-in for the suite ----------------------------------------------

def test_every_input_reaches_the_command_line_as_given(tmp_path: Path) -> None:
    inputs = {"node-url": "http://node.example:9650", "data-url": "https://data.example", "api": "index,data",
              "profile": "quick", "evm-chain": "C", "api-key": KEY, "api-key-header": "x-api-key",
              "samples": "data_evm_address=0xabc, data_erc20_contract=0xdef\n  data_nft=0x1  \n",
              "expectations": "known.yaml", "gate": "must", "report-dir": "out/reports",
              "args": "--rate-limit 5/s -n 2 --rule 'RPC-IDX-004' -- -k \"not slow\""}
    run, seen = stubbed(tmp_path, inputs)
    assert seen is not None
    assert run.exit_code == 0, run.log
    assert seen["argv"] == [
        "run", "--report-dir", "out/reports", "--node-url", "http://node.example:9650",
        "--data-url", "https://data.example", "--api", "index,data", "--profile", "quick", "--evm-chain", "C",
        "--api-key-header", "x-api-key", "--expectations", "known.yaml", "--gate", "must",
        "--sample", "data_evm_address=0xabc", "--sample", "data_erc20_contract=0xdef", "--sample", "data_nft=0x1",
        "--rate-limit", "5/s", "-n", "2", "--rule", "RPC-IDX-004", "--", "-k", "not slow"]
    args = cli.build_parser().parse_args(seen["argv"])
    assert (args.workers, args.rule, args.pytest_args) == ("2", ["RPC-IDX-004"], ["-k", "not slow"])
    assert seen["key"] == KEY and KEY not in json.dumps(seen["argv"])
    _nowhere(KEY, run, tmp_path / "workspace")
    assert run.outputs == {"exit-code": "0", "report-dir": "out/reports"}


def test_without_a_summary_the_job_summary_says_so_and_the_exit_code_is_kept(tmp_path: Path) -> None:
    run, seen = stubbed(tmp_path, {"args": "--bogus"}, STUB_EXIT="2")
    assert seen and seen["argv"] == ["run", "--report-dir", "conformance-report", "--profile", "standard", "--gate",
                            "standard", "--bogus"]
    assert run.exit_code == 2 and run.outputs["exit-code"] == "2"
    assert "exited 2 without writing a summary" in run.summary
    assert "::error title=conformance::bad usage" in run.log


def test_the_summary_is_appended_and_a_broken_rule_fails_the_action_after_the_upload(tmp_path: Path) -> None:
    run, _ = stubbed(tmp_path, {"artifact-name": "conformance-node-a"},
                      STUB_EXIT="1", STUB_SUMMARY="## conformance: violations\n")
    assert run.summary.startswith("## conformance: violations\n")
    upload = run.step("upload")
    assert upload.ran and upload.with_["path"] == "conformance-report" and upload.with_["name"] == "conformance-node-a"
    assert run.step("exit").ran and run.exit_code == 1


def test_bad_args_quoting_stops_before_the_suite_runs(tmp_path: Path) -> None:
    run, seen = stubbed(tmp_path, {"args": "--rule 'RPC"})
    assert run.exit_code != 0 and "the args input is not shell words" in run.log
    assert seen is None
    assert not run.step("upload").ran and not run.step("exit").ran


# The real thing: the action installs the suite from its own folder and runs it -------------------------------

@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> ActionRunner:
    """One job using the action twice, as a workflow testing two targets in a row would."""
    return new_job(tmp_path_factory.mktemp("job"))


@pytest.fixture(scope="module")
def faulty() -> Iterator[ReferenceServer]:
    with ReferenceServer(faults=[REGISTRY["RangeMaxClamped"]()]) as server:
        yield server


@pytest.mark.selftest_slow
def test_the_action_runs_the_suite_against_the_embedded_reference(job: ActionRunner) -> None:
    (job.workspace / "known.yaml").write_text("[]\n", encoding="utf-8")
    run = job.run({"profile": "quick", "api-key": KEY, "expectations": "known.yaml", "report-dir": "reports/reference"})
    _installed(run)
    assert run.exit_code == 0, run.log[-4000:]
    assert run.step("Set up Python").ran and run.step("Set up Python").uses == "actions/setup-python@v5"
    assert (job.runner_temp / "conformance-suite" / "bin" / "conformance").is_file()
    folder = job.workspace / "reports" / "reference"
    assert run.outputs == {"exit-code": "0", "report-dir": "reports/reference"}
    assert run.summary == (folder / "summary.md").read_text(encoding="utf-8") + "\n"
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["target"]["reference"] and report["summary"]["verdict"] == "conformant"
    assert report["suite"]["profile"] == "quick" and report["suite"]["expectations"] == "known.yaml"
    upload = run.step("upload")
    assert upload.ran and upload.with_ == {"name": "conformance-report", "path": "reports/reference",
                                           "if-no-files-found": "warn", "retention-days": "30"}
    _nowhere(KEY, run, job.workspace)


@pytest.mark.selftest_slow
def test_a_failing_gate_still_uploads_the_reports_and_exits_with_the_suite_code(job: ActionRunner,
                                                                                faulty: ReferenceServer) -> None:
    info = faulty.info()
    samples = ",\n".join(f"{name}={value}" for name, value in dict(info["samples"]).items())  # type: ignore[call-overload]  # a JSON object
    run = job.run({"node-url": faulty.url, "api": "index", "evm-chain": str(info["evm_blockchain_id"]),
                   "profile": "quick", "samples": samples, "gate": "must", "api-key": KEY,
                   "args": "--rule RPC-IDX-004", "report-dir": "reports/faulty", "artifact-name": "faulty"})
    _installed(run)
    folder = job.workspace / "reports" / "faulty"
    assert run.exit_code == 1 and run.outputs["exit-code"] == "1", run.log[-4000:]
    assert run.step("exit").ran and run.step("exit").code == 1
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["suite"]["gate"] == "must" and report["target"]["urls"]["node"] == faulty.url
    assert [rule["id"] for rule in report["rules"] if rule["status"] == "fail"] == ["RPC-IDX-004"]
    assert "RPC-IDX-004" in run.summary and run.summary == (folder / "summary.md").read_text(encoding="utf-8") + "\n"
    assert "::error title=conformance::the target broke at least one rule" in run.log
    upload = run.step("upload")
    assert upload.ran and (upload.with_["name"], upload.with_["path"]) == ("faulty", "reports/faulty")
    _nowhere(KEY, run, job.workspace)
