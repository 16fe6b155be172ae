"""Every declared effect of every Data API parameter, checked on every route that takes it and every page a walk
reads: the tests are derived from `x-effects` in specs/openapi/data-api.yaml, one per declaration and kind of check.
"""
from __future__ import annotations

from typing import Any

import pytest

from conformance.checks import data as checks, data_pages, effects, independently
from conformance.checks.data_pages import DataWalk
from conformance.clients.http import Exchange
from conformance.meaning import declarations, members
from conformance.meaning.declarations import Declaration
from conformance.suite.data.conftest import DataApi
from conformance.suite.data.effect_calls import EffectCalls

EFFECTS = declarations.checked(declarations.effects("data"))


def cases(kind: str, *, when: Any = None) -> list[Any]:
    return [pytest.param(effect, marks=pytest.mark.rule(effect.rule), id=effect.id)
            for effect in EFFECTS if effect.kind == kind and (when is None or when(effect))]


def unmatchable(effect: Declaration) -> bool:
    """Whether some value of the filter can name nothing: not when its values are fixed ones the documents list, or
    the filter asks for a member's presence or absence; an enumeration's value no item shows names nothing too."""
    values = effect.get("values", "items")
    return not (isinstance(values, list) or effect.get("match") in ("absent", "present"))


@pytest.fixture(scope="session")
def calls(data: DataApi) -> EffectCalls:
    return EffectCalls(data)


# Filters ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("effect", cases("filter"))
def test_a_filter_keeps_only_what_it_names_on_every_page(calls: EffectCalls, effect: Declaration) -> None:
    """For each value tried (taken from the items the route lists without the filter, from its enumeration or
    from a discovered identifier), every item of every page is one the filter names, and the items the value was
    taken from are among them; a list filter is tried with two values at once too."""
    normalise = calls.normaliser(effect)
    tried = calls.filter_values(effect)
    if not tried:
        pytest.skip(f"no value of {effect.name} to try: the route lists no item that shows {effect.get('member')}")
    keeps = effect.get("keeps", effect.rule)
    for value, sources in tried:
        walk = calls.walk(effect, {effect.name: value})
        with independently():
            effects.assert_filter_on_every_page(effect, walk_pages(walk), value, normalise)
        if sources:
            with independently():
                rule = effect.get("keeps_all", keeps) if len(sources) > 1 else keeps
                effects.assert_items_kept(effect, walk_pages(walk), calls.key(effect), sources,
                                          complete=walk.ended, value=value, rule=rule)
        if effect.get("without"):
            everything = calls.everything(effect)
            if everything is not None:
                with independently():
                    effects.assert_unfiltered_holds_them(effect, walk_pages(walk), everything, calls.key(effect),
                                                         value=value, exchange=walk.walk.exchanges[0])


@pytest.mark.parametrize("effect", cases("filter", when=unmatchable))
def test_a_value_that_matches_nothing_gives_nothing(calls: EffectCalls, effect: Declaration) -> None:
    """A value no item can have is answered with no item (or refused): never with items the filter does not
    name."""
    value = calls.unmatched(effect)
    if value is None:
        pytest.skip(f"every value of {effect.name} names something")
    walk = calls.walk(effect, {effect.name: value}, refused_ok=True)
    if walk is None:
        # refusing a well-formed value that names nothing is not what the documents answer, nor against them
        pytest.skip(f"undecided: {effect.subject} refuses {effect.name}={value!r}, a well-formed value that names "
                    "nothing")
    effects.assert_filter_on_every_page(effect, walk_pages(walk), value, calls.normaliser(effect))


