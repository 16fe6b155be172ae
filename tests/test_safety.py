"""Safety: no state-changing call without --allow-mutations, the rate limit honoured, the API key never written
anywhere a run leaves output, and bad input to the command line refused in one line."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import specs
from conformance.clients.http import SECRET_PLACEHOLDER
from conformance.reference import ReferenceServer
from tests.suite_runs import run_suite

CONFORMANCE = str(Path(sys.executable).parent / "conformance")
NODE_APIS = ("--api", "admin,index,evm,validators")
#: Enough requests that an unthrottled run would exceed the rate several times over.
RATE_SELECTION = ("--api", "index", "--rule", "RPC-IDX-001")
RATE = 20


def state_changing_methods() -> set[str]:
    """The admin methods that change node state: every method of specs/openrpc/admin.json but the getters."""
    return {method["name"] for method in specs.openrpc("admin")["methods"]
            if not method["name"].split(".", 1)[1].startswith("get")}


def test_the_state_changing_methods_are_the_documented_setters_and_actions() -> None:
    assert {"admin.alias", "admin.aliasChain", "admin.setLoggerLevel", "admin.startCPUProfiler",
            "admin.stopCPUProfiler", "admin.memoryProfile", "admin.lockProfile", "admin.loadVMs"} \
        == state_changing_methods()


def test_without_allow_mutations_no_state_changing_call_is_made() -> None:
    with ReferenceServer() as server:
        run = run_suite(server, ["--pyargs", "conformance.suite"], *NODE_APIS, allow_mutations=False)
    assert run.exit_code == 0, run.output[-3000:]
    called = {name for name in server.app.seen if name.startswith("admin.")}
    assert called and not called & state_changing_methods(), sorted(called)


def test_with_allow_mutations_the_state_changing_methods_are_called() -> None:
    """The control: the count above sees state-changing calls when they are made (the mutating tests make them)."""
    with ReferenceServer() as server:
        run = run_suite(server, ["--pyargs", "conformance.suite.rpc.admin"], "--api", "admin", allow_mutations=True)
    assert run.exit_code == 0, run.output[-3000:]
    assert state_changing_methods() <= set(server.app.seen), sorted(state_changing_methods() - set(server.app.seen))


def busiest_second(arrivals: list[float]) -> int:
    """The most requests that arrived within any one-second window."""
    times, most, start = sorted(arrivals), 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


def test_the_rate_limit_is_honoured() -> None:
    with ReferenceServer() as server:
        run = run_suite(server, ["--pyargs", "conformance.suite"], *RATE_SELECTION, "--rate-limit", f"{RATE}/s")
    arrivals = list(server.app.arrivals)
    assert run.exit_code == 0, run.output[-3000:]
    assert len(arrivals) > 2 * RATE and busiest_second(arrivals) <= RATE + 1, (len(arrivals), busiest_second(arrivals))


def test_without_a_rate_limit_the_same_run_is_faster_than_the_limit() -> None:
    """The control: the selection above would exceed the rate if the limit were not applied (the bound the limited
    run is held to; how far beyond it depends on how busy the machine is)."""
    with ReferenceServer() as server:
        run = run_suite(server, ["--pyargs", "conformance.suite"], *RATE_SELECTION)
    assert run.exit_code == 0, run.output[-3000:]
    assert busiest_second(list(server.app.arrivals)) > RATE + 1


def run_command(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith("CONFORMANCE_")}
    return subprocess.run([CONFORMANCE, *args], capture_output=True, text=True, cwd=cwd, env={**clean, **(env or {})},
                          timeout=300)


def files_holding(secret: str, root: Path) -> list[str]:
    return [str(path.relative_to(root)) for path in root.rglob("*")
            if path.is_file() and secret.encode() in path.read_bytes()]


def test_the_api_key_never_appears_in_the_output_or_the_reports(tmp_path: Path) -> None:
    key = f"SECRET-{secrets.token_hex(12)}"
    result = run_command(["run", "--api", "data", "--profile", "quick", "--api-key", key,
                          "--report-dir", str(tmp_path / "reports")], tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert key not in result.stdout and key not in result.stderr
    assert (tmp_path / "reports" / "report.json").is_file()
    assert files_holding(key, tmp_path) == []


@pytest.mark.parametrize("given_by", ["flag", "environment"])
def test_a_failing_run_shows_the_key_as_a_placeholder(given_by: str, tmp_path: Path) -> None:
    key = f"SECRET-{secrets.token_hex(12)}"
    with ReferenceServer(faults=["BlockchainsDefaultPageSizeWrong"]) as server:
        samples = [f"--sample={name}={value}" for name, value in dict(server.info()["samples"]).items()]  # type: ignore[call-overload]  # a JSON object
        result = run_command(["run", "--data-url", server.url, "--api", "data", "--profile", "quick",
                              "--rule", "DATA-DEF-003", "--report-dir", str(tmp_path / "reports"), *samples,
                              *(["--api-key", key] if given_by == "flag" else [])],
                             tmp_path, env={"CONFORMANCE_API_KEY": key} if given_by == "environment" else None)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-3000:]
    assert f"x-data-api-key: {SECRET_PLACEHOLDER}" in output, output[-3000:]
    assert key not in output
    assert files_holding(key, tmp_path) == []
    assert any(SECRET_PLACEHOLDER.encode() in path.read_bytes() for path in (tmp_path / "reports").iterdir())
