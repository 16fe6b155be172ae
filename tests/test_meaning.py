"""The declarations of meaning in the specs: every parameter declared, every declaration well-formed and quoting
its document, and the pieces that turn them into checks (members, spellings, instances, invariants, identities,
writes, the watch) doing what they say."""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from conformance import evidence, specs
from conformance.clients.http import Exchange
from conformance.meaning import declarations, identities, instances, invariants, members, writes
from conformance.meaning.spellings import spelling
from conformance.meaning.watch import Watch
from conformance.rules import load_catalogue
from tests import documents

DECLARATIONS = declarations.all_declarations()


# Every parameter, every declaration ------------------------------------------------------------------------------

@pytest.mark.parametrize("api", specs.ALL_APIS)
def test_every_parameter_of_every_operation_declares_its_effect(api: str) -> None:
    declared = declarations.declared(api)
    missing = {subject: sorted(set(names) - declared[subject])
               for subject, names in declarations.parameters(api).items() if set(names) - declared[subject]}
    assert missing == {}


@pytest.mark.parametrize("api", specs.ALL_APIS)
def test_no_declaration_names_a_parameter_that_does_not_exist(api: str) -> None:
    parameters = declarations.parameters(api)
    unknown = {subject: sorted(names - set(parameters[subject]))
               for subject, names in declarations.declared(api).items() if names - set(parameters[subject])}
    assert unknown == {}


def _raw(api: str) -> dict[str, Any]:
    return specs.openapi(api) if api in specs.REST_APIS else specs.openrpc(api)


@pytest.mark.parametrize("api", specs.ALL_APIS)
def test_every_declaration_follows_the_vocabulary(api: str) -> None:
    vocabulary = declarations.vocabulary()
    document = _raw(api)
    operations = [op for item in document.get("paths", {}).values() for op in item.values() if isinstance(op, dict)] \
        if api in specs.REST_APIS else document["methods"]
    for operation in operations:
        for key, definition in (("x-effects", "effects"), ("x-writes", None)):
            if key not in operation:
                continue
            schema = {**vocabulary, "$ref": f"#/$defs/{definition}"} if definition else \
                {**vocabulary, "type": "array", "items": {"$ref": "#/$defs/write"}}
            jsonschema.validate(operation[key], schema)
    for schema_name, schema in document.get("components", {}).get("schemas", {}).items():
        for key, definition in (("x-invariants", "invariant"), ("x-identity", "identity"),
                                ("x-chronology", "chronology")):
            for entry in schema.get(key, []):
                jsonschema.validate(entry, {**vocabulary, "$ref": f"#/$defs/{definition}"}), schema_name
    if "x-spellings" in document:
        jsonschema.validate(document["x-spellings"], {**vocabulary, "$ref": "#/$defs/spellings"})


@pytest.mark.parametrize("declaration", [d for d in DECLARATIONS if d.rule], ids=str)
def test_every_declaration_is_charged_to_a_rule_of_its_api(declaration: declarations.Declaration) -> None:
    catalogue = load_catalogue()
    for rule in {declaration.rule, *(declaration.get(key) for key in ("keeps", "keeps_all", "without", "alone",
                                                                       "leaves") if declaration.get(key))}:
        assert rule in catalogue, rule
        assert declaration.api in catalogue[rule].apis


@pytest.mark.parametrize("declaration", list(DECLARATIONS), ids=str)
def test_every_declaration_quotes_its_document_verbatim(declaration: declarations.Declaration) -> None:
    text = documents.collapse(documents.text(declarations.DOCUMENTS[declaration.api]))
    for fragment in declaration.quote.split(" … "):
        assert documents.collapse(fragment).replace("`", "") in text.replace("`", ""), fragment


def test_a_checked_declaration_of_a_kind_the_suite_derives_nothing_for_is_refused() -> None:
    derived = {"filter", "bound", "order", "switch", "label", "projection", "spelling", "default", "moment",
               "echo"}
    assert {d.kind for d in declarations.checked(declarations.effects())} <= derived


