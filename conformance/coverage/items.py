"""Coverage items and how their counters become covered, partial, not reached or unreachable, and percents.

An item has a valid side (a value the contract allows, answered as allowed) and an invalid side (a value it
forbids, refused). A side no request can show (any query text is a string) is not asked for. An item is covered
when every side it has was seen, partial when one was, not reached otherwise; an item no conformant target can be
made to answer (5XX, 429, 401/403 without a key) is unreachable, listed apart and counted only once reached.
A partial item counts half in the percent.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: What the exchanges of a run show of each document (counted as they arrive, conformance.coverage.recorder).
DIMENSIONS = ("operations", "parameters", "keywords", "examples", "responses", "response_keywords")
#: Every dimension of a report: those, and the declared effects and relations checks verified (coverage.effects).
REPORTED = (*DIMENSIONS, "effects")
STATES = ("covered", "partial", "not_reached", "unreachable")
#: The sides one observation credits.
VALID, INVALID, REACHED = "valid", "invalid", "reached"


@dataclass(frozen=True)
class Shape:
    """What an item asks for: which sides exist, and whether its valid side needs the bound itself or every
    enum member accepted."""

    valid: bool = True
    invalid: bool = True
    bound: bool = False
    members: tuple[Any, ...] | None = None
    unreachable: bool = False


@dataclass(frozen=True)
class Update:
    """One observation: `side` of `item` in `dimension` of `operation`, seen once."""

    operation: str
    dimension: str
    item: str
    side: str
    at_bound: bool = False
    member: Any = None


@dataclass
class Tally:
    """The counters of one item; small and fixed in size whatever the run's length."""

    shape: Shape
    valid: int = 0
    invalid: int = 0
    reached: int = 0
    at_bound: int = 0
    members: set[Any] = field(default_factory=set)

    def add(self, update: Update) -> None:
        if update.side == VALID:
            self.valid += 1
            self.at_bound += update.at_bound
            if update.member is not None and self.shape.members is not None and update.member in self.shape.members:
                self.members.add(update.member)
        elif update.side == INVALID:
            self.invalid += 1
        else:
            self.reached += 1

    def _valid_done(self) -> bool:
        if not self.shape.valid:
            return True
        if self.shape.bound:
            return self.at_bound > 0
        if self.shape.members is not None:
            return self.valid > 0 and len(self.members) == len(set(self.shape.members))
        return self.valid > 0

    @property
    def status(self) -> str:
        seen = self.valid + self.invalid + self.reached > 0
        if not seen:
            return "unreachable" if self.shape.unreachable else "not_reached"
        if self._valid_done() and (not self.shape.invalid or self.invalid > 0):
            return "covered"
        return "partial"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status}
        if self.shape.valid:
            out["valid"] = self.valid
        if self.shape.invalid:
            out["invalid"] = self.invalid
        if self.reached:
            out["reached"] = self.reached
        if self.shape.bound:
            out["at_bound"] = self.at_bound
        if self.shape.members is not None:
            missing = [member for member in self.shape.members if member not in self.members]
            if missing:
                out["members_not_accepted"] = missing
        return out


def summary(tallies: list[Tally]) -> dict[str, Any]:
    """covered, partial, total (every item but the unreachable ones not reached), unreachable and percent."""
    states = [tally.status for tally in tallies]
    covered, partial = states.count("covered"), states.count("partial")
    unreachable = states.count("unreachable")
    total = len(states) - unreachable
    percent = round((covered + partial / 2) / total * 100, 1) if total else None
    return {"covered": covered, "partial": partial, "total": total, "unreachable": unreachable, "percent": percent}
