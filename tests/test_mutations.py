"""The suite proves itself: clean against the reference, and every fault of the reference makes its rules fail."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.reference import ReferenceServer
from conformance.reference.faults import all_faults, derived
from conformance.reference.middleware import Fault
from conformance.rules import load_catalogue
from tests.suite_runs import KnownIdentifiers, SuiteRun, rule_map, run_suite, serving

FAULTS = sorted(all_faults(), key=lambda fault: fault.__name__)
SUITE = ["--pyargs", "conformance.suite"]


@pytest.mark.parametrize(("seed", "live"), [(0, False), (3, False), (7, True)], ids=["seed0", "seed3", "seed7-live"])
def test_the_clean_reference_passes_every_test(seed: int, live: bool) -> None:
    with ReferenceServer(seed=seed, advance_every=0.01 if live else None) as server:
        run = run_suite(server, SUITE, "--conformance-seed", str(seed))
    assert run.failures() == [], "\n\n".join(f"{o.nodeid}\n{o.message}" for o in run.failures())
    assert run.exit_code == 0, run.output[-3000:]


@pytest.fixture(scope="module")
def identifiers(reference: ReferenceServer) -> KnownIdentifiers:
    """The identifiers the clean reference's crawl finds: every fault's run asks about those."""
    known = KnownIdentifiers()
    with serving(reference, []) as server:
        run_suite(server, [IDENTIFIED_TEST], identifiers=known)
    assert known.discovery is not None and known.discovery.found
    return known


#: A test that opens the endpoints, and so crawls the target for its identifiers.
IDENTIFIED_TEST = "conformance/suite/data/test_auth.py::test_request_with_the_key_is_served"


@pytest.mark.parametrize("fault", FAULTS, ids=[fault.__name__ for fault in FAULTS])
def test_fault_makes_the_tests_of_its_rules_fail(fault: type[Fault], reference: ReferenceServer,
                                                 identifiers: KnownIdentifiers,
                                                 record_property: Callable[[str, object], None]) -> None:
    carried = rule_map()
    missing = [rule for rule in fault.breaks if rule not in carried]
    assert not missing, f"{fault.__name__} breaks {missing}, which no suite test carries"
    selection = sorted({nodeid for rule in fault.breaks for nodeid in carried[rule]})
    applied = fault()
    with serving(reference, [applied]) as server:
        run = run_suite(server, selection, identifiers=identifiers)
    # A fault is caught by a check of its own rule breaking, not by a test that carries the rule failing on another.
    undetected = [rule for rule in fault.breaks if rule not in run.broken_rules()]
    if isinstance(applied, derived.Derived):
        record_property("operator", f"{applied.declaration.api} {applied.declaration.kind} "
                                    f"{applied.operator or applied.declaration.kind}")
        if undetected and not applied.changed_an_answer:
            # neither caught nor missed: on the reference's data, under the requests of its rule's tests, the
            # operator changed no answer (listed in the score's survivors as unobserved)
            record_property("mutation", "unobserved")
            pytest.skip(f"unobserved: {fault.__name__} changed no answer the tests of {fault.breaks} asked for")
    record_property("mutation", "missed" if undetected else "detected")
    assert not undetected, f"{fault.__name__} ({fault.summary()}) went unnoticed by the tests of {undetected}"
    suite_errors = [o for o in run.failures() if o.kind != "violation"]
    assert not suite_errors, f"{fault.__name__} made tests error instead of fail:\n" + "\n\n".join(
        f"{o.nodeid} ({o.kind})\n{o.message[-1500:]}" for o in suite_errors)
    # Nor does it break what it does not name: a check charged to another rule would blame the wrong sentence.
    extra = run.broken_rules() - set(fault.breaks) - set(fault.also)
    assert not extra, f"{fault.__name__} also broke rules it does not name: " + "; ".join(
        f"{rule} by {', '.join(breakers(run, rule))}" for rule in sorted(extra))


def breakers(run: SuiteRun, rule: str) -> list[str]:
    """The tests in which a check of `rule` broke."""
    return [o.nodeid for o in run.outcomes.values() if rule in o.broken or o.evidence.get(rule, [0, 0])[1]]


def test_every_test_of_the_suite_carries_a_rule() -> None:
    """A test of no rule decides nothing a report can show: pytest would count it and the reports would not."""
    run = run_suite(None, ["--pyargs", "conformance.suite"], "--collect-only", "--api",
                    "admin,index,evm,validators,data,metrics")
    assert run.outcomes
    assert [o.nodeid for o in run.outcomes.values() if not o.rules] == []


def test_every_testable_required_rule_is_carried_by_a_test() -> None:
    carried = rule_map()
    required = [rule.id for rule in load_catalogue() if rule.gating and rule.testable]
    assert [rule for rule in required if rule not in carried] == []


def test_every_testable_required_rule_has_a_fault() -> None:
    broken = {rule for fault in FAULTS for rule in fault.breaks}
    required = [rule.id for rule in load_catalogue() if rule.gating and rule.testable]
    assert [rule for rule in required if rule not in broken] == []


def test_faults_name_only_rules_of_the_catalogue() -> None:
    catalogue = load_catalogue()
    assert [(fault.__name__, rule) for fault in FAULTS for rule in fault.breaks if rule not in catalogue] == []