# Members, spellings, instances ------------------------------------------------------------------------------------

def test_member_paths_step_into_arrays_keys_and_values() -> None:
    item = {"asset": {"amount": "7"}, "addresses": ["a", "b"], "levels": {"main": {"logLevel": "INFO"}}}
    assert members.values(item, "asset.amount") == ["7"]
    assert members.values(item, "addresses[]") == ["a", "b"]
    assert members.values(item, "levels{}") == ["main"]
    assert members.values(item, "levels.*.logLevel") == ["INFO"]
    assert members.values(item, ["missing", "asset.amount"]) == ["7"]
    assert members.values({"x": None}, "x") == []


def test_values_compare_as_the_documents_write_them() -> None:
    assert members.number("0x10") == 16 and members.number("12") == 12 and members.number(True) is None
    assert members.canonical({"a": "0xAB", "b": "10", "c": 2.0, "d": None}) == {"a": 171, "b": 10, "c": 2}
    assert members.instant("2024-01-01T00:00:00.5Z") == 1704067200.5
    assert members.instant("2024-01-01T00:00:00") is None   # no offset: not an instant


def test_spelling_tables_name_one_value_for_every_spelling() -> None:
    network = spelling("data", "network", sample=lambda name: None)
    assert network.canonical("testnet") == network.canonical("fuji")
    aliases = spelling("data", "blockchainId", sample=lambda name: None, network="fuji")
    assert aliases.canonical("x-chain") == aliases.canonical(aliases.groups[1][0])
    prefixes = spelling("data", "addresses", sample=lambda name: None)
    assert prefixes.canonical("P-avax1q") == "avax1q" and prefixes.others("avax1q", prefix="P-") == ["P-avax1q"]


def test_instances_follow_the_response_schema_to_every_named_object() -> None:
    schema = specs.rpc_method("validators", "validators.getCurrentValidators")["result"]["schema"]
    result = {"validators": [{"nodeID": "NodeID-a"}, {"nodeID": "NodeID-b"}]}
    found = [(name, pointer) for name, pointer, _ in instances.instances("validators", schema, result)]
    assert ("CurrentValidator", "/validators/1") in found
    cleared = instances.without("validators", schema, result, ("CurrentValidator",))
    assert cleared == {"validators": [None, None]}


# Invariants, identities, chronologies, writes -------------------------------------------------------------------

def test_an_invariant_holds_decides_or_leaves_an_object_alone() -> None:
    vertex = next(i for i in invariants.by_component("data")["Vertex"] if i.declaration.name == "txCount")
    assert vertex.holds({"txCount": 2, "transactions": ["a", "b"]}, {}) is True
    assert vertex.holds({"txCount": 3, "transactions": ["a", "b"]}, {}) is False
    assert vertex.applies({"txCount": 3}) is False
    assert vertex.holds({"txCount": "x", "transactions": "y"}, {}) in (False, None)


def test_one_object_seen_twice_must_agree_where_both_show_a_member() -> None:
    identity = identities.by_component("data")["Vertex"][0]
    book = identities.IdentityMap()
    key = identity.key({"vertexHash": "h"}, ("mainnet",))
    assert key is not None
    assert book.see(identity, key, {"vertexHash": "h", "vertexHeight": 1}, object()) is False
    assert book.see(identity, key, {"vertexHash": "h", "vertexHeight": 1, "txCount": 2}, object()) is True
    found = book.see(identity, key, {"vertexHash": "h", "vertexHeight": "2"}, object())
    assert isinstance(found, identities.Disagreement) and set(found.differing) == {"vertexHeight"}
    # a number written as a string is the same value: a difference of form is the shape rules'
    assert book.see(identity, key, {"vertexHash": "h", "vertexHeight": "1"}, object()) is True


