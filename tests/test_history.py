"""--history, --fail-on new and `conformance history`: the store on hand-made reports, then real runs against the
reference target where a fault comes in on the second run and goes on the fourth."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import cli
from conformance.config import Target
from conformance.errors import ConfigError
from conformance.history import store
from conformance.history.naming import history_name
from conformance.history.trend import trend_svg
from conformance.reference import ReferenceServer
from conformance.reference.faults import REGISTRY
from conformance.reporting import html as report_html
from conformance.reporting import markdown
from conformance.reporting.terminal import end_table
from tests.suite_runs import run_suite
from tests.test_report_html import parse

SCHEMA = json.loads((Path(cli.__file__).parent / "reporting" / "report.schema.json").read_text())
FAULT, FAULT_RULE = "MistypedUrlIs400", "MET-ERR-006"
OTHER_RULE = "MET-DEF-001"
Runs = tuple[Path, list[tuple[int, dict[str, Any]]]]
SELECTION = ["--pyargs", "conformance.suite", "--api", "metrics", "--rule", FAULT_RULE, "--rule", OTHER_RULE]


# The store, on hand-made reports -------------------------------------------------------------------------

def report(statuses: dict[str, str], *, finished: str = "2026-01-02T03:04:15+00:00",
           verdict: str | None = None) -> dict[str, Any]:
    failing = any(status == "fail" for status in statuses.values())
    passed = sum(status == "pass" for status in statuses.values())
    tested = passed + sum(status == "fail" for status in statuses.values())
    return {"suite": {"started": finished, "finished": finished, "version": "9.8.7", "profile": "quick"},
            "target": {"apis": ["metrics"], "versions": {"server": ["x/1"], "client": []}},
            "summary": {"verdict": verdict or ("violations" if failing else "conformant"), "exit_code": int(failing),
                        "tests": len(statuses)},
            "apis": {"metrics": {"score": {"passed": passed, "tested": tested}}},
            "rules": [{"id": rule, "level": "must", "title": f"title of {rule}", "status": status}
                      for rule, status in statuses.items()]}


def keep(path: Path, statuses: dict[str, str], target: str = "t", **extra: Any) -> dict[str, Any]:
    made = report(statuses, **extra)
    made["history"] = store.changes(path, target, made)
    store.record(path, target, made)
    return made["history"]


def rules_of(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["rule"] for entry in entries]


def test_a_failure_is_new_when_it_comes_fixed_when_it_goes_and_counted_while_it_stays(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    first = keep(path, {"A": "fail", "B": "pass"})
    assert first["previous"] is None and rules_of(first["new"]) == ["A"], "without a previous run every failure is new"
    second = keep(path, {"A": "fail", "B": "fail"})
    assert rules_of(second["new"]) == ["B"] and second["new"][0]["was"] == "pass"
    assert second["still_failing"] == [{"rule": "A", "level": "must", "title": "title of A", "runs": 2}]
    third = keep(path, {"A": "fail", "B": "pass"})
    assert rules_of(third["fixed"]) == ["B"] and third["new"] == []
    assert [entry["runs"] for entry in third["still_failing"]] == [3]
    assert [point["score"] for point in third["trend"]] == [0.5, 0.0, 0.5]
    assert third["previous"]["verdict"] == "violations"


def test_a_run_that_did_not_decide_a_rule_neither_hides_nor_renews_its_failure(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    keep(path, {"A": "fail"})
    keep(path, {"A": "not selected"})
    keep(path, {"A": "error"})
    again = keep(path, {"A": "fail"})
    assert again["new"] == [] and [entry["runs"] for entry in again["still_failing"]] == [2]
    assert store.old_failures(path, "t") == frozenset({"A"})


def test_targets_are_kept_apart(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    keep(path, {"A": "fail"}, target="one")
    assert rules_of(keep(path, {"A": "fail"}, target="two")["new"]) == ["A"]
    assert {run.target for run in store.runs(path)} == {"one", "two"}


def test_the_trend_keeps_the_last_runs(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    for n in range(5):
        keep(path, {"A": "pass"}, finished=f"2026-01-0{n + 1}T00:00:00+00:00")
    made = report({"A": "fail"})
    trend = store.changes(path, "t", made, trend_runs=3)["trend"]
    assert [point["time"][:10] for point in trend] == ["2026-01-04", "2026-01-05", "2026-01-02"]
    assert trend[-1] == {"time": made["suite"]["finished"], "score": 0.0, "verdict": "violations"}


def test_writers_of_one_file_at_once_lose_no_run(tmp_path: Path) -> None:
    path = tmp_path / "h.db"   # created by whichever writer comes first
    errors: list[BaseException] = []

    def write(target: str) -> None:
        try:
            for _ in range(10):
                store.record(path, target, report({"A": "pass", "B": "fail"}))
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.runs(path)) == 40
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM rule_status").fetchone()[0] == 80


def test_a_file_that_is_not_a_history_file_is_a_usage_error(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just text long enough to hold a header of one " * 4)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    for path, says in ((text, "not an SQLite database"), (other, "of something else"), (tmp_path, "is a folder")):
        with pytest.raises(ConfigError, match=says) as caught:
            store.check(path)
        assert "\n" not in str(caught.value)
    with pytest.raises(ConfigError, match="no such history file"):
        store.runs(tmp_path / "missing.db")


def test_a_target_is_kept_under_its_name_or_its_redacted_urls() -> None:
    assert history_name(Target(name="node-a", node_url="http://a:9650")) == "node-a"
    assert history_name(Target(node_url="http://x:1"), reference=True) == "reference"
    keyed = Target(node_url="https://u:pw@node.example/ext?k=1", data_url="https://api.example/s3cret/v1",
                   metrics_url="https://api.example/s3cret/v1", api_key="s3cret")
    assert history_name(keyed) == "https://node.example/ext https://api.example/***/v1"


def test_the_trend_picture_is_inline_svg_without_script() -> None:
    svg = trend_svg([{"time": "t1", "score": 1.0, "verdict": "conformant"},
                     {"time": "t2", "score": None, "verdict": "untestable"},
                     {"time": "<script>", "score": 0.5, "verdict": "violations"}])
    node = parse(svg).one("svg")
    assert len(node.select("circle")) == 2 and not node.select("script") and "<script>" not in svg
    assert "style=" not in svg, "the report's security policy admits no inline style"
    assert "100.0%" in node.attrs["aria-label"] and "50.0%" in node.attrs["aria-label"]


# Real runs against the reference target ------------------------------------------------------------------

def run_kept(report_dir: Path, history: Path, faults: tuple[str, ...] = (), *extra: str) -> tuple[int, dict[str, Any]]:
    with ReferenceServer(faults=[REGISTRY[name]() for name in faults]) as server:
        run = run_suite(server, SELECTION, "--report-dir", str(report_dir), "--reference-target",
                        "--history", str(history), *extra)
    return run.exit_code, json.loads((report_dir / "report.json").read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Four runs kept in one file: clean; the fault (with --fail-on new); the fault again (--fail-on new);
    clean again."""
    where = tmp_path_factory.mktemp("history")
    path = where / "history.db"
    done = [run_kept(where / "1", path),
            run_kept(where / "2", path, (FAULT,), "--fail-on", "new"),
            run_kept(where / "3", path, (FAULT,), "--fail-on", "new"),
            run_kept(where / "4", path)]
    return path, done