# Bounds -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("effect", cases("bound"))
def test_a_bound_placed_on_an_item_s_own_value(calls: EffectCalls, effect: Declaration) -> None:
    """A bound placed exactly on an item's value keeps it when inclusive and drops it when exclusive; one step
    inside keeps it, one step outside drops it; no item of any page lies beyond the bound; and a bound sent alone
    keeps every item within it."""
    picked = calls.bound_item(effect)
    if picked is None:
        pytest.skip(f"the route lists no item with a numeric {effect.get('member')}")
    item, at = picked
    step = effect.get("step", 1)
    inward = -step if effect.get("side") == "lower" else step
    inclusive = effect.get("inclusive")
    for offset, present, why in ((0, inclusive, "a bound on the item's own value, "
                                  f"{'inclusive' if inclusive else 'exclusive'}"),
                                 (inward, True, "the item lies inside the bound"),
                                 (-inward, False, "the item lies outside the bound")):
        bound = round(at + offset, 9) if isinstance(at + offset, float) else at + offset
        sent = calls.bound_query(effect, bound, at)
        if sent is None:
            continue
        walk = calls.walk(effect, sent)
        with independently():
            effects.assert_bound_on_every_page(effect, walk_pages(walk), bound, sent)
        if present is not None:
            with independently():
                effects.assert_presence(effect, walk_pages(walk), calls.key(effect), item, present=present,
                                        decided=calls.decided(effect, walk, at), sent=sent, why=why)
    median = calls.median(effect)
    if median is not None:   # the bound alone, in the route's own order: no order keeps a later page in range
        sent = {effect.name: calls.typed(effect, effect.name, median)}
        with independently():
            effects.assert_bound_on_every_page(effect, walk_pages(calls.walk(effect, sent)), median, sent)
    for walk, base, sent, bound, covered in calls.alone(effect) if effect.get("alone") else []:
        with independently():
            effects.assert_alone_keeps_everything_within(effect, walk_pages(walk), base, calls.key(effect), covered,
                                                         bound=bound, sent=sent)


# Defaults and spellings -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("effect", cases("default"))
def test_an_omitted_parameter_answers_as_its_default(calls: EffectCalls, effect: Declaration) -> None:
    """The route without the parameter answers as with its documented default sent."""
    value = effect.get("value")
    outcome = calls.agree(effect, {effect.name: value}, {})
    effects.assert_same_answer(effect, outcome.agreed, outcome.first, outcome.second,
                               what=f"{effect.name}={value!r} and {effect.name} omitted", exchange=outcome.exchange)


@pytest.mark.parametrize("effect", cases("spelling"))
def test_each_spelling_answers_as_the_one_it_stands_for(calls: EffectCalls, effect: Declaration) -> None:
    """A value spelled another way the documents allow (an alias, a second network name, a prefix) answers as the
    value it stands for."""
    pairs = calls.spellings(effect)
    if not pairs:
        pytest.skip(f"no second spelling of {effect.name} is known for this run")
    for canonical, other in pairs:
        with independently():
            outcome = calls.agree(effect, canonical, other)
            effects.assert_same_answer(effect, outcome.agreed, outcome.first, outcome.second,
                                       what=f"{canonical[effect.name]!r} and {other[effect.name]!r} as {effect.name}",
                                       exchange=outcome.exchange)


# What an answer says about the request ----------------------------------------------------------------------------

@pytest.mark.parametrize("effect", cases("label"))
def test_the_answer_names_what_was_asked_on_every_page(calls: EffectCalls, effect: Declaration) -> None:
    """Every object the declaration names states the value the request sent (the currency of a Price, the network
    of chainInfo, the chain of a balance), on every page of a walk."""
    judged = 0
    for value in calls.label_values(effect):
        # small pages: an answer that names another value from its second page on shows it
        small = {"pageSize": 2} if checks.operation(effect.subject).list_member else {}
        walk = calls.walk(effect, {effect.name: value, **small}, refused_ok=True)
        if walk is None:
            continue
        labelled = [(exchange, calls.labels(effect, exchange)) for exchange, _ in walk_pages(walk)]
        with independently():
            judged += effects.assert_labels_on_every_page(effect, labelled, value, calls.label_normaliser(effect))
    if not judged:
        pytest.skip(f"no answer of {effect.subject} holds a {effect.get('component')} with {effect.get('member')}")


