"""Every declaration of meaning has a fault derived from it (or says why none can be), each derived fault breaks its
declaration's rule alone, and the deviations it is made of keep to the forms the documents write."""
from __future__ import annotations

import json
from typing import Any

import pytest
from werkzeug.test import Client

from conformance.meaning.declarations import Declaration
from conformance.reference.calls import RestCall
from conformance.reference.faults import REGISTRY
from conformance.reference.middleware import Fault
from conformance.reference.faults import derived
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World
from conformance.rules import load_catalogue

DECLARATIONS = derived.candidates()
WORLD = World(0)
SAMPLES = WORLD.samples()


def test_every_declaration_has_a_fault_or_says_why_not() -> None:
    """Each checked effect, invariant, identity, chronology and write of every API has one derived fault for every
    operator of its kind, or a reason from the listed ones; an operator left out of one declaration says why."""
    faults = list(derived.DERIVED.values())
    for declaration in DECLARATIONS:
        reason = derived.not_derivable(declaration)
        derived_from = sorted(c.operator for c in faults if c.declaration is declaration)
        operators = [] if reason else [op.operator for op in derived.OPERATORS[declaration.kind]
                                       if op.operator not in derived.unfit(declaration)]
        assert derived_from == sorted(operators), declaration.id
        assert reason is None or reason in [*derived.NOT_DERIVABLE.values(), *derived.UNSEEN.values()], reason
        assert reason is not None or all(why for why in derived.unfit(declaration).values())


def test_every_kind_s_operators_have_names_of_their_own() -> None:
    """The first operator of a kind is the kind's own (its faults keep their names); every other has a name."""
    for kind, operators in derived.OPERATORS.items():
        assert operators[0].operator == "" and all(op.operator for op in operators[1:]), kind
        assert len({op.operator for op in operators}) == len(operators), kind


def test_the_data_api_s_effects_all_have_faults() -> None:
    """Every checked effect of the Data API is derived: its kinds are all ones a fault is known for."""
    data = [d for d in DECLARATIONS if d.api == "data" and d.kind not in ("invariant", "identity", "chronology")]
    assert data and [d.id for d in data if derived.not_derivable(d) is not None] == []


def test_a_kind_no_fault_is_known_for_is_listed_not_skipped() -> None:
    """A declaration of a kind no fault is known for gets a reason naming the kind, never silence."""
    unknown = Declaration("data", "rearrangement", "listUtxos", "sortBy", "DATA-PAG-010", "quote", {})
    assert "rearrangement" in (derived.not_derivable(unknown) or "")
    for kind, why in derived.NOT_DERIVABLE.items():
        assert kind not in derived.KINDS and why


def test_derived_faults_are_registered_under_their_declaration_s_name() -> None:
    """`conformance serve-reference --fault NAME` and the mutation tests find each one by a name read from its
    declaration."""
    for name, cls in derived.DERIVED.items():
        declaration = cls.declaration
        assert REGISTRY[name] is cls
        assert name.startswith(f"Derived_{declaration.subject}_".replace(".", "_"))
        assert declaration.kind in name
    assert "Derived_listUtxos_assetId_filter" in REGISTRY
    assert "Derived_listUtxos_sortOrder_order_asc" in REGISTRY   # two orders of one parameter, apart by value


def test_each_derived_fault_breaks_its_declaration_s_rule_and_says_how() -> None:
    """A derived fault names one rule, its declaration's (or the one its operator breaks the sentence of: a value
    not converted breaks what the projected values are), and its summary the operation, the rule and the
    deviation."""
    catalogue = load_catalogue()
    for name, cls in derived.DERIVED.items():
        declaration = cls.declaration
        assert cls.breaks == cls.charged(declaration) and len(cls.breaks) == 1, name
        assert cls.breaks[0] in catalogue and (cls.breaks == (declaration.rule,) or cls.operator), name
        summary = cls.summary()
        assert declaration.subject in summary and declaration.rule in summary and len(summary) > 80, name


def test_faults_are_handed_the_world_and_the_clean_reference_is_unchanged() -> None:
    """The reference hands each fault its world once; a fault that changes nothing changes no answer."""
    class Seen(Fault):
        breaks = ("DATA-FLT-031",)
        world: Any = None

        def attach(self, world: World) -> None:
            self.world = world
    seen = Seen()
    ReferenceApp(WORLD, [seen])
    assert seen.world is WORLD
    path = "/v1/networks/mainnet/blockchains/p-chain/transactions"
    clean = Client(ReferenceApp(WORLD)).get(path).get_data()
    assert Client(ReferenceApp(WORLD, [Fault()])).get(path).get_data() == clean


# The deviations the faults are made of ---------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (7, 8), ("41", "42"), ("0x00ff", "0x0100"), ("0xFF", "0x00"), (True, False),
    ("NodeID-abc123", "NodeID-321cba"), ("avax1qxyz", "avax1zyxq"), ("usd", "dsu")])
def test_a_perturbed_value_keeps_its_form(value: Any, expected: Any) -> None:
    assert derived.perturbed(value) == expected


def test_a_value_no_reversal_changes_still_changes() -> None:
    assert derived.perturbed("aba") != "aba"


def _route(subject: str) -> derived.Route:
    route = derived.operations("data")[subject]
    assert isinstance(route, derived.Route)
    return route


