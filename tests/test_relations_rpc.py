"""Relations of document 1 the suite decides: the reference honours each, each relation fault of the reference
changes an answer, and the checks excuse what a live target may do between two reads but nothing else."""
from __future__ import annotations

import json
from typing import Any

import pytest
from werkzeug.test import Client

from conformance.checks.evm_extras import precompile_times
from conformance.checks.validators import differing_entries
from conformance.errors import Violation
from conformance.reference.faults import all_faults, fault_named
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World

SEED = 7
WORLD = World(SEED)
NODE = WORLD.node
RPC = f"bc/{WORLD.evm_blockchain_id}/rpc"
OTHER_RPC = f"bc/{NODE.other_evm_blockchain_id}/rpc"
VALIDATORS = f"bc/{WORLD.evm_blockchain_id}/validators"
HEAD = NODE.evm.latest(WORLD.clock.now)
XTX = NODE.indexes["index/X/tx"]
XTX_LAST = XTX.count(WORLD.clock.now) - 1
#: An account that sends transactions on the EVM chain (the Data API's wallet of it).
WALLET = WORLD.data.wallet(str(WORLD.evm_chain_id))
Step = tuple[str, dict[str, Any]]


def body(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def client(*faults: str) -> Client:
    return Client(ReferenceApp(World(SEED), [fault_named(name) for name in faults]))


def post(api: Client, path: str, payload: dict[str, Any]) -> tuple[int, bytes]:
    reply = api.post("/ext/" + path, data=json.dumps(payload), headers={"Content-Type": "application/json"})
    return reply.status_code, reply.get_data()


def result(api: Client, path: str, method: str, params: Any) -> Any:
    status, data = post(api, path, body(method, params))
    answer = json.loads(data)
    assert status == 200 and "result" in answer, answer
    return answer["result"]


def idx(method: str, path: str = "index/X/tx", **params: Any) -> Step:
    return path, body(method, {"encoding": "hex", **params})


@pytest.fixture
def api() -> Client:
    return client()


# --- the reference honours every relation ---

def test_a_transaction_is_counted_from_its_block_on_and_its_fee_moves_its_senders_balance(api: Client) -> None:
    block = result(api, RPC, "eth_getBlockByNumber", [hex(HEAD - 3), True])
    for tx in block["transactions"]:
        sender, nonce = tx["from"], int(tx["nonce"], 16)
        counts = [int(result(api, RPC, "eth_getTransactionCount", [sender, hex(n)]), 16) for n in (HEAD - 4, HEAD - 3)]
        assert counts == [nonce, nonce + 1]
        balances = [result(api, RPC, "eth_getBalance", [sender, hex(n)]) for n in (HEAD - 4, HEAD - 3)]
        assert balances[0] != balances[1]
    senders = {tx["from"] for tx in block["transactions"]}
    assert len(senders) == len(block["transactions"]), "one transaction per sender and block"
    idle = next(a for a in result(api, RPC, "eth_getBlockByNumber", [hex(HEAD - 2), True])["transactions"]
                if a["from"] not in senders)["from"]
    assert result(api, RPC, "eth_getBalance", [idle, hex(HEAD - 4)]) == result(api, RPC, "eth_getBalance",
                                                                               [idle, hex(HEAD - 3)])


def test_the_fee_config_of_a_block_is_the_one_in_force_then(api: Client) -> None:
    latest = result(api, RPC, "eth_feeConfig", ["latest"])
    changed = latest["lastChangedAt"]
    assert result(api, RPC, "eth_feeConfig", [hex(changed)]) == latest
    assert result(api, RPC, "eth_feeConfig", [hex(changed - 1)])["lastChangedAt"] <= changed - 1


def test_precompiles_are_active_from_their_activation_timestamp_on(api: Client) -> None:
    head = int(result(api, RPC, "eth_getBlockByNumber", ["latest", False])["timestamp"], 16)
    activations = precompile_times(result(api, RPC, "eth_getActiveRulesAt", [head]))
    assert any(stamp > 0 for stamp in activations.values())
    for name, stamp in activations.items():
        assert precompile_times(result(api, RPC, "eth_getActiveRulesAt", [stamp]))[name] == stamp
        if stamp:
            assert all(t <= stamp - 1 for t in precompile_times(result(api, RPC, "eth_getActiveRulesAt",
                                                                       [stamp - 1])).values())


def test_the_node_runs_a_second_evm_chain_apart_from_the_first(api: Client) -> None:
    for method, params in (("eth_chainId", []), ("eth_getBlockByNumber", ["0x0", False])):
        assert result(api, RPC, method, params) != result(api, OTHER_RPC, method, params)
    assert result(api, OTHER_RPC, "eth_getChainConfig", [])["chainId"] == int(result(api, OTHER_RPC, "eth_chainId",
                                                                                        []), 16)
    assert post(api, f"bc/{NODE.other_evm_blockchain_id}/validators", body("validators.getCurrentValidators", {}))[0] \
        == 404
    assert result(api, "admin", "admin.getChainAliases", {"chain": NODE.other_evm_blockchain_id}) == {"aliases": []}


def test_a_range_has_the_logs_each_of_its_blocks_has(api: Client) -> None:
    logs = result(api, RPC, "eth_getLogs", [{"fromBlock": hex(HEAD - 1), "toBlock": hex(HEAD)}])
    own = [log for n in (HEAD - 1, HEAD)
           for log in result(api, RPC, "eth_getLogs", [{"blockHash": NODE.evm.block_hash(n)}])]
    assert own and logs == own


# --- the checks ---

def test_a_filtered_validator_may_differ_only_as_its_entry_moved_between_two_reads() -> None:
    before = [{"nodeID": "NodeID-a", "weight": 5, "uptimeSeconds": 100, "isConnected": True}]
    after = [{"nodeID": "NodeID-a", "weight": 5, "uptimeSeconds": 104, "isConnected": False}]
    moved = [{"nodeID": "NodeID-a", "weight": 5, "uptimeSeconds": 102, "isConnected": False}]
    assert differing_entries(moved, before, after) == {}
    other = [{"nodeID": "NodeID-a", "weight": 6, "uptimeSeconds": 102, "isConnected": True}]
    assert set(differing_entries(other, before, after)["NodeID-a"]) == {"weight"}
    assert differing_entries([{"nodeID": "NodeID-b", "weight": 1}], before, after) == {}


def test_a_fee_config_at_a_block_before_the_last_change_may_not_name_that_change() -> None:
    from conformance.checks.evm_extras import check_fee_config_at

    latest = {"feeConfig": {"gasLimit": 2}, "lastChangedAt": 10}
    check_fee_config_at(12, latest, (latest, latest), exchange=None)  # type: ignore[arg-type]  # no exchange outside a run
    check_fee_config_at(9, {"feeConfig": {"gasLimit": 1}, "lastChangedAt": 0}, (latest, latest),
                        exchange=None)  # type: ignore[arg-type]  # no exchange outside a run
    with pytest.raises(Violation, match="RPC-EVM-036"):
        check_fee_config_at(9, latest, (latest, latest), exchange=None)  # type: ignore[arg-type]  # no exchange outside a run
    changed = {"feeConfig": {"gasLimit": 3}, "lastChangedAt": 11}
    check_fee_config_at(12, changed, (latest, changed), exchange=None)  # type: ignore[arg-type]  # no exchange outside a run


# --- each relation fault changes an answer ---

#: Relation fault -> requests whose answers it changes (tests/reference/test_node_reference.py has the others').
PROBES: dict[str, list[Step]] = {
    "IsAcceptedTrueForAnyId": [idx("index.isAccepted", id=NODE.indexes["index/C/block"].container_id(3))],
    "IsAcceptedSearchesEveryIndex": [idx("index.isAccepted", id=NODE.indexes["index/C/block"].container_id(3))],
    "IndexPathServesAnotherIndex": [idx("index.getContainerByIndex", "index/X/block", index=0)],
    "RangeStartAtLastRefused": [idx("index.getContainerRange", startIndex=XTX_LAST, numToFetch=1)],
    "FeeConfigBlockIgnored": [(RPC, body("eth_feeConfig", ["0x0"]))],
    "ActiveRulesTimestampIgnored": [(RPC, body("eth_getActiveRulesAt", [0]))],
    "ActiveRulesActivateAfterTimestamp": [(RPC, body("eth_getActiveRulesAt", [0]))],
    "ChainConfigOfAnotherChain": [(RPC, body("eth_getChainConfig", []))],
    "EthTransactionCountBlockIgnored": [(RPC, body("eth_getTransactionCount", [WALLET, "0x10"]))],
    "EthBalanceBlockIgnored": [(RPC, body("eth_getBalance", [WALLET, "0x10"]))],
    "EthLogsToBlockExclusive": [(RPC, body("eth_getLogs", [{"fromBlock": hex(HEAD - 1), "toBlock": hex(HEAD)}]))],
    "NodeIdsFilterMismatchesEntries": [(VALIDATORS, body("validators.getCurrentValidators",
                                                         {"nodeIDs": [str(NODE.validators[4]["nodeID"])]}))],
    "ChainAliasRoutedToAnotherChain": [("admin", body("admin.aliasChain",
                                                      {"chain": WORLD.evm_blockchain_id, "alias": "l1"})),
                                       ("bc/l1/rpc", body("eth_chainId", []))],
    "SetLoggerLevelWithNameChangesAll": [("admin", body("admin.setLoggerLevel",
                                                        {"loggerName": "C", "logLevel": "WARN"})),
                                         ("admin", body("admin.getLoggerLevel", {}))],
    "ChainAliasServesRpcOnly": [("admin", body("admin.aliasChain", {"chain": WORLD.evm_blockchain_id, "alias": "l1"})),
                                ("bc/l1/validators", body("validators.getCurrentValidators", {}))],
    "EndpointAliasRoutedToAnotherChain": [("admin", body("admin.alias", {"endpoint": RPC, "alias": "l1rpc"})),
                                          ("l1rpc", body("eth_chainId", []))],
}

RELATION_FAULTS = sorted(PROBES)


@pytest.mark.parametrize("name", RELATION_FAULTS)
def test_relation_fault_changes_the_answer(name: str) -> None:
    clean, faulty = client(), client(name)
    answers = [[post(api, path, payload) for path, payload in PROBES[name]] for api in (clean, faulty)]
    assert answers[0] != answers[1], f"{name} answers its probe like the clean reference"


def test_every_relation_rule_has_a_fault_here() -> None:
    from conformance.rules import load_catalogue

    relations = {"RPC-ADM-035", "RPC-IDX-042", "RPC-IDX-043", "RPC-IDX-044", "RPC-EVM-036", "RPC-EVM-037",
                 "RPC-EVM-038", "RPC-ETH-022", "RPC-ETH-023", "RPC-ETH-024", "RPC-VAL-019"}
    assert relations <= {rule.id for rule in load_catalogue()}
    broken = {rule for fault in all_faults() if fault.__name__ in PROBES for rule in fault.breaks}
    assert relations <= broken
