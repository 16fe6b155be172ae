"""Which tests a run holds: their rule marks checked against the catalogue, the selected APIs and rules, the
profile's variants; a test of an API the run does not select is not collected."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from conformance import selection
from conformance.checks.served import PREREQUISITES
from conformance.errors import ConfigError
from conformance.plugin import state
from conformance.profiles import PROFILES
from conformance.reporting.outcomes import RULES_KEY
from conformance.rules import load_catalogue

_RULES = pytest.StashKey[tuple[str, ...]]()


def rule_ids(item: pytest.Item) -> list[str]:
    # Asked for several times in each phase of every test; the marks of a collected test do not change.
    found = item.stash.get(_RULES, None)
    if found is None:
        found = item.stash[_RULES] = tuple(rule_id for mark in item.iter_markers("rule") for rule_id in mark.args)
    return list(found)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any(rule_ids(item) for item in items):
        return
    state.run_state(config).active = True
    if config.option.tbstyle == "auto" and all(rule_ids(item) for item in items):
        # A failure reads as its bug report; pytest's default style would first re-parse every module of its
        # traceback (about 0.1 s a failure), minutes against a target that fails everything.
        config.option.tbstyle = "native"
    catalogue = load_catalogue()
    state.run_state(config).expectation_entries(catalogue)  # a malformed file stops the run before any request
    target = state.resolved_target(config)
    settings.load_profile(PROFILES[target.profile].hypothesis_profile)
    unknown = sorted({rid for item in items for rid in rule_ids(item) if rid not in catalogue})
    if unknown:
        raise pytest.UsageError(f"tests carry rule IDs that are not in the catalogue: {', '.join(unknown)}")
    wanted = target.rules
    if wanted:
        try:
            selection.check_rules(wanted, catalogue, target.apis)
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    prerequisites: list[pytest.Item] = []
    for item in items:
        ids = rule_ids(item)
        if not ids:
            keep.append(item)
            continue
        if not selection.apis_of(item, {api for rid in ids for api in catalogue[rid].apis}) & set(target.apis):
            continue   # a test of an API the run does not select is not part of it
        chosen = any(rid.startswith(prefix) for rid in ids for prefix in wanted) if wanted else True
        chosen = chosen and (PROFILES[target.profile].exhaustive or not item.get_closest_marker("exhaustive"))
        item.extra_keyword_matches.update(ids)
        item.user_properties.extend((RULES_KEY, rid) for rid in ids)
        if not chosen and PREREQUISITES.keys() & set(ids):
            prerequisites.append(item)
        else:
            (keep if chosen else drop).append(item)
        if item.get_closest_marker("mutating") and not target.allow_mutations:
            item.add_marker(pytest.mark.skip(reason="changes node state: run with --allow-mutations"))
    if wanted and not any(rule_ids(item) for item in keep):
        raise pytest.UsageError(f"--rule {', '.join(wanted)}: no test of the selected APIs "
                                f"({','.join(target.apis)}) carries it")
    # A selection keeps what its verdicts depend on: whether a method is served decides whether the tests of it
    # fail or are blocked, so the test that decides it runs whenever a selected test's rules apply to the method
    # (or to no method in particular), and the EVM chain path's whenever a selected test is of its API.
    kept_apis: set[str] = set()
    methods: set[str | None] = set()
    for item in keep:
        ids = rule_ids(item)
        kept_apis |= selection.apis_of(item, {a for rid in ids for a in catalogue[rid].apis})
        for rid in ids:
            methods |= set(catalogue[rid].applies_to) or {None}
    for item in prerequisites:
        needed = [PREREQUISITES[rid] for rid in rule_ids(item) if rid in PREREQUISITES]
        apis = selection.apis_of(item, {a for rid in rule_ids(item) for a in catalogue[rid].apis}) & kept_apis
        wanted_here = apis and any(method is None or method in methods or None in methods for method in needed)
        (keep if wanted_here else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    # A rule whose every test the profile leaves out is untested for a reason the report states, not forgotten.
    kept = {rid for item in keep for rid in rule_ids(item)}
    profile = PROFILES[target.profile]
    state.run_state(config).left_out = {
        rid: f"its tests are further variants the {profile.name} profile leaves out (run --profile standard)"
        for item in drop if item.get_closest_marker("exhaustive") and not profile.exhaustive
        for rid in rule_ids(item) if rid not in kept}
    items[:] = keep


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The folder of an API the run does not select is not collected at all."""
    api = selection.folder_api(collection_path)
    if api is None:
        return None
    try:
        return True if api not in state.resolved_target(config).apis else None
    except pytest.UsageError:
        return None


