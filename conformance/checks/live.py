"""Comparing two answers of a target that moves while it is read.

Two requests that must answer alike (an alias and the chain ID, an omitted parameter and its default) are
sent one after the other; on a live chain the data may change in between. Rather than hoping for a quiet
moment, the first request is read again after the second: the two agree when the second answer is what the
first request could have answered at some moment between its two reads. On a target that stands still this is
plain equality, so a real difference is never excused.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar
from collections.abc import Callable, Sequence

from conformance.clients.http import Exchange
from conformance.meaning import members

#: What a request gives back: an exchange, or a walk of several pages read as one answer.
Read = TypeVar("Read")

def held_between(before: Any, middle: Any, after: Any, *, timeline: bool = False) -> bool:
    """Whether `middle` is what an answer held at some moment between its reads `before` and `after`.

    With `timeline`, the answers are pages of one list that grows at one end (newest first or oldest first):
    `middle` may then be any window of the list as it stood between the two reads, as long as it is as long
    as they are. Either way, an answer of the reads' shape whose every number lies between theirs is held (a
    counter that moved on while each read took longer than its step).
    """
    if middle == before or middle == after or _between_leaf_by_leaf(before, middle, after):
        return True
    if not timeline or not _sequences(before, middle, after) or not middle:
        return False
    if not min(len(before), len(after)) <= len(middle) <= max(len(before), len(after)):
        return False
    newest_first = list(after) + [item for item in before if item not in after]
    oldest_first = list(before) + [item for item in after if item not in before]
    return _contiguous(middle, newest_first) or _contiguous(middle, oldest_first)


def _between_leaf_by_leaf(before: Any, middle: Any, after: Any) -> bool:
    """Whether `middle` has the shape both reads have and each of its values is one of theirs, a number between
    theirs: a counter that moved on between three reads (seconds of uptime, a block height), when each read takes
    longer than the counter's step. Where the two reads agree the middle must equal them."""
    if middle == before or middle == after:
        return True
    if isinstance(middle, dict) and isinstance(before, dict) and isinstance(after, dict):
        return middle.keys() == before.keys() == after.keys() and all(
            _between_leaf_by_leaf(before[key], middle[key], after[key]) for key in middle)
    if isinstance(middle, list) and isinstance(before, list) and isinstance(after, list):
        return len(middle) == len(before) == len(after) and all(
            _between_leaf_by_leaf(*values) for values in zip(before, middle, after))
    low, value, high = members.number(before), members.number(middle), members.number(after)
    if low is None or value is None or high is None:
        return False
    return min(low, high) <= value <= max(low, high)


@dataclass
class Agreement:
    """The outcome of comparing two live reads: whether they agreed, and the last values compared."""

    agreed: bool
    first: Any
    second: Any
    exchange: Exchange | None   # the second request's last answer (a walk's, as its reader hands it back)


def agree_while_live(send_first: Callable[[], Read], send_second: Callable[[], Read],
                     value: Callable[[Read], Any], *,
                     earlier: tuple[Read | None, Read | None] = (None, None), timeline: bool = False,
                     rounds: int = 3) -> Agreement:
    """Sends the second request between two sends of the first, until the `value` of the second answer is held
    between the values of the first's two answers.

    `earlier` are answers to the first and the second request received before (shared with other tests): when
    their values are equal nothing is sent; an earlier answer to the first request serves as its first read.
    """
    earlier_first, earlier_second = earlier
    first = value(earlier_first if earlier_first is not None else send_first())
    if earlier_second is not None and value(earlier_second) == first:
        return Agreement(True, first, first, _exchange(earlier_second))
    exchange: Any = None
    second = None
    for _ in range(rounds):
        exchange = send_second()
        second = value(exchange)
        if second == first:
            return Agreement(True, first, second, _exchange(exchange))
        again = value(send_first())
        if held_between(first, second, again, timeline=timeline):
            return Agreement(True, again, second, _exchange(exchange))
        first = again
    return Agreement(False, first, second, _exchange(exchange))


def _exchange(read: Any) -> Exchange | None:
    """The exchange that stands for a read: itself, or the first page of a walk."""
    if read is None or isinstance(read, Exchange):
        return read
    exchanges = getattr(getattr(read, "walk", None), "exchanges", None)
    return exchanges[0] if exchanges else None


def _sequences(*values: Any) -> bool:
    return all(isinstance(value, Sequence) and not isinstance(value, (str, bytes)) for value in values)


def _contiguous(part: Sequence[Any], whole: Sequence[Any]) -> bool:
    size = len(part)
    return any(list(whole[start:start + size]) == list(part) for start in range(len(whole) - size + 1))