def test_a_fault_of_the_second_run_is_new_and_fails_the_gate(runs: Runs) -> None:
    _, done = runs
    first, (code, second) = done[0][1], done[1]
    assert first["history"]["previous"] is None and first["history"]["new"] == []
    assert second["history"]["target"] == "reference"
    previous = second["history"]["previous"]
    assert previous["verdict"] == "conformant" and previous["score"] == 1.0
    assert previous["versions"] == first["target"]["versions"], "the versions the target reported are kept"
    assert rules_of(second["history"]["new"]) == [FAULT_RULE] and second["history"]["new"][0]["was"] == "pass"
    assert code == 1 and second["summary"]["verdict"] == "violations"


def test_fail_on_new_passes_a_run_whose_failures_are_all_old(runs: Runs) -> None:
    code, third = runs[1][2]
    assert next(r for r in third["rules"] if r["id"] == FAULT_RULE)["status"] == "fail", "still reported"
    assert third["history"]["new"] == []
    assert [(e["rule"], e["runs"]) for e in third["history"]["still_failing"]] == [(FAULT_RULE, 2)]
    assert code == 0 and third["summary"]["exit_code"] == 0


def test_the_fault_gone_in_the_fourth_run_is_fixed(runs: Runs) -> None:
    code, fourth = runs[1][3]
    assert code == 0 and rules_of(fourth["history"]["fixed"]) == [FAULT_RULE]
    assert fourth["history"]["new"] == [] and fourth["history"]["still_failing"] == []
    # The third run's verdict is the gate's: under --fail-on new its old failure let it pass.
    assert [point["verdict"] for point in fourth["history"]["trend"]] == \
        ["conformant", "violations", "conformant", "conformant"]


