"""Checks of declared parameter effects: each judges the pages of answers a derived request brought back against
one declaration, and is charged to the declaration's rule.

A page is (exchange, items). An item that does not show the member a check reads is not judged by it: whether a
member is always present is not shown, and a deviation of form is the shape rules'.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from conformance import evidence
from conformance.checks import check, fail, held
from conformance.clients.http import Exchange
from conformance.meaning import members
from conformance.meaning.declarations import Declaration
from conformance.meaning.members import Normaliser

Page = tuple[Exchange, list[Any]]


def verified(effect: Declaration, aspect: str = "held") -> None:
    """One aspect of the declaration is verified (for the coverage of declared effects)."""
    from conformance.meaning.declarations import _operation_name

    evidence.verified(effect.id, aspect, _operation_name(effect))


def _pages_verified(effect: Declaration, judged_pages: list[int]) -> None:
    if judged_pages:
        verified(effect)
    if any(number > 1 for number in judged_pages):
        verified(effect, "later page")


def normaliser(effect: Declaration, prefixes: Sequence[str] = ()) -> Normaliser:
    return Normaliser(case=effect.get("case", "exact"), prefixes=prefixes,
                      numeric=effect.kind == "bound" or effect.get("numeric", False))


def split(effect: Declaration, value: Any) -> list[Any]:
    """The values one parameter value stands for: each comma-separated part of a list parameter."""
    return members.parts(value, bool(effect.get("list")))


def matches(effect: Declaration, item: Any, value: Any, normalise: Normaliser) -> bool | None:
    """Whether `item` is one the filter `effect` keeps for `value`; None when the item does not show the member."""
    return members.kept_by_filter(effect.get("match", "equals"), item, effect.get("member"), split(effect, value),
                                  normalise)


def assert_filter_on_every_page(effect: Declaration, pages: list[Page], value: Any, normalise: Normaliser) -> int:
    """Every item of every page is one the filter keeps for `value`; returns how many items were judged."""
    judged = 0
    judged_pages = []
    for number, (exchange, items) in enumerate(pages, 1):
        verdicts = [(item, matches(effect, item, value, normalise)) for item in items if isinstance(item, dict)]
        wrong = [shown(effect, item) for item, ok in verdicts if ok is False]
        where = f" on page {number} of a walk" if number > 1 else ""
        judged += sum(ok is not None for _, ok in verdicts)
        check(not wrong, effect.rule, f"{effect.subject} with {effect.name}={value!r} returns items it does not "
              f"name{where}", expected=f"only items whose {describe(effect)} {value!r}",
              received=f"{len(wrong)} other items, e.g. {wrong[:3]}", exchange=exchange)
        if any(ok is not None for _, ok in verdicts):
            judged_pages.append(number)
    _pages_verified(effect, judged_pages)
    return judged


def describe(effect: Declaration) -> str:
    match = effect.get("match", "equals")
    member = " or ".join(members.paths_of(effect.get("member"))) or "content"
    return {"names": "content names", "contains": f"{member} contains", "absent": f"{member} is absent for",
            "present": f"{member} is present for"}.get(match, f"{member} is")


def shown(effect: Declaration, item: Any) -> Any:
    if effect.get("match") == "names":
        return {k: item.get(k) for k in list(item)[:2]} if isinstance(item, dict) else item
    return members.values(item, effect.get("member"))[:3]


def assert_items_kept(effect: Declaration, pages: list[Page], key: Callable[[Any], str], wanted: list[Any], *,
                      complete: bool, value: Any, rule: str) -> None:
    """The items the value was taken from are among the items the filter keeps, when the walk reached its end (an
    item not among the pages of a walk cut short decides nothing)."""
    kept = {key(item) for _, items in pages for item in items}
    missing = [key(item) for item in wanted if key(item) not in kept]
    if not missing:
        held(rule, pages[0][0])
        verified(effect, "kept")
        return
    if complete:
        fail(rule, f"{effect.subject} with {effect.name}={value!r} leaves out an item it names",
             expected=f"the item {missing[0][:200]} (its {describe(effect)} {value!r})",
             received=f"{sum(len(items) for _, items in pages)} items without it", exchange=pages[0][0])


def assert_unfiltered_holds_them(effect: Declaration, pages: list[Page], everything: set[str],
                                 key: Callable[[Any], str], *, value: Any, exchange: Exchange) -> None:
    """Every item the filter keeps is also listed without the filter (compared with a complete unfiltered walk)."""
    missing = [key(item) for _, items in pages for item in items if key(item) not in everything]
    check(not missing, effect.get("without"), f"{effect.subject} without {effect.name} leaves out items that "
          f"{effect.name}={value!r} returns", expected=f"every item of {effect.name}={value!r} among them",
          received=f"{len(missing)} missing, e.g. {missing[:2]}", exchange=exchange)


def within(side: str, inclusive: bool | None, found: Any, bound: Any) -> bool:
    """Whether `found` lies on the kept side of a bound; exactly on a bound whose inclusiveness is not shown counts as
    kept."""
    if side == "lower":
        return found > bound or found == bound and inclusive is not False
    return found < bound or found == bound and inclusive is not False


def assert_bound_on_every_page(effect: Declaration, pages: list[Page], bound: Any,
                               sent: dict[str, Any]) -> int:
    """No item of any page lies beyond the bound (on it, when the bound is exclusive)."""
    judged = 0
    judged_pages = []
    side, inclusive = effect.get("side"), effect.get("inclusive")
    for number, (exchange, items) in enumerate(pages, 1):
        found = [value for item in items
                 if (value := members.number(members.first(item, effect.get("member")))) is not None]
        judged += len(found)
        wrong = [value for value in found if not within(side, inclusive, value, bound)]
        where = f" on page {number} of a walk" if number > 1 else ""
        check(not wrong, effect.rule, f"{effect.subject} with {sent} returns items beyond {effect.name}{where}",
              expected=f"{effect.get('member')} {'>=' if side == 'lower' else '<='}"
                       f"{'' if inclusive is not False else ' (exclusive)'} {bound}",
              received=f"{sorted(wrong)[:5]}", exchange=exchange)
        if found:
            judged_pages.append(number)
    _pages_verified(effect, judged_pages)
    return judged


def assert_presence(effect: Declaration, pages: list[Page], key: Callable[[Any], str], item: Any, *,
                    present: bool, decided: bool, sent: dict[str, Any], why: str) -> None:
    """The item is among the pages (or not), as the bound placed relative to its value says; an item not found in
    a walk that did not show everything it could hold (`decided` false) decides nothing."""
    # Keeping what lies inside is the sentence of `keeps` where one is declared; returning what lies outside is the
    # bound's own.
    rule = effect.get("keeps", effect.rule) if present else effect.rule
    found = any(key(other) == key(item) for _, items in pages for other in items)
    if found == present:
        held(rule, pages[0][0])
        verified(effect, "at the bound")
        return
    if not found and not decided:
        return
    fail(rule, f"{effect.subject} with {sent} {'leaves out' if present else 'returns'} the item at "
         f"{effect.get('member')} {members.first(item, effect.get('member'))}",
         expected=f"the item {'kept' if present else 'left out'} ({why})",
         received=f"{'without' if not found else 'with'} it among {sum(len(i) for _, i in pages)} items",
         exchange=pages[0][0])


def assert_alone_keeps_everything_within(effect: Declaration, pages: list[Page], base: list[Any],
                                         key: Callable[[Any], str], covered: Callable[[Any], bool], *, bound: Any,
                                         sent: dict[str, Any]) -> None:
    """A bound sent alone keeps every item of the unbounded list that lies within it (as far as the bounded walk
    reached): the other end stays open."""
    kept = {key(item) for _, items in pages for item in items}
    side, inclusive = effect.get("side"), effect.get("inclusive")
    inside = [(item, v) for item in base
              if (v := members.number(members.first(item, effect.get("member")))) is not None
              and within(side, inclusive, v, bound) and v != bound and covered(v)]
    missing = [v for item, v in inside if key(item) not in kept]
    if not inside:
        return
    check(not missing, effect.get("alone"), f"{effect.subject} with {sent} alone leaves out items within it",
          expected=f"every item with {effect.get('member')} {'after' if side == 'lower' else 'before'} {bound}",
          received=f"{len(missing)} missing, at {sorted(missing)[:5]}", exchange=pages[0][0])


def assert_labels_on_every_page(effect: Declaration, labelled: list[tuple[Exchange, list[tuple[str, Any]]]],
                                value: Any, normalise: Callable[[Any], Any]) -> int:
    """Every object of the declared components names the value sent in its member, on every page."""
    judged = 0
    judged_pages = []
    for number, (exchange, found) in enumerate(labelled, 1):
        present = [(pointer, label) for pointer, label in found if label is not None]
        judged += len(present)
        if present:
            judged_pages.append(number)
        wrong = [(pointer, label) for pointer, label in present if normalise(label) != normalise(value)]
        where = f" on page {number} of a walk" if number > 1 else ""
        check(not wrong, effect.rule, f"{effect.subject} with {effect.name}={value!r} answers objects that name "
              f"another {effect.name}{where}", expected=f"{effect.get('member')} naming {value!r}",
              received="; ".join(f"{p} = {v!r}" for p, v in wrong[:4]), exchange=exchange)
    _pages_verified(effect, judged_pages)
    return judged


def assert_same_answer(effect: Declaration, agreed: bool, first: Any, second: Any, *, what: str,
                       exchange: Exchange | None) -> None:
    """Two requests the declaration says are one (a default sent and omitted, two spellings) answered alike. Two
    answers alike in holding nothing compared nothing: undecided (a skip), neither a pass nor coverage."""
    check(agreed, effect.rule, f"{effect.subject}: {what} answer differently",
          expected=f"the same answer: {str(first)[:300]}", received=str(second)[:300], exchange=exchange)
    if _refused(first) and _refused(second):
        pytest.skip(f"undecided: {effect.subject} refuses both, {what}: whether it is answered is another rule's")
    if _empty(first) and _empty(second):
        pytest.skip(f"undecided: {effect.subject} with {what} both answer nothing to compare")
    verified(effect)


def _refused(value: Any) -> bool:
    """An answer read as a refusal: a JSON-RPC error, no JSON-RPC at all, a status other than 200."""
    return isinstance(value, tuple) and len(value) == 2 and value[0] in ("error", "not JSON-RPC", "status")


def _empty(value: Any) -> bool:
    """An answer that holds nothing: no item, no member, or pages that hold none."""
    if value in (None, [], {}, (), ""):
        return True
    return isinstance(value, tuple) and len(value) == 2 and value[0] == "pages of a longer list" and not any(value[1])


def assert_projection_converts(effect: Declaration, pairs: list[tuple[str, Any, Any]], value: Any, *,
                               default: Any, exchange: Exchange) -> int:
    """The other half of a projection: the objects it names do change, and all by one factor. Each pair is an
    object's value at one place of the answer without the parameter (its default) and with `value`: a currency
    converts every fiat value of an answer at one rate, so a value left in the default currency, or one converted
    at another rate than the rest, breaks it (charged to the declaration's `converts` rule where the sentence has
    one of its own). Returns how many pairs were compared."""
    from decimal import Decimal

    rule = effect.get("converts", effect.rule)
    found: list[tuple[str, Decimal, Decimal]] = []
    for pointer, before, after in pairs:
        old, new = members.number(before), members.number(after)
        if isinstance(old, (int, float)) and isinstance(new, (int, float)) and not isinstance(old, bool) \
                and not isinstance(new, bool) and old != 0:
            found.append((pointer, Decimal(repr(old) if isinstance(old, float) else old),
                          Decimal(repr(new) if isinstance(new, float) else new)))
    if not found:
        return 0
    ratios = sorted(new / old for _, old, new in found)
    rate = ratios[len(ratios) // 2]
    # one value may be compared alone: a fiat rate of exactly 1 to every digit shown is not a rate between two
    # currencies
    unconverted = value != default and all(ratio == 1 for ratio in ratios)
    check(not unconverted, rule, f"{effect.subject} with {effect.name}={value!r} answers the values of "
          f"{effect.name}={default!r} unchanged", expected=f"values in {value!r}, converted from {default!r}",
          received=f"{len(found)} values equal to the {default!r} ones, e.g. {found[0][0]} = {found[0][2]}",
          exchange=exchange)
    apart = [(pointer, old, new) for pointer, old, new in found
             if abs(new - rate * old) > max(Decimal("0.01"), Decimal("0.001") * abs(rate * old))]
    check(not apart, rule, f"{effect.subject} with {effect.name}={value!r} converts its values at more than "
          f"one rate", expected=f"every value {rate:.6g} times its {default!r} value (as most are)",
          received="; ".join(f"{p}: {old} -> {new} ({new / old:.6g} times)" for p, old, new in apart[:4]),
          exchange=exchange)
    verified(effect, "converted")
    return len(found)


def assert_superset(effect: Declaration, more: list[Any], fewer: list[Any], *, exchange: Exchange,
                    values: tuple[Any, Any]) -> None:
    """Every item of the smaller answer is in the larger one."""
    missing = [key for key in fewer if key not in set(more)]
    check(not missing, effect.rule, f"{effect.subject} with {effect.name}={values[0]!r} drops items that "
          f"{effect.name}={values[1]!r} returns", expected=f"every item of {effect.name}={values[1]!r} too",
          received=f"{len(missing)} missing, e.g. {missing[:3]}", exchange=exchange)
    verified(effect)


def assert_pages_agree(effect: Declaration, pages: list[Page], whole: dict[str, Any], key: Callable[[Any], str],
                       value: Callable[[Any], Any], *, sent: dict[str, Any]) -> int:
    """An item on any page of a walk is the item one larger page with the same parameters shows: a parameter that
    holds for the first page holds for the next."""
    compared = 0
    judged_pages = []
    for number, (exchange, items) in enumerate(pages, 1):
        for item in items:
            other = whole.get(key(item))
            if other is None:
                continue
            compared += 1
            judged_pages.append(number)
            if value(item) != value(other):
                fail(effect.rule, f"{effect.subject} with {sent} answers page {number} of a walk unlike one larger "
                     f"page", expected=f"{str(value(other))[:300]}", received=str(value(item))[:300],
                     exchange=exchange)
    if compared:
        held(effect.rule, pages[-1][0])
    _pages_verified(effect, judged_pages)
    return compared
