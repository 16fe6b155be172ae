"""`conformance run --fleet` and `conformance merge`: each target as its own run would judge it, one fleet report
whether the targets ran together or apart, the odd one out of a chain, and an API key named but never written."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import jsonschema
import pytest

from conformance.cli import main
from conformance.fleet import differences, file as fleet_file
from conformance.fleet.launch import shares
from conformance.reference import ReferenceServer

SEED = 5
KEY_VARIABLE = "FLEET_TEST_DATA_KEY"
KEY = "k3y-that-must-never-be-written-7f1c"
FAULT = "AvgTpsValueAsFixedString"   # breaks MET-TPS-003, and answers the average TPS unlike a clean node
#: A small selection that still reads the index (heads for "behind") and the average TPS (the fault).
#: One seed of generated data for the fleet and the single runs it is compared with: the same cases, the same rules
#: decided on the side (an invalid encoding among the drawn params decides RPC-IDX-015).
SETTINGS = ('profile = "quick"', 'api = "index,metrics"', 'rule = ["MET-TPS", "RPC-IDX-00"]', 'chain = "c1"',
            'seed = 7')
NAMES = ("node-a", "node-b", "odd", "lag")


def write_fleet(path: Path, urls: dict[str, str], extra: tuple[str, ...] = SETTINGS) -> Path:
    lines = list(extra) + [""]
    for name, url in urls.items():
        lines += ["[[targets]]", f'name = "{name}"', f'target_url = "{url}"', f'api_key_env = "{KEY_VARIABLE}"', ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, ReferenceServer]]:
    started = {name: ReferenceServer(seed=SEED, faults=[FAULT] if name == "odd" else []).start() for name in NAMES}
    try:
        for name, server in started.items():
            if name != "lag":            # the others have moved on; lag has not
                for _ in range(4):
                    server.world.advance()
        yield started
    finally:
        for server in started.values():
            server.stop()


@pytest.fixture(scope="module")
def fleet_run(servers: dict[str, ReferenceServer], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("fleet")
    path = write_fleet(folder / "fleet.toml", {name: server.url for name, server in servers.items()})
    env = {**os.environ, KEY_VARIABLE: KEY}
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--fleet", str(path),
                           "--report-dir", str(folder / "reports")], env=env, capture_output=True, text=True,
                          timeout=300)
    return {"folder": folder, "reports": folder / "reports", "code": done.returncode,
            "output": done.stdout + done.stderr,
            "fleet": json.loads((folder / "reports" / "fleet.json").read_text(encoding="utf-8"))}


def statuses(report_dir: Path) -> dict[str, str]:
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return {rule["id"]: rule["status"] for rule in report["rules"]}


def test_each_target_has_its_own_reports_and_the_fleet_its_verdict(fleet_run: dict[str, Any]) -> None:
    fleet, reports = fleet_run["fleet"], fleet_run["reports"]
    assert fleet_run["code"] == 1 == fleet["exit_code"], fleet_run["output"]
    by_name = {t["name"]: t for t in fleet["targets"]}
    assert sorted(by_name) == sorted(NAMES)
    assert {n: (t["verdict"], t["exit_code"]) for n, t in by_name.items()} == {
        "node-a": ("conformant", 0), "node-b": ("conformant", 0), "lag": ("conformant", 0), "odd": ("violations", 1)}
    for name, target in by_name.items():
        folder = reports / target["report_dir"]
        assert folder == reports / name
        assert {p.name for p in folder.iterdir()} >= {"report.json", "junit.xml", "summary.md", "report.html",
                                                      "answers.json"}
    # The fault shows under its own target only.
    failing = {rule["id"]: {n for n, s in rule["statuses"].items() if s == "fail"} for rule in fleet["rules"]}
    assert {rid: names for rid, names in failing.items() if names} == {"MET-TPS-003": {"odd"}}
    for name in ("fleet.json", "fleet.md", "fleet.html"):
        assert (reports / name).is_file()
    schema = json.loads((Path(fleet_file.__file__).parent / "fleet.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(fleet, schema)
    assert "odd/report.html#failure-MET-TPS-003" in (reports / "fleet.html").read_text(encoding="utf-8")


def test_a_target_is_judged_as_its_own_run_judges_it(fleet_run: dict[str, Any], servers: dict[str, ReferenceServer],
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_API_KEY", KEY)
    code = main(["run", "--target-url", servers["odd"].url, "--profile", "quick", "--api", "index,metrics",
                 "--rule", "MET-TPS", "--rule", "RPC-IDX-00", "--seed", "7", "--report-dir", str(tmp_path)])
    assert code == 1
    assert statuses(tmp_path) == statuses(fleet_run["reports"] / "odd")


def test_the_odd_one_out_differs_on_the_members_it_changed_and_the_lagging_one_is_behind(
        fleet_run: dict[str, Any]) -> None:
    found = fleet_run["fleet"]["differences"]
    differing = [d for d in found if d["kind"] == differences.DIFFERS]
    behind = [d for d in found if d["kind"] == differences.BEHIND]
    assert {d["target"] for d in differing} == {"odd"}, differing
    assert {d["operation"] for d in differing} == {"getAvgTps"}
    assert {p for d in differing for p in d["pointers"]} == {"/results/*/value"}
    assert behind and {d["target"] for d in behind} == {"lag"}
    assert all(d["pointers"] == ["/result/index"] for d in behind)
    assert fleet_run["fleet"]["chains"] == {"c1": sorted(NAMES)}


def test_merging_the_folders_gives_the_same_report_and_exit_code(fleet_run: dict[str, Any], tmp_path: Path) -> None:
    folders = [str(fleet_run["reports"] / name) for name in NAMES]
    code = main(["merge", *folders, "--report-dir", str(tmp_path)])
    merged = json.loads((tmp_path / "fleet.json").read_text(encoding="utf-8"))
    ran = json.loads(json.dumps(fleet_run["fleet"]))
    assert code == ran["exit_code"]
    for fleet in (merged, ran):
        for target in fleet["targets"]:
            target.pop("report_dir")
    assert merged == ran


def test_the_api_key_is_written_nowhere(fleet_run: dict[str, Any]) -> None:
    assert KEY not in fleet_run["output"]
    for path in fleet_run["folder"].rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(("text", "says"), [
    ("targets = []", "no [[targets]]"),
    ('[[targets]]\nname = "a"\ntarget_url = "http://127.0.0.1:9"\nbogus = 1', "target 'a': unknown setting bogus"),
    ('[[targets]]\nname = "a"\ntarget_url = "http://127.0.0.1:9"\napi_key = "x"', "api_key_env"),
    ('[[targets]]\nname = "a"\ntarget_url = "http://127.0.0.1:9"\n[[targets]]\nname = "A"\n'
     'target_url = "http://127.0.0.1:9"', "named twice"),
    ('[[targets]]\nname = "../up"\ntarget_url = "http://127.0.0.1:9"', "a name is a folder"),
    ('[[targets]]\nname = "a"', "target 'a' has no URL"),
    ('[[targets]]\nname = "a"\ntarget_url = "http://127.0.0.1:9"\napi_key_env = "FLEET_TEST_UNSET_VARIABLE"',
     "FLEET_TEST_UNSET_VARIABLE"),
    ('[[targets]]\nname = "a"\ntarget_url = "ftp://x"', "target 'a': --target-url"),
    ('[[targets]]\nname = "a"\ntarget_url = "http://127.0.0.1:9"\nprofile = "fast"', "target 'a': --profile"),
    ("[[targets]\n", "is not TOML"),
    ('report_dir = "x"\n[[targets]]\nname = "a"\ntarget_url = "http://127.0.0.1:9"', "report_dir"),
])
def test_a_bad_fleet_file_is_one_line_and_exit_2(text: str, says: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["run", "--fleet", str(path), "--report-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_a_target_url_on_the_command_line_is_refused_with_a_fleet(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write_fleet(tmp_path / "fleet.toml", {"a": "http://127.0.0.1:9"}, ())
    assert main(["run", "--fleet", str(path), "--target-url", "http://127.0.0.1:9"]) == 2
    assert "--target-url: not with --fleet" in capsys.readouterr().err


def test_settings_reach_the_child_through_its_environment_and_the_key_never_its_command_line() -> None:
    from conformance.fleet.launch import Child, child_environment, command

    fleet = fleet_file.parse({"chain": "c", "targets": [
        {"name": "a", "target_url": "http://127.0.0.1:9", "sample": {"x": "1"}, "api_key_env": KEY_VARIABLE,
         "rule": ["A", "B"]}]}, Path("fleet.toml"), {KEY_VARIABLE: KEY})
    [target] = fleet.targets
    env = child_environment(target, {"profile": "quick"}, {"CONFORMANCE_TARGET_URL": "http://elsewhere:1",
                                                           "CONFORMANCE_DOCS_DIR": "/docs", "PATH": "/bin"})
    assert env["CONFORMANCE_TARGET_URL"] == "http://127.0.0.1:9" and env["CONFORMANCE_CHAIN"] == "c"
    assert (env["CONFORMANCE_SAMPLE"], env["CONFORMANCE_RULE"], env["CONFORMANCE_PROFILE"]) == ("x=1", "A,B", "quick")
    assert env["CONFORMANCE_API_KEY"] == KEY and env["CONFORMANCE_DOCS_DIR"] == "/docs"
    argv = command(Child(target, Path("out/a"), 4))
    assert KEY not in " ".join(argv) and argv[argv.index("--concurrency") + 1] == "4"


def test_a_target_resolves_its_file_settings_under_the_fleet_command_line() -> None:
    fleet = fleet_file.parse({"profile": "thorough", "targets": [
        {"name": "a", "target_url": "http://127.0.0.1:9", "draw_ahead": False, "sample": {"x": "1"},
         "rule": "A,B", "concurrency": 3}]}, Path("fleet.toml"), {})
    [target] = fleet.targets
    resolved = target.resolve({"profile": "quick"})
    assert (resolved.profile, resolved.draw_ahead, resolved.samples, resolved.rules, resolved.concurrency) == \
        ("quick", False, (("x", "1"),), ("A", "B"), 3)


def test_the_bound_on_tests_in_flight_is_shared_out() -> None:
    assert shares(10, 64) == (6, 10)
    assert shares(4, 2) == (1, 2)
    assert shares(1, 8) == (8, 1)


def test_two_targets_alone_name_no_odd_one_out() -> None:
    answer = {"key": "GET /x", "api": "metrics", "operation": "getAvgTps", "outcome": "HTTP 200", "ok": True}
    recorded = {name: {"chain": "c", "heads": {}, "answers": [{**answer, "value": {"v": value}}]}
                for name, value in (("a", 1), ("b", 2))}
    assert differences.fleet_differences(recorded, {}) == []
    recorded["c"] = {"chain": "c", "heads": {}, "answers": [{**answer, "value": {"v": 1}}]}
    [found] = differences.fleet_differences(recorded, {})
    assert (found.target, found.kind, found.pointers, found.majority) == ("b", "differs", ["/v"], ["a", "c"])


def test_a_signal_stops_every_run_which_writes_its_reports_as_incomplete(servers: dict[str, ReferenceServer],
                                                                          tmp_path: Path) -> None:
    path = write_fleet(tmp_path / "fleet.toml", {name: servers[name].url for name in ("node-a", "node-b")},
                       ('profile = "standard"', 'api = "index"'))
    process = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--fleet", str(path),
                                "--report-dir", str(tmp_path / "reports")], env={**os.environ, KEY_VARIABLE: KEY},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    logs = [tmp_path / "reports" / "fleet-logs" / f"{name}.log" for name in ("node-a", "node-b")]
    deadline = time.monotonic() + 60
    # Each run has collected its tests (its progress line shows), and is some way into them.
    while time.monotonic() < deadline and not all(log.is_file() and b"/" in log.read_bytes() for log in logs):
        time.sleep(0.1)
    time.sleep(2)
    process.send_signal(signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the fleet did not stop: " + " ".join(log.read_text(encoding="utf-8")[-2000:] for log in logs))
    assert process.returncode == 4, output
    fleet = json.loads((tmp_path / "reports" / "fleet.json").read_text(encoding="utf-8"))
    assert {t["exit_code"] for t in fleet["targets"]} == {4}
    assert {t["verdict"] for t in fleet["targets"]} == {"incomplete"}
    left = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert left == [], left


def test_the_fleet_page_renders_in_chromium_without_console_errors(fleet_run: dict[str, Any], tmp_path: Path) -> None:
    from tests.test_report_html import chromium_path, dump

    chromium_path()   # skips (or fails where Chromium is required) when there is none
    page, console = dump(fleet_run["reports"] / "fleet.html", tmp_path)
    assert console == []
    assert page.one(id="verdict").attrs["data-verdict"] == "violations"
    assert page.one(id="odd-one-out") is not None


def test_separate_runs_of_each_target_merge_into_the_fleet_report(fleet_run: dict[str, Any], tmp_path: Path) -> None:
    """Shards of a fleet (CI matrix jobs, an Indexed Job's pods), each `--fleet-index N`, merged with folders of
    the one-run fleet: the odd one and the lagging one run apart, in jobs of their own."""
    path = fleet_run["folder"] / "fleet.toml"
    env = {**os.environ, KEY_VARIABLE: KEY}
    apart = {n: name for n, name in enumerate(NAMES) if name in ("odd", "lag")}
    shards = {n: subprocess.Popen([sys.executable, "-m", "conformance", "run", "--fleet", str(path), "--fleet-index",
                                   str(n), "--report-dir", str(tmp_path / f"shard-{n}")], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for n in apart}
    codes = {apart[n]: shard.wait(timeout=300) for n, shard in shards.items()}
    assert codes == {"odd": 1, "lag": 0}
    folders = [str(tmp_path / f"shard-{n}" / name) if name in codes else str(fleet_run["reports"] / name)
               for n, name in enumerate(NAMES)]
    code = main(["merge", *folders, "--report-dir", str(tmp_path / "merged")])
    merged = json.loads((tmp_path / "merged" / "fleet.json").read_text(encoding="utf-8"))
    ran = json.loads(json.dumps(fleet_run["fleet"]))
    assert code == ran["exit_code"]
    for fleet in (merged, ran):
        for target in fleet["targets"]:
            target.pop("report_dir")
            target.pop("duration_s")
    assert {k: v for k, v in merged.items() if v != ran[k]} == {}, {k: ran[k] for k in merged if merged[k] != ran[k]}


def test_a_fleet_index_beyond_the_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_fleet(tmp_path / "fleet.toml", {"a": "http://127.0.0.1:9"}, ())
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    assert main(["run", "--fleet", str(path), "--fleet-index", "1"]) == 2
    assert "--fleet-index: 1 is not the index of a target" in capsys.readouterr().err
    assert main(["run", "--fleet-index", "0"]) == 2


def test_merge_refuses_what_is_not_a_fleet_of_report_folders(fleet_run: dict[str, Any], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    a = str(fleet_run["reports"] / "node-a")
    assert main(["merge", str(tmp_path / "nowhere"), "--report-dir", str(tmp_path / "out")]) == 2
    assert main(["merge", a, a, "--report-dir", str(tmp_path / "out")]) == 2
    assert main(["merge", a, "--chain", "c2", "--report-dir", str(tmp_path / "out")]) == 2
    assert main(["merge", a, "--chain", "c2=ghost", "--report-dir", str(tmp_path / "out")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 4 and all(line.startswith("conformance: error:") for line in lines), lines


def test_runs_of_a_fleet_draw_each_test_s_cases_once_between_them(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.engine import store
    from conformance.engine.store import CaseStore

    calls: list[str] = []

    def drawing(test: str) -> Any:
        def draw() -> list[dict[str, Any]]:
            calls.append(test)
            return [{test: n} for n in range(3)]
        return draw

    tests = [f"test_{n}" for n in range(4)]
    first = [CaseStore(tmp_path, 0, "quick").kept_or_drawn(test, drawing(test)) for test in tests]
    kept = CaseStore(tmp_path, 0, "quick")
    assert [kept.kept_or_drawn(test, drawing(test)) for test in tests] == first
    assert calls == tests                                  # drawn once, by the first run
    assert kept.read == 4 and kept.written == 0
    # Another seed draws its own cases.
    CaseStore(tmp_path, 1, "quick").kept_or_drawn("test_0", drawing("test_0"))
    assert calls[-1] == "test_0" and len(calls) == 5
    # A test another run claimed is read once that run kept it; a claim whose run went away is drawn here.
    claimed, waiting = CaseStore(tmp_path, 2, "quick"), CaseStore(tmp_path, 2, "quick")
    assert claimed.claim("test_0") and claimed.claim("test_1") and not waiting.claim("test_0")
    threading.Timer(0.2, claimed.put, ("test_0", [{"test_0": "theirs"}])).start()
    monkeypatch.setattr(store, "PATIENCE", 0.5)
    assert waiting.kept_or_drawn("test_0", drawing("test_0")) == [{"test_0": "theirs"}]
    assert waiting.kept_or_drawn("test_1", drawing("test_1")) == [{"test_1": n} for n in range(3)]
    assert calls[-1] == "test_1" and len(calls) == 6


def test_each_target_of_a_fleet_writes_its_own_archive() -> None:
    from conformance.fleet.launch import har_of
    assert har_of(Path("out/run.har"), "node-a") == Path("out/run-node-a.har")
    assert har_of(Path("trace"), "odd") == Path("trace-odd.har")
