"""Runs a composite GitHub Action the way a runner does: its inputs' defaults applied, `${{ … }}` expressions
evaluated, each `shell: bash` step run as `bash --noprofile --norc -eo pipefail` with the variables GitHub sets,
step outputs, `if:` conditions and the job summary. `uses:` steps are not run; they are recorded with their
condition and their `with:` evaluated, for the tests to check."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.fresh_venv import ROOT, clean_env

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.S)
_TOKEN = re.compile(r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>\d+(?:\.\d+)?)|(?P<op>&&|\|\||==|!=|!|\(|\))"
                    r"|(?P<name>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*))")
_STATUS_FUNCTIONS = ("success()", "failure()", "always()", "cancelled()")


class Expression:
    """The subset of GitHub's expression language composite actions use: property paths, 'strings', numbers,
    ==, !=, !, &&, ||, parentheses and the status functions."""

    def __init__(self, text: str, context: dict[str, Any], failed: bool) -> None:
        self.tokens = self._tokenize(text)
        self.context, self.failed, self.at = context, failed, 0

    @staticmethod
    def _tokenize(text: str) -> list[tuple[str, str]]:
        tokens, at = [], 0
        while at < len(text.rstrip()):
            found = _TOKEN.match(text, at)
            if not found:
                raise ValueError(f"cannot read the expression {text!r} at {text[at:]!r}")
            kind = found.lastgroup or ""
            tokens.append((kind, found.group(kind)))
            at = found.end()
        return tokens

    def value(self) -> Any:
        result = self._or()
        if self.at != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.at][1]!r}")
        return result

    def _peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def _take(self) -> tuple[str, str]:
        self.at += 1
        return self.tokens[self.at - 1]

    def _or(self) -> Any:
        left = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            left = left if truthy(left) else right
        return left

    def _and(self) -> Any:
        left = self._equality()
        while self._peek() == "&&":
            self._take()
            right = self._equality()
            left = right if truthy(left) else left
        return left

    def _equality(self) -> Any:
        left = self._unary()
        while self._peek() in ("==", "!="):
            operator = self._take()[1]
            right = self._unary()
            same = _loose(left) == _loose(right)
            left = same if operator == "==" else not same
        return left

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not truthy(self._unary())
        return self._primary()

    def _primary(self) -> Any:
        kind, text = self._take()
        if text == "(":
            inner = self._or()
            assert self._take()[1] == ")", "unbalanced parentheses"
            return inner
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return float(text)
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        if self._peek() == "(":
            self._take()
            assert self._take()[1] == ")", f"{text}() takes no argument here"
            return {"success": not self.failed, "failure": self.failed, "always": True, "cancelled": False}[text]
        node: Any = self.context
        for part in text.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node


def truthy(value: Any) -> bool:
    return value not in (None, False, "", 0, 0.0)


def _loose(value: Any) -> Any:
    """GitHub compares strings case-insensitively and null as an empty string."""
    return "" if value is None else value.lower() if isinstance(value, str) else value


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def substitute(text: str, context: dict[str, Any], failed: bool = False) -> str:
    return EXPRESSION.sub(lambda m: as_text(Expression(m.group(1), context, failed).value()), text)


def condition(text: Any, context: dict[str, Any], failed: bool) -> bool:
    """A step's `if:`; without a status function it holds only while no step has failed, as on GitHub."""
    if text is None:
        return not failed
    source = str(text).strip()
    if source.startswith("${{") and source.endswith("}}"):
        source = source[3:-2].strip()
    if not any(function in source.replace(" ", "") for function in _STATUS_FUNCTIONS):
        source = f"success() && ({source})"
    return truthy(Expression(source, context, failed).value())


def read_commands_file(path: Path) -> dict[str, str]:
    """A GITHUB_OUTPUT or GITHUB_ENV file: `name=value` lines and `name<<DELIMITER` blocks."""
    values, lines = {}, path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    at = 0
    while at < len(lines):
        line = lines[at]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, at + 1)
            values[name] = "\n".join(lines[at + 1:end])
            at = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        at += 1
    return values


@dataclass
class StepRun:
    name: str
    id: str | None
    ran: bool
    code: int = 0
    output: str = ""
    uses: str | None = None
    with_: dict[str, str] = field(default_factory=dict)
    script: str = ""           # the run: text with its expressions filled in: what a command line could show
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class ActionRun:
    steps: list[StepRun]
    outputs: dict[str, str]
    summary: str
    exit_code: int             # of the first step that failed, 0 when none did

    @property
    def log(self) -> str:
        return "\n".join(step.output for step in self.steps)

    def step(self, key: str) -> StepRun:
        return next(step for step in self.steps if key in (step.id, step.name))