def test_reports_with_history_follow_the_schema(runs: Runs) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    for _, made in runs[1]:
        assert [error.message for error in validator.iter_errors(made)] == []


def test_rules_of_apis_not_selected_are_not_selected_not_untested(runs: Runs) -> None:
    made = runs[1][0][1]
    statuses = {rule["id"]: rule["status"] for rule in made["rules"]}
    assert all(status == "not selected" for rule, status in statuses.items() if not rule.startswith("MET-"))
    assert statuses["MET-PAG-001"] == "untested", "a rule of a selected API no test ran stays untested"
    assert "not selected" not in made["apis"]["metrics"]["statuses"]
    with sqlite3.connect(runs[0]) as db:
        kept = {rule for (rule,) in db.execute("SELECT DISTINCT rule FROM rule_status")}
    assert kept and all(rule.startswith("MET-") for rule in kept), "not-selected rules are not kept"


def test_every_report_shows_what_changed(runs: Runs) -> None:
    second = runs[1][1][1]
    page = parse(report_html.render(second))
    section = page.one(id="history")
    assert FAULT_RULE in section.one("ul", data_kind="new").text()
    assert section.select("svg") and len(section.one("svg").select("circle")) == 2
    assert "New failures:** " + FAULT_RULE in markdown.render(second)
    assert any(line.startswith("history (reference): 1 new, 0 fixed") for line in end_table(second))


def test_a_failing_page_shows_its_failures_first_with_the_sentence_broken(runs: Runs) -> None:
    second = runs[1][1][1]
    page_text = report_html.render(second)
    assert page_text.index('id="failures"') < page_text.index('id="scores"') < page_text.index('id="matrix"')
    article = parse(page_text).one("article", id=FAULT_RULE)
    rule = next(r for r in second["rules"] if r["id"] == FAULT_RULE)
    assert rule["quote"] in article.one("blockquote").text()
    assert article.one("pre", class_="repro").text().startswith("curl ")
    clean = report_html.render(runs[1][0][1])
    assert clean.index('id="scores"') < clean.index('id="failures"'), "a clean page starts with its scores"
    assert parse(clean).one("th", id=OTHER_RULE), "report.html#RULE-ID finds a rule's row"


def test_the_history_command_prints_the_trend(runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    path = runs[0]
    assert cli.main(["history", str(path), "--target", "reference", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "reference: 4 runs (the last 3 shown)" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("  2")]
    assert [(row[1], row[4], row[5]) for row in rows] == [("violations", "1", "0"), ("conformant", "0", "0"),
                                                         ("conformant", "0", "1")]
    assert f"fixed in the last run: {FAULT_RULE}" in out
    assert cli.main(["history", str(path), "--target", "nobody"]) == 2


def test_a_bad_history_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_text("this is not a database at all, only words in a file that is long enough " * 3)
    for command in (["history", str(bad)], ["run", "--api", "metrics", "--profile", "quick", "--history", str(bad),
                                            "--report-dir", str(tmp_path / "r")]):
        done = subprocess.run([sys.executable, "-m", "conformance", *command], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.strip().count("\n") == 0 and "not a history file" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "r" / "report.json").exists(), "nothing was run"


def test_diff_calls_a_rule_decided_before_and_not_selected_now_narrowing() -> None:
    from conformance.reporting.diff import compare_reports

    def with_rules(*statuses: tuple[str, str]) -> dict[str, Any]:
        return {"rules": [{"id": rule, "level": "must", "title": rule, "status": status} for rule, status in statuses]}

    old = with_rules(("A", "not selected"), ("B", "pass"), ("C", "not selected"))
    new = with_rules(("A", "fail"), ("B", "not selected"), ("C", "pass"))
    result = compare_reports(old, new)
    assert result.regressed and [change.rule for change in result.no_longer_decided] == ["B"]
    assert [change.rule for change in result.failing_untested_before] == ["A"]
    assert [change.rule for change in result.newly_decided] == ["C"]
    assert not compare_reports(old, new, allow_narrower=True).regressed