def _call(route: str, path: str, **query: str) -> RestCall:
    return RestCall(api="data", method="GET", route=route, path=path, path_params={"network": "mainnet"},
                    query={name: [value] for name, value in query.items()}, headers={})


def test_after_the_first_page_is_a_later_page_or_a_whole_list() -> None:
    route = _route("listValidators")
    call = _call(route.template, "/v1/networks/mainnet/validators")
    assert not route.later(call, {"validators": [], "nextPageToken": "t"})
    assert route.later(call, {"validators": []})
    assert route.later(_call(route.template, "/x", pageToken="t"), {"nextPageToken": "u"})
    assert _route("getNativeBalance").later(call, {})


def test_a_bound_is_widened_by_its_step_and_never_past_its_documented_range() -> None:
    app = ReferenceApp(WORLD)
    fault = derived.DERIVED["Derived_listValidators_minFeePercentage_bound"]()
    fault.changed_an_answer = True   # no plain call beside the fault's own, made to learn whether it changed one
    seen: list[str | None] = []

    def proceed(call: RestCall) -> Any:
        seen.append(call.first("minFeePercentage"))
        return app.data.dispatch(call)
    route = _route("listValidators")
    for sent in ("2.5", "2"):
        fault.rest(_call(route.template, "/v1/networks/mainnet/validators", minFeePercentage=sent), proceed)
    assert seen == ["2.49", "2"]   # 2 is the documented minimum: one step wider would be refused


def _answer(client: Client, path: str, **query: Any) -> tuple[int, Any]:
    reply = client.get(path, query_string=query)
    return reply.status_code, json.loads(reply.get_data())


def test_a_filter_lets_an_excluded_item_through_after_the_first_page_only() -> None:
    clean = Client(ReferenceApp(WORLD))
    faulty = Client(ReferenceApp(WORLD, [REGISTRY["Derived_listValidators_validationStatus_filter"]()]))
    path = "/v1/networks/mainnet/validators"
    query = {"validationStatus": "active", "pageSize": 2}
    assert _answer(clean, path, **query) == _answer(faulty, path, **query)
    token = _answer(clean, path, **query)[1]["nextPageToken"]
    status, later = _answer(faulty, path, **query, pageToken=token)
    assert status == 200 and {v["validationStatus"] for v in later["validators"]} - {"active"}


def test_a_spelling_is_answered_apart_from_the_value_it_stands_for() -> None:
    faulty = Client(ReferenceApp(WORLD, [REGISTRY["Derived_listTransactions_blockchainId_spelling"]()]))
    chain_id = SAMPLES["data_p_chain_id"]
    by_id = _answer(faulty, f"/v1/networks/mainnet/blockchains/{chain_id}/transactions")[1]["transactions"]
    by_alias = _answer(faulty, "/v1/networks/mainnet/blockchains/p-chain/transactions")[1]["transactions"]
    assert by_alias == by_id[1:]


def test_an_invariant_fault_breaks_its_invariant_and_keeps_the_others() -> None:
    from conformance.meaning import invariants

    faulty = Client(ReferenceApp(WORLD, [REGISTRY["Derived_Utxo_amount_invariant"]()]))
    reply = faulty.post("/v1/networks/mainnet/blockchains/p-chain/utxos", content_type="application/json",
                        data=json.dumps({"addresses": SAMPLES["data_p_chain_address"]}))
    utxos = json.loads(reply.get_data())["utxos"]
    verdicts = [(i.declaration.name, ok) for utxo in utxos for i, ok in invariants.judged("data", "Utxo", utxo, {})]
    assert utxos and {ok for name, ok in verdicts if name == "amount"} == {False}
    assert all(ok for name, ok in verdicts if name != "amount")


def test_a_map_s_entries_are_items_by_key() -> None:
    answer = {"loggerLevels": {"C": {"logLevel": "INFO"}, "P": {"logLevel": "WARN"}}}
    items = derived.items_at(answer, "loggerLevels{}")
    assert items == [{"@key": "C", "logLevel": "INFO"}, {"@key": "P", "logLevel": "WARN"}]
    assert derived.with_items(answer, "loggerLevels{}", items[1:]) == {"loggerLevels": {"P": {"logLevel": "WARN"}}}


def test_a_moment_keeps_its_form_when_the_order_of_time_is_broken() -> None:
    assert derived._at("2024-05-01T10:00:00.123456789Z", 1_700_000_000) == "2023-11-14T22:13:20.123456789Z"
    assert derived._at("0x10", 32) == "0x20" and derived._at(5, 7) == 7


def test_an_identity_its_calls_can_never_show_twice_is_listed() -> None:
    """Two calls of one method that differ in the parameter naming the object asked for show two objects."""
    calls = [{"method": "eth_getBlockByNumber", "params": ["0x1", True]},
             {"method": "eth_getBlockByNumber", "params": ["0x2", True]}]
    apart = Declaration("evm", "identity", "Transaction", "eth-transaction", "RPC-EFF-004", "quote",
                        {"kind": "eth-transaction", "key": ["hash"], "scope": ["endpoint"], "seen_by": calls})
    assert "seen_by" in (derived.not_derivable(apart) or "")
    again = Declaration("evm", "identity", "Block", "eth-block", "RPC-EFF-004", "quote",
                        {"kind": "eth-block", "key": ["hash"], "scope": ["endpoint"],
                         "seen_by": [calls[0], {"method": "eth_getBlockByNumber", "params": ["0x1", False]}]})
    assert derived.not_derivable(again) is None
