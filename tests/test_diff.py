"""`conformance diff` never hides a shrunken run: changed settings first, every narrowing named and a regression
unless allowed, every widening listed; proven on two real runs against the reference and on reports built here."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.reporting import diff
from conformance.reporting.build import NOT_SELECTED, SCHEMA

WIDE, NARROW = "metrics,validators", "metrics"   # the narrow run leaves out one API: validators
#: A small catalogue for the reports built below: more data rules than are listed one by one, a few of metrics.
CATALOGUE = {**{f"DATA-PAG-{n:03}": "data" for n in range(1, diff.GROUP_AT + 3)},
             **{f"MET-PAG-{n:03}": "metrics" for n in range(1, 4)}}
#: What report.json keeps in `suite` itself; any other setting below is one of `suite.options`.
SUITE_FACTS = ("version", "profile", "seed", "gate", "expectations")


def run_report(report_dir: Path, apis: str) -> Path:
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--api", apis, "--profile", "quick",
                           "--report-dir", str(report_dir)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return report_dir / "report.json"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """report.json of a run of two APIs and of a run of one of them, each against its own embedded reference."""
    where = tmp_path_factory.mktemp("runs")
    return str(run_report(where / "wide", WIDE)), str(run_report(where / "narrow", NARROW))


def a_report(statuses: dict[str, str] | None = None, *, apis: tuple[str, ...] = ("data", "metrics"),
             coverage: dict[str, Any] | None = None, tests: int = 100, requests: int = 500,
             **settings: Any) -> dict[str, Any]:
    """A report.json of the small catalogue: every rule of a selected API passes unless `statuses` says otherwise,
    the others are not selected; `settings` are the suite's facts or its options."""
    suite: dict[str, Any] = {"version": "0.1.0", "profile": "standard", "seed": 0, "gate": "standard",
                             "expectations": None}
    options: dict[str, Any] = {"api": list(apis), "profile": "standard", "rule": [], "recheck": 3, "flaky": "report",
                               "min_coverage": None, "name": None, "chain": None, "api_key": None,
                               "report_dir": "reports/latest", "concurrency": 16}
    for name, value in settings.items():
        (suite if name in SUITE_FACTS else options)[name] = value
    suite["options"] = options
    rules = [{"id": rule_id, "api": [api], "level": "must", "title": f"the rule {rule_id}",
              "status": (statuses or {}).get(rule_id, "pass") if api in apis else NOT_SELECTED}
             for rule_id, api in CATALOGUE.items()]
    return {"schema": SCHEMA, "suite": suite,
            "target": {"reference": False, "apis": list(apis), "urls": {"node": None, "data": "https://data.example",
                                                                        "metrics": "https://metrics.example"},
                       "evm_chain": None, "versions": {"server": ["node/1.13"], "client": []}},
            "summary": {"tests": tests, "requests": requests}, "rules": rules, "operations": [],
            **({"coverage": coverage} if coverage is not None else {})}


def coverage_of(keywords: float, state: str) -> dict[str, Any]:
    """The coverage of the Metrics API: its keywords dimension at `keywords` percent, its one operation in `state`."""
    return {"metrics": {"keywords": {"covered": 0, "partial": 0, "total": 10, "unreachable": 0, "percent": keywords},
                        "detail": {"GET /v1/avg_tps/{chainId}": {"status": state}}}}


def text_of(old: dict[str, Any], new: dict[str, Any], **options: Any) -> str:
    return diff.render_text(diff.compare_reports(old, new, **options), "old", "new")


# Two real runs, one of fewer APIs ------------------------------------------------------------------------------

