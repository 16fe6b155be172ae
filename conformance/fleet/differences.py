"""The odd one out: among targets that serve the same chain, the answers that differ from the majority's.

Each target's answers.json holds its answers to the same read-only requests (conformance.fleet.answers). For each
request answered by at least three targets of a group, the answers are put in classes of equal answers, after
the normalisations `conformance compare` makes for a live chain (volatile members by shape, lists read oldest
first cut to what both hold, the latest pages by shape). A class holding more than half of the answers is the
majority; a target outside it differs, on the JSON pointers where its answer and the majority's differ. A
request answered by two targets only, or without a majority, names nobody: two answers that disagree do not say
which one is wrong.

A target whose head (an index's last container, the EVM chain's last block) is lower than the heads of more than
half of its group is *behind*: it has not reached what the others serve. That is reported once per head, apart
from its answers for positions it has reached, which are compared like any other.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from conformance.compare.differ import compare_outcomes
from conformance.compare.normalize import Outcome, PathRules, latest_pages, open_ended

DIFFERS = "differs"
BEHIND = "behind"
#: Pointers kept per difference: an answer unlike every other one differs everywhere.
MAX_POINTERS = 50


@dataclass
class Difference:
    """One target's answer unlike its group's majority (`differs`), or a head below the majority's (`behind`)."""

    target: str
    kind: str
    chain: str
    request: str
    operation: str
    pointers: list[str] = field(default_factory=list)
    majority: list[str] = field(default_factory=list)   # the targets whose answer is the majority's
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target, "kind": self.kind, "chain": self.chain, "request": self.request,
                "operation": self.operation, "pointers": self.pointers, "majority": self.majority,
                "detail": self.detail}


def _outcome(answer: dict[str, Any]) -> Outcome:
    return Outcome(str(answer.get("outcome")), answer.get("value"), ok=bool(answer.get("ok")),
                   unavailable=bool(answer.get("unavailable")) or answer.get("outcome") == "no answer")


def _normalised(answer: dict[str, Any], a: Outcome, b: Outcome) -> tuple[Outcome, Outcome]:
    """Two answers as `conformance compare` compares them: an open-ended list cut to what both hold, the latest
    pages without the difference one item more at the head makes."""
    if not (a.ok and b.ok):
        return a, b
    if answer.get("open_end"):
        values = open_ended(a.value, b.value, str(answer["open_end"]))
    elif answer.get("head"):
        values = latest_pages(a.value, b.value)
    else:
        return a, b
    return replace(a, value=values[0]), replace(b, value=values[1])


def differences_between(answer: dict[str, Any], a: Outcome, b: Outcome) -> list[str]:
    """The JSON pointers where two answers to the same request differ ("" for the answer as a whole)."""
    a, b = _normalised(answer, a, b)
    rules = PathRules(str(answer.get("operation")), everything_volatile=bool(answer.get("head")))
    root = ("result",) if str(answer.get("api")) in ("admin", "index", "evm", "validators") else ()
    pointers = [d.path for d in compare_outcomes(a, b, rules, root=root)]
    return list(dict.fromkeys(pointers))


def _classes(answer: dict[str, Any], outcomes: dict[str, Outcome]) -> list[list[str]]:
    """Targets grouped by equal answers (each compared with the first of a class)."""
    classes: list[list[str]] = []
    for name, outcome in outcomes.items():
        for members in classes:
            if not differences_between(answer, outcomes[members[0]], outcome):
                members.append(name)
                break
        else:
            classes.append([name])
    return classes


def odd_ones_out(chain: str, recorded: dict[str, dict[str, Any]]) -> list[Difference]:
    """The differences of a group: `recorded` maps each target of the chain to its answers.json content."""
    out: list[Difference] = []
    names = sorted(recorded)
    if len(names) < 3:
        return out
    behind = _behind(chain, recorded)
    out += behind
    by_key: dict[str, dict[str, dict[str, Any]]] = {}
    for name in names:
        for answer in recorded[name].get("answers") or []:
            if isinstance(answer, dict) and isinstance(answer.get("key"), str):
                by_key.setdefault(answer["key"], {})[name] = answer
    for key in sorted(by_key):
        answers = by_key[key]
        outcomes = {name: _outcome(answer) for name, answer in answers.items()}
        outcomes = {name: o for name, o in outcomes.items() if not o.unavailable}
        if len(outcomes) < 3:
            continue
        first = next(iter(answers.values()))
        classes = sorted(_classes(first, outcomes), key=len, reverse=True)
        majority = classes[0]
        if len(majority) * 2 <= len(outcomes):
            continue
        for members in classes[1:]:
            for name in members:
                if first.get("head") and any(d.target == name for d in behind):
                    continue   # a head below the others': reported as behind, not as an answer of its own
                pointers = differences_between(first, outcomes[majority[0]], outcomes[name])
                out.append(Difference(name, DIFFERS, chain, key, str(first.get("operation")),
                                      pointers[:MAX_POINTERS], sorted(majority),
                                      f"answers {outcomes[name].code} unlike {len(majority)} of "
                                      f"{len(outcomes)} targets"))
    return out


def _behind(chain: str, recorded: dict[str, dict[str, Any]]) -> list[Difference]:
    """A target whose head is below the heads of more than half of the group, once per head."""
    out = []
    heads: dict[str, dict[str, int]] = {}
    pointers: dict[str, str] = {}
    for name, content in recorded.items():
        for key, head in (content.get("heads") or {}).items():
            if isinstance(head, dict) and isinstance(head.get("height"), int):
                heads.setdefault(key, {})[name] = head["height"]
                pointers[key] = str(head.get("pointer", ""))
    for key in sorted(heads):
        heights = heads[key]
        for name, height in sorted(heights.items()):
            ahead = sorted(other for other, h in heights.items() if h > height)
            if len(ahead) * 2 > len(recorded):
                operation = key.split(" ")[2] if key.count(" ") >= 2 else key
                out.append(Difference(name, BEHIND, chain, key, operation, [pointers[key]], ahead,
                                      f"at {height}; {len(ahead)} of {len(recorded)} targets are at "
                                      f"{min(heights[o] for o in ahead)} or beyond"))
    return out


#: The name of a group of targets found to serve the same chain: this prefix and the start of its fingerprint.
FOUND = "found-"


def chains(recorded: dict[str, dict[str, Any]], declared: dict[str, str]) -> dict[str, list[str]]:
    """Chain name -> its targets: the chain declared for each target (merge --chain), else the one its
    answers.json names; targets that name none are grouped by the chain they were found to serve (the same first
    containers and genesis block), when at least two serve it."""
    groups: dict[str, list[str]] = {}
    found: dict[str, list[str]] = {}
    for name in sorted(recorded):
        chain = declared.get(name) or recorded[name].get("chain")
        if isinstance(chain, str) and chain:
            groups.setdefault(chain, []).append(name)
        elif isinstance(fingerprint := recorded[name].get("fingerprint"), str) and fingerprint:
            found.setdefault(FOUND + fingerprint[:12], []).append(name)
    groups.update({chain: names for chain, names in found.items() if len(names) >= 2 and chain not in groups})
    return groups


def fleet_differences(recorded: dict[str, dict[str, Any]], declared: dict[str, str]) -> list[Difference]:
    """Every difference of every group of targets that serve the same chain."""
    out: list[Difference] = []
    for chain, members in chains(recorded, declared).items():
        out += odd_ones_out(chain, {name: recorded[name] for name in members})
    return out