@pytest.mark.parametrize("effect", cases("projection"))
def test_a_projection_changes_only_its_members_on_every_page(calls: EffectCalls, effect: Declaration) -> None:
    """Another value of the parameter changes the objects it projects (the Price of each value) and nothing else,
    on every page."""
    value = calls.projection_value(effect)
    outcome = calls.agree(effect, {}, {effect.name: value}, project=True)
    with independently():
        effects.assert_same_answer(effect, outcome.agreed, outcome.first, outcome.second,
                                   what=f"{effect.name} omitted and {effect.name}={value!r}, outside "
                                        f"{', '.join(effect.get('components'))},", exchange=outcome.exchange)
    if outcome.agreed:   # what lies outside is one answer: the objects it names are compared place by place
        exchange, pairs = calls.projected_pairs(effect, value)
        default = checks.operation(effect.subject).schema_of(effect.name).get("default")
        effects.assert_projection_converts(effect, pairs, value, default=default, exchange=exchange)


@pytest.mark.parametrize("effect", cases("switch"))
def test_a_switch_widens_the_answer(calls: EffectCalls, effect: Declaration) -> None:
    """The value of the switch that includes more returns every item the other value returns (as far as the wider
    walk reached, in the declared order)."""
    more, fewer = effect.get("superset"), not effect.get("superset")
    order = dict(effect.get("near", {}))
    wide = calls.walk(effect, {**order, effect.name: more, "pageSize": checks.plain_page_size(effect.subject)})
    narrow = calls.walk(effect, {**order, effect.name: fewer, "pageSize": checks.plain_page_size(effect.subject)})
    reached = calls.reached(effect, wide)
    if reached is None:
        pytest.skip(f"{effect.subject} with {effect.name}={more} did not end within {len(wide.walk.exchanges)} pages")
    key = calls.key(effect)
    effects.assert_superset(effect, [key(i) for i in wide.items], [key(i) for i in narrow.items if reached(i)],
                            exchange=wide.walk.exchanges[0], values=(more, fewer))


@pytest.mark.parametrize("effect", cases("order"))
def test_an_order_holds_on_every_page_and_across_pages(calls: EffectCalls, effect: Declaration) -> None:
    """The order the value selects holds within every page and across the pages of a walk."""
    for params, descending in calls.order_queries(effect):
        walk = calls.walk(effect, params)
        key = calls.order_key(effect)
        with independently():
            data_pages.assert_sorted_within_pages(walk, effect.rule, key, descending=descending,
                                                  what=str(effect.get("member")))
            data_pages.assert_sorted_across_pages(walk, key, descending=descending, what=str(effect.get("member")),
                                                  rule_id=effect.rule)
            effects.verified(effect)


@pytest.mark.parametrize("effect", cases("moment"))
def test_a_moment_in_history_holds_on_every_page(calls: EffectCalls, effect: Declaration) -> None:
    """Every page of a walk at a past moment answers as one larger page at that moment: the moment is not dropped
    after the first page."""
    if not checks.operation(effect.subject).list_member:
        pytest.skip(f"{effect.subject} answers one object: no page follows the first")
    moment = calls.past_moment(effect)
    if moment is None:
        pytest.skip("no past block is known to read the route at")
    small = calls.walk(effect, {effect.name: moment, "pageSize": 1})
    whole_exchange = calls.data.once(effect.subject, {effect.name: moment,
                                                      "pageSize": checks.plain_page_size(effect.subject)})
    whole_body = checks.input_of(whole_exchange, f"{effect.subject} at block {moment}")
    key = calls.key(effect)
    whole = {key(item): item for item in checks.items_of(effect.subject, whole_body)}
    compared = effects.assert_pages_agree(effect, walk_pages(small), whole, key, members.canonical,
                                          sent={effect.name: moment})
    if not compared or len(small.walk.pages) < 2:
        pytest.skip(f"{effect.subject} at block {moment} lists fewer than two items")


def walk_pages(walk: DataWalk) -> list[tuple[Exchange, list[Any]]]:
    return [(exchange, items) for exchange, items, _ in walk.pages()]