class ActionRunner:
    """One job on one runner: a workspace and a RUNNER_TEMP shared by every use of the action in it."""

    def __init__(self, action_dir: Path, workspace: Path, runner_temp: Path, env: dict[str, str]) -> None:
        self.action_dir, self.workspace, self.runner_temp = action_dir, workspace, runner_temp
        self.definition = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
        self.env = env
        self.uses = 0

    def run(self, inputs: dict[str, str], *, step_outputs: dict[str, dict[str, str]] | None = None,
            only: tuple[str, ...] | None = None, timeout: float = 900) -> ActionRun:
        """Runs the action with `inputs`; `only` limits the steps run to those ids, `step_outputs` stands for the
        outputs of the steps left out."""
        declared = self.definition.get("inputs", {})
        unknown = set(inputs) - set(declared)
        assert not unknown, f"the action has no input {sorted(unknown)}"
        self.uses += 1
        context: dict[str, Any] = {
            "inputs": {name: str(inputs.get(name, spec.get("default", ""))) for name, spec in declared.items()},
            "github": {"action_path": str(self.action_dir), "workspace": str(self.workspace), "job": "test",
                       "run_id": "1", "run_attempt": "1"},
            "runner": {"temp": str(self.runner_temp), "os": "Linux"},
            "steps": {step_id: {"outputs": dict(values), "outcome": "success", "conclusion": "success"}
                      for step_id, values in (step_outputs or {}).items()},
            "env": {},
        }
        files = self.runner_temp / f"_runner_files_{self.uses}"
        files.mkdir(parents=True)
        job_env: dict[str, str] = {}
        path_entries: list[str] = []
        summary: list[str] = []
        failed, exit_code = False, 0
        runs: list[StepRun] = []
        for number, step in enumerate(self.definition["runs"]["steps"]):
            name, step_id = str(step.get("name", step.get("uses", f"step {number}"))), step.get("id")
            if only is not None and step_id not in only:
                continue
            if not condition(step.get("if"), context, failed):
                runs.append(StepRun(name, step_id, ran=False, uses=step.get("uses")))
                continue
            if "uses" in step:
                runs.append(StepRun(name, step_id, ran=True, uses=step["uses"],
                                    with_={key: substitute(str(value), context, failed)
                                           for key, value in (step.get("with") or {}).items()}))
                continue
            assert step.get("shell") == "bash", f"{name}: composite run steps must name their shell"
            step_env = {key: substitute(str(value), context, failed) for key, value in (step.get("env") or {}).items()}
            script = substitute(step["run"], context, failed)
            output_file, summary_file = files / f"output_{number}", files / f"summary_{number}"
            env_file, path_file, script_file = files / f"env_{number}", files / f"path_{number}", files / f"{number}.sh"
            for path in (output_file, summary_file, env_file, path_file):
                path.touch()
            script_file.write_text(script, encoding="utf-8")
            env = {**self.env, **job_env, **step_env,
                   "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(self.workspace),
                   "GITHUB_ACTION_PATH": str(self.action_dir), "RUNNER_TEMP": str(self.runner_temp),
                   "RUNNER_OS": "Linux", "GITHUB_OUTPUT": str(output_file), "GITHUB_STEP_SUMMARY": str(summary_file),
                   "GITHUB_ENV": str(env_file), "GITHUB_PATH": str(path_file)}
            env["PATH"] = os.pathsep.join([*reversed(path_entries), env["PATH"]])
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
                                  cwd=self.workspace / step.get("working-directory", "."), env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
            runs.append(StepRun(name, step_id, ran=True, code=done.returncode, output=done.stdout, script=script,
                                env=step_env))
            if step_id:
                context["steps"][step_id] = {"outputs": read_commands_file(output_file),
                                             "outcome": "success" if done.returncode == 0 else "failure"}
            job_env.update(read_commands_file(env_file))
            context["env"].update(job_env)
            path_entries += [line for line in path_file.read_text(encoding="utf-8").splitlines() if line.strip()]
            summary.append(summary_file.read_text(encoding="utf-8"))
            if done.returncode != 0 and not failed:
                failed, exit_code = True, done.returncode
        outputs = {name: substitute(str(spec.get("value", "")), context, failed)
                   for name, spec in self.definition.get("outputs", {}).items()}
        return ActionRun(runs, outputs, "".join(summary), exit_code)


def job(tmp: Path, **env: str) -> ActionRunner:
    """A job running the action at the repository root: its workspace, RUNNER_TEMP, and a python3 on PATH standing
    for actions/setup-python; `env` is added to the environment the steps see."""
    workspace, temp, shims = tmp / "workspace", tmp / "runner-temp", tmp / "setup-python"
    for folder in (workspace, temp, shims):
        folder.mkdir(parents=True, exist_ok=True)
    for name in ("python", "python3"):
        if not (shims / name).exists():
            (shims / name).symlink_to(sys.executable)
    base = clean_env(**env)
    base["PATH"] = f"{shims}{os.pathsep}{base['PATH']}"
    return ActionRunner(ROOT, workspace, temp, base)


#: Stands for `conformance`: records its arguments and the key it was given, writes a summary when asked to.
_STUB = """#!{python}
import json, os, sys
report_dir = sys.argv[sys.argv.index("--report-dir") + 1]
json.dump({{"argv": sys.argv[1:], "key": os.environ.get("CONFORMANCE_API_KEY")}}, open(os.environ["STUB_RECORD"], "w"))
if os.environ.get("STUB_SUMMARY"):
    os.makedirs(report_dir, exist_ok=True)
    open(os.path.join(report_dir, "summary.md"), "w").write(os.environ["STUB_SUMMARY"])
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
"""


def stub_suite(folder: Path) -> Path:
    """A bin folder whose `conformance` records how it was called instead of testing anything."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conformance").write_text(_STUB.format(python=sys.executable), encoding="utf-8")
    (folder / "conformance").chmod(0o755)
    if not (folder / "python").exists():
        (folder / "python").symlink_to(sys.executable)
    return folder


def stubbed(tmp: Path, inputs: dict[str, str], **env: str) -> tuple[ActionRun, dict[str, Any] | None]:
    """The action's steps after the install, with the stand-in for the suite: the run, and what it was called with
    (None when it was not called)."""
    record = tmp / "stub-record.json"
    record.unlink(missing_ok=True)
    runner = job(tmp, STUB_RECORD=str(record), **env)
    run = runner.run(inputs, only=("run", "upload", "exit"),
                     step_outputs={"install": {"bin": str(stub_suite(tmp / "stub-bin"))}})
    return run, json.loads(record.read_text(encoding="utf-8")) if record.is_file() else None
