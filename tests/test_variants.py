"""The suite is lenient where the documents are: every variant of the reference leaves the tests it touches green."""
from __future__ import annotations

import pytest

from conformance.reference import ReferenceServer
from conformance.reference.variant_catalogue import Variant
from conformance.reference.variants import all_variants
from conformance.rules import load_catalogue
from tests.suite_runs import rule_map, run_suite, serving

VARIANTS = sorted(all_variants(), key=lambda variant: variant.__name__)


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant.__name__ for variant in VARIANTS])
def test_variant_passes_the_tests_that_read_it(variant: type[Variant], reference: ReferenceServer) -> None:
    carried = rule_map()
    selection = sorted({nodeid for rule in variant.reads for nodeid in carried.get(rule, ())})
    assert selection, f"{variant.__name__} reads {variant.reads}, which no suite test carries"
    with serving(reference, [variant()]) as server:
        samples = [arg for name, value in variant.samples.items() for arg in ("--sample", f"{name}={value}")]
        run = run_suite(server, selection, *samples)
    failures = run.failures()
    assert failures == [], f"{variant.__name__} ({variant.summary()}) is allowed by the documents " \
        f"({variant.allowed_by}) but failed:\n\n" + "\n\n".join(f"{o.nodeid}\n{o.message}" for o in failures)
    assert any(o.outcome == "passed" for o in run.outcomes.values()), f"{variant.__name__}: no test ran"


def test_variants_name_only_rules_of_the_catalogue() -> None:
    catalogue = load_catalogue()
    assert [(v.__name__, rule) for v in VARIANTS for rule in v.reads if rule not in catalogue] == []
