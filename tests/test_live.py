"""Comparing answers of a target that moves while it is read: lenient on growth, exact on a target at rest."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.live import agree_while_live, held_between

NEWEST_FIRST = [f"tx{i}" for i in range(20, 0, -1)]   # tx20 is the newest


def window(start: int, size: int = 5) -> list[str]:
    return NEWEST_FIRST[start:start + size]


@pytest.mark.parametrize(("before", "middle", "after", "held"), [
    (window(4), window(4), window(4), True),          # at rest, the same
    (window(4), window(2), window(0), True),          # newest first, grown by two between the reads
    (window(4), window(0), window(0), True),
    (window(2), window(3), window(0), False),         # older than the earlier read: not between
    (window(4), window(5), window(4), False),         # shifted by one while at rest: a real difference
    (window(4), window(4)[::-1], window(0), False),   # another order
    (window(4), window(4)[:4], window(0), False),     # a shorter page
    (window(4), ["other"] * 5, window(0), False),     # other data
    (window(0, 3), window(0, 4), window(0, 5), True),  # oldest first, a short list that grows
])
def test_a_window_is_held_between_two_reads_of_a_growing_list(before: list[str], middle: list[str],
                                                               after: list[str], held: bool) -> None:
    assert held_between(before, middle, after, timeline=True) is held


def test_without_a_timeline_a_list_is_held_only_when_equal_to_a_read() -> None:
    assert held_between(window(4), window(2), window(0)) is False
    assert held_between("a", "b", "b") and not held_between("a", "b", "c")


def test_a_counter_that_moved_on_between_the_reads_is_held_where_it_lies_between_them() -> None:
    """Seconds of uptime read three times, each read slower than a second: every read differs."""
    def validator(uptime: Any, node: str = "NodeID-A") -> dict[str, Any]:
        return {"validators": [{"nodeID": node, "uptimeSeconds": uptime, "weight": "20"}]}
    assert held_between(validator(9), validator(10), validator(11))
    assert held_between(validator("9"), validator("10"), validator("11"))
    assert not held_between(validator(9), validator(12), validator(11))         # not between: a real difference
    assert not held_between(validator(9), validator(10), validator(9))          # at rest: only equal is held
    assert not held_between(validator(9), validator(10, "NodeID-B"), validator(11))   # another object
    assert not held_between(validator(9), {"validators": []}, validator(11))   # another shape


def sends(*answers: Any) -> Any:
    """Stands in for a request: each call returns the next answer (compared as it is)."""
    return iter(answers).__next__


def same(answer: Any) -> Any:
    return answer


def test_agreement_reads_the_second_between_two_reads_of_the_first() -> None:
    outcome = agree_while_live(sends(window(4), window(0)), sends(window(2)), same, timeline=True)
    assert outcome.agreed and outcome.second == window(2)


def test_agreement_fails_on_a_difference_that_stays() -> None:
    outcome = agree_while_live(sends(*[window(4)] * 4), sends(*[window(5)] * 3), same, timeline=True)
    assert not outcome.agreed and (outcome.first, outcome.second) == (window(4), window(5))


def test_earlier_equal_reads_send_nothing() -> None:
    def never() -> Any:
        raise AssertionError("no request expected")
    outcome = agree_while_live(never, never, same, earlier=("a", "a"))
    assert outcome.agreed
