"""The miner of undeclared relations (conformance/meaning/miner.py): what it proposes and leaves out on objects made
up by hand, and specs/mined.yaml kept current by mining a quick run of the embedded reference: every candidate is
declared or listed, every entry is still found, and every quote is the document's."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.clients.http import Exchange
from conformance.meaning import miner
from conformance.meaning.answers import answer_of
from conformance.meaning.declarations import DOCUMENTS
from conformance.reporting.har import HarWriter
from tests import documents

#: The moment the made-up objects are answered at.
NOW = 1_780_000_000.0


def relations(rows: Sequence[Mapping[str, Any]], arrived: float | None = NOW, minimum: int = miner.MIN_OBJECTS,
              ) -> set[str]:
    """The relations the miner proposes over made-up objects of a made-up component (no schema: every member)."""
    seen = [miner.Seen.of(row, arrived) for row in rows]
    return {candidate.relation for candidate in miner.candidates_of("made-up", "Thing", seen, minimum)}


# Proposed ---------------------------------------------------------------------------------------------------------

def test_an_ordering_that_held_on_every_object_is_proposed() -> None:
    rows = [{"start": 1000 + 7 * i, "end": 1000 + 7 * i + i % 5} for i in range(30)]
    assert relations(rows) == {"start <= end"}


def test_an_ordering_that_never_met_equality_is_strict() -> None:
    rows = [{"start": 1000 + 7 * i, "end": 1001 + 7 * i + i % 5} for i in range(30)]
    assert relations(rows) == {"start < end"}


def test_an_equality_is_found_through_the_forms_of_numbers_and_nested_objects() -> None:
    # hex and decimal text are the numbers they write, as members.number reads them
    rows = [{"amount": str(10 ** 20 + i * 3), "asset": {"amount": hex(10 ** 20 + i * 3)}} for i in range(25)]
    assert relations(rows) == {"amount == asset.amount"}


def test_a_constant_ratio_and_a_sum_are_found_exactly_without_the_orderings_they_imply() -> None:
    ratio = [{"staked": 25 * (10 ** 12 + 977 * i), "reward": 10 ** 12 + 977 * i} for i in range(25)]
    assert relations(ratio) == {"staked == 25 * reward"}
    sums = [{"total": (3 * i) % 17 + (5 * i) % 13, "a": (3 * i) % 17, "b": (5 * i) % 13} for i in range(1, 40)]
    assert "total == a + b" in relations(sums)
    assert not {"a <= total", "b <= total"} & relations(sums)


def test_an_ordering_implied_by_two_others_is_left_out() -> None:
    rows = [{"a": 10 * i, "b": 10 * i + 1 + i % 3, "c": 10 * i + 5 + i % 4} for i in range(30)]
    assert relations(rows) == {"a < b", "b < c"}


def test_a_unix_time_never_after_the_answer_is_proposed_against_now() -> None:
    rows = [{"createdAt": int(NOW) - 3600 * i} for i in range(30)]
    assert relations(rows) == {"createdAt <= now"}
    # one later than the answer that showed it, and it is not a relation of the answers any more
    assert relations([*rows, {"createdAt": int(NOW) + 60}]) == set()
    # a time below another time that is never after the answer is implied by the two
    rows = [{"start": int(NOW) - 3600 * i - 7 * (i % 4), "end": int(NOW) - 3600 * i} for i in range(30)]
    assert relations(rows) == {"start <= end", "end <= now"}


def test_a_percentage_s_bounds_the_schema_does_not_state_are_proposed() -> None:
    rows = [{"uptime": 90 + i / 4} for i in range(30)]
    assert relations(rows) == {"0 <= uptime <= 100"}
    assert relations([{"share": i / 40} for i in range(30)]) == {"0 <= share <= 1"}


def test_a_bound_the_schema_states_is_not_proposed() -> None:
    percentage: list[dict[str, Any]] = [{"type": "number", "minimum": 0}, {"maximum": 100}]
    assert miner.bounded_by(percentage, miner.Decimal(0), miner.Decimal(100))
    assert miner.bounded_by(percentage, miner.Decimal(0), None)
    assert not miner.bounded_by(percentage, miner.Decimal(0), miner.Decimal(1))   # a fraction is tighter
    assert not miner.bounded_by([{"type": "number"}], miner.Decimal(0), None)
    # no member of the specs' resources states a bound: DataPoint's value is unbounded there
    assert not miner._stated("metrics", "DataPoint", "value", miner.Decimal(0), None)


# Left out ---------------------------------------------------------------------------------------------------------

def test_a_relation_broken_by_one_object_is_not_proposed() -> None:
    rows = [{"start": 1000 + 7 * i, "end": 1000 + 7 * i + i % 5} for i in range(30)]
    rows.append({"start": 2000, "end": 1999})
    assert relations(rows) == set()


def test_a_member_with_one_value_is_not_proposed() -> None:
    rows = [{"start": 1000 + 7 * i, "end": 1000 + 7 * i + i % 5, "status": 200, "rate": "0.5"} for i in range(30)]
    assert relations(rows) == {"start <= end"}


def test_no_member_is_related_to_itself() -> None:
    rows = [{"a": i, "b": i * 2 + 1, "c": i + 3} for i in range(30)]
    found = miner.candidates_of("made-up", "Thing", [miner.Seen.of(row) for row in rows])
    assert found and all(len(set(candidate.members)) == len(candidate.members) for candidate in found)


def test_an_ordering_the_ranges_alone_make_is_not_proposed() -> None:
    # a small count is below a timestamp on every object, and would be paired with any other object's too
    rows = [{"count": i % 10, "time": 1_700_000_000 + 97 * i} for i in range(30)]
    assert not any("count" in relation and "time" in relation for relation in relations(rows, arrived=None))


def test_too_few_objects_say_nothing() -> None:
    rows = [{"start": 1000 + 7 * i, "end": 1001 + 7 * i} for i in range(miner.MIN_OBJECTS - 1)]
    assert relations(rows) == set()


def test_identifiers_and_texts_are_not_quantities() -> None:
    assert miner.quantity("0x" + "ab" * 20) is None     # an address names, it does not count
    assert miner.quantity("0x1a") == 26
    assert miner.quantity("12.50") == miner.Decimal("12.50")
    assert miner.quantity(0.1) == miner.Decimal("0.1")
    assert miner.quantity(True) is None and miner.quantity("NodeID-abc") is None and miner.quantity("nan") is None


# Verdicts ---------------------------------------------------------------------------------------------------------

def candidate(api: str, component: str, kind: str, relation: str, *members: str) -> miner.Candidate:
    return miner.Candidate(api, component, kind, relation, members, 30)


def test_a_relation_an_invariant_states_is_declared_and_one_under_a_condition_only_related() -> None:
    bound = candidate("validators", "CurrentValidator", "bound", "0 <= uptimePercentage <= 100", "uptimePercentage")
    declaration = miner.declared_by(bound)
    assert declaration is not None and declaration.rule == "RPC-INV-001"
    # DATA-INV-013 says an *active* validation has started by now: the unconditional relation is not it
    started = candidate("data", "Validator", "now", "startTimestamp <= now", "startTimestamp")
    assert miner.declared_by(started) is None
    assert [d.rule for d in miner.related(started)] == ["DATA-INV-013"]


def test_a_candidate_is_judged_by_the_listing_else_unjudged() -> None:
    found = candidate("data", "Thing", "order", "a <= b", "a", "b")
    listing = {found.key: {"verdict": "not backed", "why": "made up"}}
    assert [(j.verdict, j.reason) for j in miner.judged([found], listing)] == [("not backed", "made up")]
    assert [j.verdict for j in miner.judged([found], {})] == ["unjudged"]
    assert miner.stale([], ["data"], listing) == [found.key]


def test_an_archive_is_read_back_as_the_answers_it_holds(tmp_path: Path) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"result":{"validators":[]}}'
    sent = Exchange("POST", "http://127.0.0.1:1/ext/bc/abc/validators", {"content-type": "application/json"},
                    b'{"jsonrpc":"2.0","id":1,"method":"validators.getCurrentValidators","params":{}}',
                    status=200, response_headers={"content-type": "application/json"}, body=body, elapsed=0.25,
                    number=7, sent_at=NOW)
    writer = HarWriter(tmp_path / "run.har")
    writer(sent)
    writer.close()
    [read] = miner.read_har(tmp_path / "run.har")
    assert (read.method, read.url, read.request_body, read.status, read.body) == \
        (sent.method, sent.url, sent.request_body, 200, body)
    assert abs(read.sent_at + read.elapsed - (NOW + 0.25)) < 0.002
    answer = answer_of(read)
    assert answer is not None and answer.subject == "validators.getCurrentValidators"


# specs/mined.yaml ---------------------------------------------------------------------------------------------------

def test_every_entry_has_a_verdict_and_its_reason() -> None:
    listing = miner.listed()
    assert listing
    for key, entry in listing.items():
        assert entry.get("verdict") in miner.VERDICTS, key
        assert entry.get("why" if entry["verdict"] == "not backed" else "quote"), key


@pytest.mark.parametrize("key", [key for key, entry in miner.listed().items() if entry.get("verdict") == "to declare"],
                         ids=" ".join)
def test_every_relation_to_declare_quotes_its_document_verbatim(key: tuple[str, str, str]) -> None:
    text = documents.collapse(documents.text(DOCUMENTS[key[0]])).replace("`", "")
    for fragment in str(miner.listed()[key]["quote"]).split(" … "):
        assert documents.collapse(fragment).replace("`", "") in text, fragment


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> list[miner.Candidate]:
    """The candidates of a quick run of the embedded reference (every API: it takes well under a minute), judged
    at the reference's own moment: its world stands still, months before the wall's clock."""
    har = tmp_path_factory.mktemp("miner") / "run.har"
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--profile", "quick", "--report-dir", "",
                           "--har", str(har)], capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1) and har.is_file(), done.stderr[-2000:]
    return miner.mine(miner.observe(miner.read_har(har), miner.reference_now()))


def test_every_candidate_on_the_reference_is_declared_or_listed(mined: list[miner.Candidate]) -> None:
    unjudged = [judgement for judgement in miner.judged(mined) if judgement.verdict == "unjudged"]
    assert not unjudged, ("relations no invariant declares and specs/mined.yaml does not list: declare each, or "
                          "list it (not backed, why; or to declare, quote):\n"
                          + "\n".join(f"  {j.candidate} ({j.candidate.support} objects); {j.reason}"
                                      for j in unjudged))


def test_every_listed_relation_is_still_found_and_undeclared(mined: list[miner.Candidate]) -> None:
    gone = miner.stale(mined, list(DOCUMENTS))   # the run tested every API
    assert not gone, ("specs/mined.yaml lists relations the reference's answers no longer show, or that an "
                      "invariant now declares: remove them:\n" + "\n".join(f"  {' '.join(key)}" for key in gone))
