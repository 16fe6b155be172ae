"""The rule catalogue is well-formed, cites the documents verbatim, and covers them."""
from __future__ import annotations

from collections import Counter

import pytest
import yaml

from conformance.rules import DOCUMENTS, ID_PATTERN, LEVELS, load_catalogue, parse_rules
from conformance.specs import ALL_APIS, specs_dir
from tests import documents

CATALOGUE = load_catalogue()
RULES = list(CATALOGUE)
PREFIX_BY_DOC = {"1-node-jsonrpc-apis.md": "RPC-", "2-data-api.md": "DATA-", "3-metrics-api.md": "MET-"}


def test_rule_ids_are_unique_across_files() -> None:
    ids = [entry["id"] for path in (specs_dir() / "rules").glob("*.yaml")
           for entry in yaml.safe_load(path.read_text())["rules"]]
    assert [rid for rid, n in Counter(ids).items() if n > 1] == []


def test_the_catalogue_is_large_enough_to_cover_three_documents() -> None:
    assert len(RULES) > 100
    for doc in PREFIX_BY_DOC:
        assert sum(rule.doc == doc for rule in RULES) >= 30, doc


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_rule_is_well_formed(rule) -> None:
    assert ID_PATTERN.match(rule.id)
    assert rule.level in LEVELS
    assert rule.doc in DOCUMENTS
    assert rule.id.startswith(PREFIX_BY_DOC[rule.doc]), "the ID family names the document"
    assert set(rule.apis) <= set(ALL_APIS) and rule.apis
    assert rule.title and not rule.title.endswith("."), "titles are one sentence without a full stop"
    assert (rule.standard is not None) == (rule.level == "standard"), "standard rules name their standard"
    assert rule.untestable is None or rule.untestable.strip()


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_rule_quotes_its_section_verbatim(rule) -> None:
    sections = documents.sections(rule.doc)
    assert rule.section in sections, f"{rule.doc} has no heading {rule.section!r}"
    body = documents.collapse(sections[rule.section])
    for fragment in rule.quote.split(" … "):
        assert documents.collapse(fragment) in body, f"not verbatim in {rule.section!r}: {fragment!r}"


def test_a_malformed_entry_is_reported_with_its_file() -> None:
    with pytest.raises(ValueError, match="broken.yaml"):
        parse_rules({"rules": [{"id": "RPC-X-001"}]}, "broken.yaml")


def test_titles_are_unique_within_a_document() -> None:
    seen = Counter((rule.doc, rule.title.lower()) for rule in RULES)
    assert [key for key, n in seen.items() if n > 1] == []