def test_a_run_of_fewer_apis_is_a_regression_naming_the_api_and_its_rules(
        runs: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """The run that left out an API regressed: the API is named with how many rules it no longer decided."""
    wide, narrow = runs
    old, new = (json.loads(Path(path).read_text()) for path in runs)
    now = {rule["id"]: rule["status"] for rule in new["rules"]}
    # the rules of the Validators API and the envelope rules it shares with the other JSON-RPC APIs
    lost = sorted(rule["id"] for rule in old["rules"]
                  if rule["status"] in diff.DECIDED and now[rule["id"]] == NOT_SELECTED)
    assert lost and all("validators" in rule["api"] for rule in old["rules"] if rule["id"] in lost)
    assert cli.main(["diff", wide, narrow]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("REGRESSED")
    # what differs in how they were run is said first, and only that: each reference listens on a port of its own
    assert lines[1:3] == ["Settings that changed (1):", f"  api: {WIDE} -> {NARROW}"]
    assert f"  API validators not selected: {len(lost)} rules no longer decided" in lines
    assert cli.main(["diff", wide, narrow, "--format", "json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["regressed"] is result["narrower"] is True
    assert sorted(c["rule"] for c in result["no_longer_decided"]) == lost, "json lists every rule"
    [group] = [n for n in result["narrowing"] if n["what"] == "API validators not selected"]
    assert group["count"] == len(lost) and sorted(group["rules"]) == lost


def test_allow_narrower_keeps_the_narrowing_listed_but_is_exit_0(runs: tuple[str, str],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """With --allow-narrower the narrower run is no regression, and every narrowing is still shown."""
    wide, narrow = runs
    assert cli.main(["diff", wide, narrow, "--allow-narrower"]) == 0
    text = capsys.readouterr().out
    assert "no regression (narrower, allowed by --allow-narrower)" in text.splitlines()[0]
    assert "API validators not selected:" in text
    assert cli.main(["diff", wide, narrow, "--allow-narrower", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "✅ no regression" in markdown and "API validators not selected:" in markdown


def test_the_wider_run_lists_the_rules_it_newly_decided_and_is_no_regression(
        runs: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """From the narrow run to the wide one, the API's rules are newly decided: listed, not a regression."""
    wide, narrow = runs
    assert cli.main(["diff", narrow, wide]) == 0
    text = capsys.readouterr().out
    assert "no regression" in text.splitlines()[0] and "Newly decided rules" in text
    assert "API validators now selected:" in text and "Narrower" not in text


def test_a_report_against_itself_says_no_regression_and_nothing_else(runs: tuple[str, str],
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The same report on both sides is no regression, and there is nothing to list."""
    wide, _ = runs
    assert cli.main(["diff", wide, wide]) == 0
    assert capsys.readouterr().out.splitlines() == [f"conformance diff: {wide} -> {wide}: no regression"]
    assert cli.main(["diff", wide, wide, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["regressed"], result["narrower"], result["settings"], result["narrowing"]) == (False, False, [], [])
    assert cli.main(["diff", wide, wide, "--format", "markdown"]) == 0
    assert "###" not in capsys.readouterr().out


# Settings ------------------------------------------------------------------------------------------------------

def test_every_changed_setting_is_listed_first_as_old_to_new() -> None:
    """Profile, gate, seed, target, selection, expectations, recheck and suite version changes come first."""
    old = a_report()
    new = a_report(profile="thorough", gate="must", seed=7, version="0.2.0", expectations="known.yaml",
                   rule=["MET-PAG"], recheck=0, flaky="fail", min_coverage=90.0, name="node-b")
    new["target"]["urls"]["data"] = "https://data-b.example"
    new["target"]["versions"]["server"] = ["node/1.14"]
    lines = text_of(old, new).splitlines()
    assert lines[1] == "Settings that changed (12):"
    assert lines[2:14] == ["  suite version: 0.1.0 -> 0.2.0", "  data-url: https://data.example -> https://data-b.example",
                           "  profile: standard -> thorough", "  gate: standard -> must", "  seed: 0 -> 7",
                           "  expectations: none -> known.yaml", "  rule: every rule -> MET-PAG",
                           "  recheck: 3 -> 0", "  flaky: report -> fail", "  min-coverage: none -> 90.0",
                           "  name: none -> node-b", "  server version: node/1.13 -> node/1.14"]
    result = diff.compare_reports(old, new)
    assert {"setting": "seed", "old": 0, "new": 7} in result.to_json()["settings"]
    markdown = diff.render_markdown(result, "old", "new").split("\n### ")
    assert markdown[1].startswith("Settings that changed (12)") and "| gate | `standard` | `must` |" in markdown[1]


def test_where_the_reports_went_and_how_hard_the_machine_worked_are_no_change() -> None:
    """The report folder and the concurrency say nothing of the verdicts: no line."""
    assert diff.setting_changes(a_report(), a_report(report_dir="/tmp/elsewhere", concurrency=4)) == []


def test_an_api_key_is_never_shown() -> None:
    """A key, even one a report holds in the clear, is shown as ***."""
    old, new = a_report(), a_report(api_key="s3cret-key", sample=["data_api_key=s3cret-key"])
    result = diff.compare_reports(old, new)
    for output in (diff.render_text(result, "a", "b"), diff.render_markdown(result, "a", "b"),
                   json.dumps(result.to_json())):
        assert "s3cret" not in output and "***" in output


# Narrowing -------------------------------------------------------------------------------------------------

def test_a_smaller_profile_is_a_regression_and_a_larger_one_is_not() -> None:
    """thorough > standard > quick: a smaller profile is narrowing, a larger one only a changed setting."""
    thorough, quick = a_report(profile="thorough"), a_report(profile="quick")
    result = diff.compare_reports(thorough, quick)
    assert result.regressed and [n.text() for n in result.narrowing] == ["smaller profile: thorough -> quick"]
    assert not diff.compare_reports(quick, thorough).regressed
    assert not diff.compare_reports(thorough, quick, allow_narrower=True).regressed


def test_a_rule_no_longer_decided_names_why() -> None:
    """Interrupted, skipped or left out by --rule: each rule decided before and open now is named with its cause."""
    new = a_report({"MET-PAG-001": "untested", "MET-PAG-002": "skip", "MET-PAG-003": "untested"},
                   rule=["DATA-PAG"])
    new["suite"]["interrupted"] = "SIGTERM"
    new["rules"][-3]["reason"] = "interrupted"
    result = diff.compare_reports(a_report(), new)
    assert result.regressed
    assert {c.rule: c.detail for c in result.no_longer_decided} == {
        "MET-PAG-001": "metrics: the run was interrupted (SIGTERM)", "MET-PAG-002": "metrics: skipped",
        "MET-PAG-003": "metrics: left out by --rule DATA-PAG"}
    text = text_of(a_report(), new)
    assert "  metrics: skipped: 1 rule no longer decided" in text
    assert "    MET-PAG-002 (must) pass -> skip: the rule MET-PAG-002" in text, "a few rules are listed one by one"


def test_many_rules_of_one_cause_are_one_line_and_json_lists_them_all() -> None:
    """An API not selected is one line with its count; the json has every rule."""
    result = diff.compare_reports(a_report(), a_report(apis=("metrics",)))
    text = diff.render_text(result, "old", "new")
    count = diff.GROUP_AT + 2
    assert f"  API data not selected: {count} rules no longer decided" in text and "DATA-PAG-001" not in text
    assert len(result.to_json()["no_longer_decided"]) == count


def test_an_api_tested_before_is_named_even_when_it_decided_no_rule() -> None:
    """An API dropped from the run is narrowing by itself, whatever its rules said before."""
    old = a_report({rule: "untested" for rule in CATALOGUE if rule.startswith("DATA")})
    result = diff.compare_reports(old, a_report(apis=("metrics",)))
    assert result.regressed and [n.text() for n in result.narrowing] == ["API data not selected"]


def test_a_fallen_coverage_is_named_with_both_figures() -> None:
    """A coverage dimension of an API that fell, and an operation covered less, are named, old and new."""
    old, new = a_report(coverage=coverage_of(80.0, "covered")), a_report(coverage=coverage_of(62.5, "not_reached"))
    result = diff.compare_reports(old, new)
    assert result.regressed
    lines = diff.render_text(result, "old", "new").splitlines()
    assert "  coverage of metrics keywords fell: 80.0% -> 62.5%" in lines
    assert "  metrics: 1 operation covered less" in lines
    assert "    GET /v1/avg_tps/{chainId}: covered -> not reached" in lines
    [figure, _] = result.to_json()["narrowing"]
    assert figure == {"kind": "coverage", "what": "coverage of metrics keywords fell", "api": "metrics",
                      "dimension": "keywords", "old": 80.0, "new": 62.5}
    assert not diff.compare_reports(new, old).regressed, "coverage that grew is no regression"


def test_a_rule_that_now_errors_is_a_regression_even_when_narrower_is_allowed() -> None:
    """A rule the target now keeps from being decided is not a narrower selection: still a regression."""
    new = a_report({"MET-PAG-001": "error"})
    result = diff.compare_reports(a_report(), new, allow_narrower=True)
    assert result.regressed and [c.rule for c in result.newly_erroring] == ["MET-PAG-001"]


def test_far_fewer_tests_and_requests_are_shown_but_are_no_regression() -> None:
    """A run that decided as much with far fewer tests says so, and is no regression."""
    result = diff.compare_reports(a_report(), a_report(tests=20, requests=400))
    assert not result.regressed
    assert "Smaller run (not a regression by itself): tests: 100 -> 20" in diff.render_text(result, "old", "new")
    assert [s.name for s in result.fewer] == ["tests"], "a fifth fewer requests is not yet far fewer"


# Widening ------------------------------------------------------------------------------------------------------

def test_untested_to_pass_is_newly_decided_not_a_regression() -> None:
    """A rule untested or erroring before and passing now is listed as newly decided."""
    old = a_report({"MET-PAG-001": "untested", "MET-PAG-002": "error"})
    result = diff.compare_reports(old, a_report())
    assert not result.regressed
    assert {c.rule: c.detail for c in result.newly_decided} == {"MET-PAG-001": "metrics: untested before",
                                                                "MET-PAG-002": "metrics: error before"}
    assert "    MET-PAG-001 (must) untested -> pass: the rule MET-PAG-001" in diff.render_text(result, "old", "new")


def test_a_bad_option_of_diff_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An option diff does not know is refused in one line, with exit code 2."""
    with pytest.raises(SystemExit) as stopped:
        cli.main(["diff", "old.json", "new.json", "--allow-narrower=yes"])
    assert stopped.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_an_observation_that_differs_only_by_where_and_when_the_run_was_made_has_not_changed() -> None:
    """The same behaviour seen through another port, or a minute later, is not an observation that changed; a
    status that changed is."""
    def observed(url: str, age: int, status: int) -> dict[str, Any]:
        report = a_report()
        report["rules"][-1].update(level="observe", status="observed", observations=[
            {"test": "t", "seen": {"url": f"{url}/v1/avg_tps/43114?pageSize=2", "age_seconds": age,
                                   "status": status}}])
        return report
    old = observed("http://127.0.0.1:46131", 15818331, 200)
    assert not diff.compare_reports(old, observed("http://127.0.0.1:39281", 15818382, 200)).observations
    assert diff.compare_reports(old, observed("http://127.0.0.1:39281", 15818382, 404)).observations