def test_a_disagreement_between_two_spellings_is_the_spelling_s_rule() -> None:
    identity = identities.by_component("data")["Block"][0]
    key = ("block", ("mainnet", "chain"), "h")
    book = identities.IdentityMap()
    book.see(identity, key, {"blockHash": "h", "txCount": 1}, object(), "listBlocksByNode",
             {"network": "mainnet", "blockchainId": "p-chain"})
    found = book.see(identity, key, {"blockHash": "h", "txCount": 2}, object(), "listBlocksByNode",
                     {"network": "mainnet", "blockchainId": "11111111111111111111111111111111LpoYY"})
    assert isinstance(found, identities.Disagreement)
    assert identities.charged_rule(found, "listBlocksByNode",
                                   {"network": "mainnet", "blockchainId": "11111111111111111111111111111111LpoYY"}) \
        == "DATA-SEM-006"


def test_a_chronology_finds_the_neighbour_out_of_order() -> None:
    order = declarations.of_kind("chronology", "index")[0]
    book = identities.IdentityMap()
    assert book.place(order, ("/ext/index/X/tx",), {"index": "1", "timestamp": "2024-01-01T00:00:01Z"}, 1) is True
    assert book.place(order, ("/ext/index/X/tx",), {"index": "3", "timestamp": "2024-01-01T00:00:03Z"}, 2) is True
    out = book.place(order, ("/ext/index/X/tx",), {"index": "2", "timestamp": "2024-01-01T00:00:04Z"}, 3)
    assert isinstance(out, tuple) and out[0][2] == 3


def test_a_write_changes_exactly_the_declared_paths() -> None:
    before = writes.flatten({"main": {"logLevel": "INFO", "displayLevel": "INFO"},
                             "http": {"logLevel": "INFO", "displayLevel": "INFO"}})
    after = {**before, "http.logLevel": "DEBUG", "main.logLevel": "TRACE"}
    variables = {"logger": "http", "level": "DEBUG"}
    expected = writes.expected_changes({"$logger.logLevel": "$level"}, before, variables)
    assert writes.missing(expected, after) == {}
    assert writes.extra(writes.diff(before, after), expected, ["$logger.displayLevel"], variables) == {
        "main.logLevel": ("INFO", "TRACE")}
    assert writes.flatten({"aliases": ["a"]}, "chain") == {"chain.aliases/a": True}


# The watch ------------------------------------------------------------------------------------------------------

def _answer(url: str, body: Any, request: Any = None, number: int = 1) -> Exchange:
    return Exchange(method="POST" if request else "GET", url=url, request_headers={},
                    request_body=json.dumps(request).encode() if request else None, status=200,
                    response_headers={"content-type": "application/json"}, body=json.dumps(body).encode(),
                    number=number)


def test_the_watch_records_a_broken_invariant_in_the_running_test_s_ledger() -> None:
    watch = Watch()
    url = "http://t/v1/networks/mainnet/blockchains/x-chain/vertices:listByHeight?vertexHeight=1"
    ledger = evidence.Ledger()
    with evidence.recording(ledger):
        watch.record(_answer(url, {"vertices": [{"vertexHash": "h", "txCount": 3, "transactions": ["a"]}]}))
    assert [v.rule.id for v in ledger.violations] == ["DATA-INV-001"]


def test_the_watch_compares_one_object_across_two_answers() -> None:
    watch = Watch()
    first = "http://t/v1/networks/mainnet/blockchains/x-chain/vertices:listByHeight?vertexHeight=1"
    second = "http://t/v1/networks/mainnet/blockchains/x-chain/vertices:listByHeight?vertexHeight=1&pageSize=1"
    ledger = evidence.Ledger()
    with evidence.recording(ledger):
        watch.record(_answer(first, {"vertices": [{"vertexHash": "h", "vertexTimestamp": 5}]}, number=1))
        watch.record(_answer(second, {"vertices": [{"vertexHash": "h", "vertexTimestamp": 6}]}, number=2))
    assert [v.rule.id for v in ledger.violations] == ["DATA-IDN-001"]
    assert "#1" in ledger.violations[0].expected and "#2" in ledger.violations[0].received
