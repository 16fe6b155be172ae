"""One deviation, one rule: a form real implementations answer that contradicts the documents fails its own rule
and leaves every other rule's verdict as it is against the clean reference; and every rule a run carries has
evidence of a check that held."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest

from conformance.reference import ReferenceServer
from conformance.reference.faults import all_faults
from conformance.reference.middleware import Fault
from conformance.rules import load_catalogue
from tests.suite_runs import run_suite, serving

REAL = sorted((fault for fault in all_faults() if fault.real), key=lambda fault: fault.__name__)
SUITE = ["--pyargs", "conformance.suite"]


def statuses(reference: ReferenceServer, fault: Fault | None, *profile: str) -> dict[str, dict]:
    """Rule ID -> its entry in report.json after a run of the whole suite (quick unless `profile` says) against a
    fresh world of `reference`, through `fault`."""
    with TemporaryDirectory() as folder, serving(reference, [fault] if fault else []) as server:
        run_suite(server, SUITE, "--report-dir", folder, *profile)
        report = json.loads((Path(folder) / "report.json").read_text(encoding="utf-8"))
    return {rule["id"]: rule for rule in report["rules"]}


@cache
def clean(reference: ReferenceServer) -> dict[str, dict]:
    return statuses(reference, None)


@pytest.mark.parametrize("fault", REAL, ids=[fault.__name__ for fault in REAL])
def test_a_real_form_fails_its_own_rule_and_no_other(fault: type[Fault], reference: ReferenceServer) -> None:
    before, after = clean(reference), statuses(reference, fault())
    assert all(after[rule]["status"] == "fail" for rule in fault.breaks), \
        {rule: after[rule]["status"] for rule in fault.breaks}
    # A rule whose tests could not run because of the deviation (a method not served) is untested, blocked by
    # the rule the deviation contradicts: still decided, and not charged.
    changed = {rule: f"{before[rule]['status']} -> {after[rule]['status']}" for rule in before
               if rule not in fault.breaks and before[rule]["status"] != after[rule]["status"]
               and not (after[rule]["status"] == "untested" and after[rule].get("blocked_by")
                        and set(after[rule]["blocked_by"]) <= set(fault.breaks))}
    assert changed == {}, f"{fault.__name__} ({fault.summary()}) changed rules it does not contradict"


def test_the_real_forms_include_those_real_nodes_and_services_answer() -> None:
    assert len(REAL) >= 5, [fault.__name__ for fault in REAL]


def test_every_rule_a_clean_standard_run_carries_has_a_check_that_held(reference: ReferenceServer) -> None:
    """A rule passes on evidence: against the clean reference, every testable rule some test carries held."""
    report = statuses(reference, None, "--conformance-profile", "standard")
    catalogue = load_catalogue()
    unproven = sorted(rule_id for rule_id, entry in report.items()
                      if entry["tests"] and catalogue[rule_id].gating and catalogue[rule_id].testable
                      and entry["status"] != "skip" and not entry["evidence"]["held"])
    assert unproven == []
    assert not [rule_id for rule_id, entry in report.items() if entry["status"] == "pass"
                and not entry["evidence"]["held"]]
