"""The reference's node JSON-RPC APIs answer as 1-node-jsonrpc-apis.md says, and each node fault changes an answer."""
from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from werkzeug.test import Client

from conformance.reference.faults import all_faults, fault_named
from conformance.reference.node.world import P_CHAIN_ID
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World
from conformance.rules import load_catalogue

SEED = 7
WORLD = World(SEED)
EVM_ID = WORLD.evm_blockchain_id
RPC = f"bc/{EVM_ID}/rpc"
EXTRAS = ("eth_feeConfig", "eth_getChainConfig", "eth_getActiveRulesAt")
VALIDATORS = f"bc/{EVM_ID}/validators"
INDEXES = ("index/C/block", "index/P/block", "index/X/tx", "index/X/block", "index/X/vtx")
XTX = WORLD.node.indexes["index/X/tx"]
XTX_LAST = XTX.count(WORLD.clock.now) - 1
_ABSENT = object()


def body(method: str, params: Any = _ABSENT, id_: Any = 1) -> dict[str, Any]:
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not _ABSENT:
        payload["params"] = params
    return payload


def client(*faults: str, seed: int = SEED) -> Client:
    return Client(ReferenceApp(World(seed), [fault_named(name) for name in faults]))


def post(api: Client, path: str, payload: Any) -> tuple[int, str, bytes]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    reply = api.post("/ext/" + path, data=data, headers={"Content-Type": "application/json"})
    return reply.status_code, reply.headers.get("Content-Type", ""), reply.get_data()


def call(api: Client, path: str, method: str, params: Any = _ABSENT, id_: Any = 1) -> dict[str, Any]:
    status, _, data = post(api, path, body(method, params, id_))
    assert status == 200, data
    return json.loads(data)


def result(api: Client, path: str, method: str, params: Any = _ABSENT) -> Any:
    reply = call(api, path, method, params)
    assert "error" not in reply, reply
    return reply["result"]


def error(api: Client, path: str, method: str, params: Any = _ABSENT) -> dict[str, Any]:
    reply = call(api, path, method, params)
    assert "result" not in reply and isinstance(reply["error"]["code"], int), reply
    assert isinstance(reply["error"]["message"], str)
    return reply["error"]


def hexp(**extra: Any) -> dict[str, Any]:
    return {"encoding": "hex", **extra}


@pytest.fixture
def api() -> Client:
    return client()


# --- construction and envelope ---

def test_envelope_echoes_ids_and_declares_json(api: Client) -> None:
    status, content_type, data = post(api, "admin", body("admin.getLoggerLevel", {}, id_=42))
    reply = json.loads(data)
    assert (status, reply["jsonrpc"], reply["id"]) == (200, "2.0", 42) and "error" not in reply
    assert content_type.startswith("application/json")
    assert call(api, "admin", "admin.getLoggerLevel", {}, id_="abc")["id"] == "abc"
    assert call(api, "admin", "admin.nope", {}, id_=9)["error"]["code"] == -32601


@pytest.mark.parametrize("raw", [b"{not json", b"42", b'"text"', b"[]"])
def test_malformed_bodies_get_error_objects(api: Client, raw: bytes) -> None:
    status, _, data = post(api, "index/X/tx", raw)
    reply = json.loads(data)
    assert status == 200 and isinstance(reply, dict) and isinstance(reply["error"]["code"], int)


def test_unknown_paths_are_not_found(api: Client) -> None:
    for path in ("nope", "index/X/nope", f"bc/{EVM_ID}/nope", "bc/C/rpc", "bc/P/validators"):
        assert post(api, path, body("eth_chainId", []))[0] == 404


@pytest.mark.parametrize("method,path", [("admin.lockProfile", "admin"), ("admin.memoryProfile", "admin"),
                                         ("admin.loadVMs", "admin"), ("eth_getChainConfig", RPC)])
def test_parameterless_methods_answer_without_params(api: Client, method: str, path: str) -> None:
    result(api, path, method)


# --- admin ---

def test_endpoint_alias_bounds_and_routing(api: Client) -> None:
    longest = "a" * 512
    assert result(api, "admin", "admin.alias", {"endpoint": "index/X/tx", "alias": longest}) == {}
    assert result(api, longest, "index.getLastAccepted", hexp())["index"] == str(XTX_LAST)
    assert result(api, "index/X/tx", "index.getLastAccepted", hexp())["index"] == str(XTX_LAST)
    error(api, "admin", "admin.alias", {"endpoint": "index/X/tx", "alias": "b" * 513})
    error(api, "admin", "admin.alias", {"endpoint": "index/X/tx", "alias": ""})
    error(api, "admin", "admin.alias", {"endpoint": "index/P/block", "alias": longest})   # taken
    error(api, "admin", "admin.alias", {"endpoint": "index/X/tx", "alias": "admin"})      # a served path
    error(api, "admin", "admin.alias", {"endpoint": "index/Q/tx", "alias": "q"})          # nothing there
    error(api, "admin", "admin.alias", {"alias": "x"})
    assert post(api, "b" * 513, body("index.getLastAccepted", hexp()))[0] == 404


def test_chain_aliases(api: Client) -> None:
    assert result(api, "admin", "admin.getChainAliases", {"chain": EVM_ID}) == {"aliases": []}
    assert "X" in result(api, "admin", "admin.getChainAliases", {"chain": WORLD.node.x_chain_id})["aliases"]
    assert result(api, "admin", "admin.getChainAliases", {"chain": P_CHAIN_ID})["aliases"] == ["P", "platform"]
    assert result(api, "admin", "admin.aliasChain", {"chain": EVM_ID, "alias": "myl1"}) == {}
    assert result(api, "admin", "admin.getChainAliases", {"chain": EVM_ID}) == {"aliases": ["myl1"]}
    assert result(api, "bc/myl1/rpc", "eth_chainId", []) == hex(WORLD.evm_chain_id)
    assert result(api, "bc/myl1/validators", "validators.getCurrentValidators", {})["validators"]
    error(api, "admin", "admin.aliasChain", {"chain": EVM_ID, "alias": "X"})      # already an alias
    error(api, "admin", "admin.aliasChain", {"chain": "nochain", "alias": "z"})
    # an endpoint alias may name a path that uses a chain alias
    assert result(api, "admin", "admin.alias", {"endpoint": "bc/myl1/rpc", "alias": "l1rpc"}) == {}
    assert result(api, "l1rpc", "eth_chainId", []) == hex(WORLD.evm_chain_id)


def test_logger_levels(api: Client) -> None:
    levels = result(api, "admin", "admin.getLoggerLevel", {})["loggerLevels"]
    assert {"C", "P", "X", "main", "http"} <= set(levels)
    assert all(set(v) == {"logLevel", "displayLevel"} for v in levels.values())
    assert result(api, "admin", "admin.getLoggerLevel", {"loggerName": "C"}) == {"loggerLevels": {"C": levels["C"]}}
    error(api, "admin", "admin.getLoggerLevel", {"loggerName": "nope"})
    error(api, "admin", "admin.setLoggerLevel", {"loggerName": "C"})
    error(api, "admin", "admin.setLoggerLevel", {})
    error(api, "admin", "admin.setLoggerLevel", {"logLevel": "LOUD"})
    assert result(api, "admin", "admin.setLoggerLevel", {"loggerName": "C", "logLevel": "debug"}) == {}
    assert result(api, "admin", "admin.getLoggerLevel", {"loggerName": "C"})["loggerLevels"]["C"] == \
        {"logLevel": "DEBUG", "displayLevel": levels["C"]["displayLevel"]}
    assert result(api, "admin", "admin.setLoggerLevel", {"displayLevel": "DEBUG"}) == {}
    after = result(api, "admin", "admin.getLoggerLevel", {})["loggerLevels"]
    assert all(v["displayLevel"] == "DEBUG" for v in after.values()) and after["P"]["logLevel"] == "INFO"


def test_load_vms_fails_on_odd_calls(api: Client) -> None:
    first, second = result(api, "admin", "admin.loadVMs", {}), result(api, "admin", "admin.loadVMs")
    assert first["failedVMs"] and all(isinstance(m, str) for m in first["failedVMs"].values())
    assert "failedVMs" not in second and set(first["failedVMs"]) <= set(second["newVMs"])
    assert all(isinstance(names, list) and names for names in second["newVMs"].values())


def test_cpu_profiler_states(api: Client) -> None:
    error(api, "admin", "admin.stopCPUProfiler", {})
    assert result(api, "admin", "admin.startCPUProfiler", {}) == {}
    error(api, "admin", "admin.startCPUProfiler")
    assert result(api, "admin", "admin.stopCPUProfiler") == {}
    assert result(api, "admin", "admin.lockProfile", {}) == {} == result(api, "admin", "admin.memoryProfile", {})


# --- index ---

RFC3339_FRACTION = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d)$")


@pytest.mark.parametrize("path", INDEXES)
def test_each_index_serves_consistent_containers(api: Client, path: str) -> None:
    last = result(api, path, "index.getLastAccepted", hexp())
    n = int(last["index"])
    assert n >= 1000 and last == result(api, path, "index.getContainerByIndex", hexp(index=n))
    items = result(api, path, "index.getContainerRange", hexp(startIndex=n - 4, numToFetch=10))
    assert [c["index"] for c in items] == [str(i) for i in range(n - 4, n + 1)] and items[-1] == last
    stamps = [c["timestamp"] for c in items]
    assert stamps == sorted(stamps) and all(RFC3339_FRACTION.match(s) for s in stamps)
    assert all(c["encoding"] == "hex" and re.fullmatch(r"0x[0-9a-f]+", c["bytes"]) for c in items)
    middle = items[2]
    assert result(api, path, "index.getContainerByID", hexp(id=middle["id"])) == middle
    assert result(api, path, "index.getIndex", hexp(id=middle["id"])) == {"index": middle["index"]}
    assert result(api, path, "index.isAccepted", hexp(id=middle["id"])) == {"isAccepted": True}


def test_range_bounds(api: Client) -> None:
    path = "index/X/tx"
    assert len(result(api, path, "index.getContainerRange", hexp(startIndex=0, numToFetch=1024))) == 1024
    assert result(api, path, "index.getContainerRange", hexp(startIndex=0, numToFetch=0)) is None
    assert result(api, path, "index.getContainerRange", hexp(startIndex=XTX_LAST + 5, numToFetch=0)) is None
    error(api, path, "index.getContainerRange", hexp(startIndex=0, numToFetch=1025))
    error(api, path, "index.getContainerRange", hexp(startIndex=XTX_LAST + 1, numToFetch=1))
    error(api, path, "index.getContainerRange", hexp(startIndex=-1, numToFetch=1))
    assert len(result(api, path, "index.getContainerRange", hexp(startIndex=XTX_LAST - 1, numToFetch=9))) == 2


def test_index_lookups_that_fail(api: Client) -> None:
    other = WORLD.node.indexes["index/C/block"].container_id(3)
    for method in ("index.getContainerByID", "index.getIndex"):
        error(api, "index/X/tx", method, hexp(id=other))
        error(api, "index/X/tx", method, hexp(id=XTX.container_id(XTX_LAST + 1)))
    assert result(api, "index/X/tx", "index.isAccepted", hexp(id=other)) == {"isAccepted": False}
    error(api, "index/X/tx", "index.getContainerByIndex", hexp(index=XTX_LAST + 1))
    for encoding in ("cb58", "json", "HEX"):
        error(api, "index/X/tx", "index.getLastAccepted", {"encoding": encoding})


def test_live_world_grows_all_indexes_but_the_legacy_one() -> None:
    world = World(SEED)
    api = Client(ReferenceApp(world))
    before = {p: int(result(api, p, "index.getLastAccepted", hexp())["index"]) for p in INDEXES}
    for _ in range(5):
        world.advance()
    after = {p: int(result(api, p, "index.getLastAccepted", hexp())["index"]) for p in INDEXES}
    assert after["index/X/vtx"] == before["index/X/vtx"]
    assert all(after[p] > before[p] for p in INDEXES if p != "index/X/vtx")
    newest = result(api, "index/X/tx", "index.getLastAccepted", hexp())["timestamp"]
    assert newest <= time.strftime("%Y-%m-%dT%H:%M:%S.999999Z", time.gmtime(world.clock.now))


# --- EVM ---

def test_fee_config_block_parameters(api: Client) -> None:
    latest = result(api, RPC, "eth_feeConfig", [])
    assert latest == result(api, RPC, "eth_feeConfig") == result(api, RPC, "eth_feeConfig", ["latest"])
    assert set(latest["feeConfig"]) == {"gasLimit", "targetBlockRate", "minBaseFee", "targetGas",
                                        "baseFeeChangeDenominator", "minBlockGasCost", "maxBlockGasCost",
                                        "blockGasCostStep"}
    assert isinstance(latest["lastChangedAt"], int) and latest["lastChangedAt"] > 0
    head = result(api, RPC, "eth_getBlockByNumber", ["latest", False])
    assert result(api, RPC, "eth_feeConfig", [head["hash"]]) == latest
    assert result(api, RPC, "eth_feeConfig", [head["number"]]) == latest
    genesis = result(api, RPC, "eth_feeConfig", [0])
    assert genesis["lastChangedAt"] == 0 and genesis["feeConfig"] != latest["feeConfig"]
    error(api, RPC, "eth_feeConfig", [hex(int(head["number"], 16) + 1000)])
    error(api, RPC, "eth_feeConfig", ["0x" + "ab" * 32])
    error(api, RPC, "eth_feeConfig", ["soon"])


def test_chain_config(api: Client) -> None:
    config = result(api, RPC, "eth_getChainConfig", [])
    assert config["chainId"] == WORLD.evm_chain_id and config["allowFeeRecipients"] is False
    assert re.fullmatch(r"0x[0-9a-f]{64}", config["eip150Hash"]) and config["subnetEVMTimestamp"] == 0
    assert all(isinstance(config[k], int) for k in ("homesteadBlock", "istanbulBlock", "muirGlacierBlock"))
    assert all(re.fullmatch(r"0x[0-9a-f]{40}", a) for a in config["feeManagerConfig"]["adminAddresses"])
    upgrades = config["upgrades"]["precompileUpgrades"]
    assert all(len(entry) == 1 for entry in upgrades)
    values = [v for entry in upgrades for v in entry.values()]
    assert any(v["adminAddresses"] is None and v.get("disable") is True for v in values)
    assert any(isinstance(v["adminAddresses"], list) for v in values)


def test_active_rules_default_to_the_latest_block_and_change_over_time(api: Client) -> None:
    head = result(api, RPC, "eth_getBlockByNumber", ["latest", False])
    now_rules = result(api, RPC, "eth_getActiveRulesAt", [])
    assert now_rules == result(api, RPC, "eth_getActiveRulesAt", [int(head["timestamp"], 16)])
    assert now_rules == result(api, RPC, "eth_getActiveRulesAt", [head["timestamp"]])
    assert now_rules["networkRules"] == {"IsSubnetEVM": True, "IsDurango": True, "IsEtna": True}
    genesis = result(api, RPC, "eth_getActiveRulesAt", [0])
    assert genesis["networkRules"]["IsEtna"] is False and genesis["ethRules"]["IsCancun"] is False
    later = result(api, RPC, "eth_getActiveRulesAt", [int(head["timestamp"], 16) + 3600])
    assert set(later["precompiles"]) - set(now_rules["precompiles"])   # an upgrade is scheduled
    precompiles = result(api, RPC, "eth_getActivePrecompilesAt", [])
    assert set(precompiles) == set(now_rules["precompiles"])
    assert all(set(v) == {"adminAddresses", "blockTimestamp"} for v in precompiles.values())
    error(api, RPC, "eth_getActiveRulesAt", [-5])


def test_standard_methods(api: Client) -> None:
    assert result(api, RPC, "eth_chainId", []) == hex(WORLD.evm_chain_id)
    number = result(api, RPC, "eth_blockNumber", [])
    block = result(api, RPC, "eth_getBlockByNumber", [number, False])
    assert block["number"] == number and result(api, RPC, "eth_getBlockByHash", [block["hash"], False]) == block
    assert result(api, RPC, "eth_getBlockByNumber", [hex(int(number, 16) + 10), False]) is None
    error(api, RPC, "eth_feeConfig", {"blk": "latest"})


def shaped(method: str, value: Any) -> bool:
    """Whether a result has the shape specs/openrpc/evm.json gives the method."""
    from conformance.checks.shapes import schema_errors
    from conformance.specs import rpc_method

    return not schema_errors(value, rpc_method("evm", method)["result"]["schema"], api="evm")


def test_blocks_agree_by_number_hash_and_full_transactions(api: Client) -> None:
    n = int(result(api, RPC, "eth_blockNumber", []), 16)
    hashed = result(api, RPC, "eth_getBlockByNumber", [hex(n - 7), False])
    full = result(api, RPC, "eth_getBlockByNumber", [hex(n - 7), True])
    assert shaped("eth_getBlockByNumber", hashed) and shaped("eth_getBlockByNumber", full)
    assert hashed["transactions"] and [tx["hash"] for tx in full["transactions"]] == hashed["transactions"]
    assert all(tx["blockHash"] == hashed["hash"] and tx["blockNumber"] == hex(n - 7) for tx in full["transactions"])
    assert result(api, RPC, "eth_getBlockByHash", [hashed["hash"], True]) == full
    assert result(api, RPC, "eth_getBlockByNumber", [hex(n - 8), False])["hash"] == hashed["parentHash"]
    assert result(api, RPC, "eth_getBlockByNumber", ["0x0", False])["parentHash"] == "0x" + "00" * 32
    assert result(api, RPC, "eth_getBlockByHash", ["0x" + "ab" * 32, False]) is None
    error(api, RPC, "eth_getBlockByNumber", ["latest", "yes"])


def test_account_state_fees_and_simple_methods(api: Client) -> None:
    block = result(api, RPC, "eth_getBlockByNumber", ["latest", True])
    account, contract = block["transactions"][0]["from"], block["transactions"][0]["to"]
    for ref in ("latest", block["number"], block["hash"]):
        assert int(result(api, RPC, "eth_getBalance", [account, ref]), 16) > 0
        assert int(result(api, RPC, "eth_getTransactionCount", [account, ref]), 16) > 0
        assert result(api, RPC, "eth_getCode", [account, ref]) == "0x"
        assert len(result(api, RPC, "eth_getCode", [contract, ref])) > 100
    assert result(api, RPC, "eth_getBalance", ["0x" + "12" * 20, "latest"]) == "0x0"
    error(api, RPC, "eth_getBalance", ["0x1234", "latest"])
    error(api, RPC, "eth_getBalance", [account, hex(int(block["number"], 16) + 50)])
    for method in ("eth_gasPrice", "eth_chainId", "eth_blockNumber", "eth_syncing", "net_version",
                   "web3_clientVersion"):
        assert shaped(method, result(api, RPC, method, [])), method
    assert result(api, RPC, "eth_syncing", []) is False
    assert result(api, RPC, "net_version", []) == str(WORLD.evm_chain_id)


def test_fee_history_and_calls(api: Client) -> None:
    fees = result(api, RPC, "eth_feeHistory", ["0x5", "latest", [10, 50, 90]])
    assert shaped("eth_feeHistory", fees) and len(fees["gasUsedRatio"]) == 5 == len(fees["baseFeePerGas"]) - 1
    assert [len(row) for row in fees["reward"]] == [3] * 5 and "reward" not in result(api, RPC, "eth_feeHistory",
                                                                                       [5, "latest"])
    assert result(api, RPC, "eth_feeHistory", ["0x3", "0x1"])["oldestBlock"] == "0x0"
    error(api, RPC, "eth_feeHistory", ["0x3", "latest", [90, 10]])
    identity = "0x" + "00" * 19 + "04"
    assert result(api, RPC, "eth_call", [{"to": identity, "data": "0xABcd"}, "latest"]) == "0xabcd"
    assert result(api, RPC, "eth_call", [{"to": identity}]) == "0x"
    contract = result(api, RPC, "eth_getBlockByNumber", ["latest", True])["transactions"][0]["to"]
    assert len(result(api, RPC, "eth_call", [{"to": contract, "data": "0x70a08231"}, "latest"])) == 66
    error(api, RPC, "eth_call", [{"to": identity, "data": "0xabc"}, "latest"])


def test_get_logs_filters(api: Client) -> None:
    n = int(result(api, RPC, "eth_blockNumber", []), 16)
    logs = result(api, RPC, "eth_getLogs", [{"fromBlock": hex(n - 9), "toBlock": hex(n)}])
    assert shaped("eth_getLogs", logs) and {int(log["blockNumber"], 16) for log in logs} == set(range(n - 9, n + 1))
    one = logs[0]
    assert all(log["blockHash"] == one["blockHash"]
               for log in result(api, RPC, "eth_getLogs", [{"blockHash": one["blockHash"]}]))
    by_address = result(api, RPC, "eth_getLogs", [{"fromBlock": hex(n - 9), "address": [one["address"].upper()]}])
    assert by_address and all(log["address"] == one["address"] for log in by_address)
    by_topic = result(api, RPC, "eth_getLogs", [{"fromBlock": hex(n - 9), "topics": [None, one["topics"][1]]}])
    assert by_topic and all(log["topics"][1] == one["topics"][1] for log in by_topic)
    assert result(api, RPC, "eth_getLogs", [{}]) == [log for log in logs if log["blockNumber"] == hex(n)]
    error(api, RPC, "eth_getLogs", [{"fromBlock": "0x0", "toBlock": hex(n)}])
    error(api, RPC, "eth_getLogs", [{"fromBlock": hex(n), "toBlock": hex(n - 1)}])
    error(api, RPC, "eth_getLogs", [{"blockHash": one["blockHash"], "fromBlock": hex(n)}])


def test_live_world_grows_the_chain_and_keeps_its_blocks() -> None:
    world = World(SEED)
    api = Client(ReferenceApp(world))
    before = int(result(api, RPC, "eth_blockNumber", []), 16)
    block = result(api, RPC, "eth_getBlockByNumber", [hex(before), True])
    for _ in range(3):
        world.advance()
    assert int(result(api, RPC, "eth_blockNumber", []), 16) == before + 3
    assert result(api, RPC, "eth_getBlockByHash", [block["hash"], True]) == block


# --- validators ---

def test_current_validators(api: Client) -> None:
    everyone = result(api, VALIDATORS, "validators.getCurrentValidators", {})["validators"]
    assert len(everyone) == 20 and {v["isL1Validator"] for v in everyone} == {True, False}
    assert all(v["isActive"] for v in everyone if not v["isL1Validator"])
    assert all(v["nodeID"].startswith("NodeID-") and isinstance(v["uptimePercentage"], float) for v in everyone)
    assert result(api, VALIDATORS, "validators.getCurrentValidators", {"nodeIDs": []})["validators"] == everyone
    assert result(api, VALIDATORS, "validators.getCurrentValidators")["validators"] == everyone
    wanted = [everyone[3]["nodeID"], everyone[15]["nodeID"]]
    picked = result(api, VALIDATORS, "validators.getCurrentValidators", {"nodeIDs": wanted})["validators"]
    assert [v["nodeID"] for v in picked] == wanted
    error(api, VALIDATORS, "validators.getCurrentValidators", {"nodeIDs": ["not-a-node"]})
    unknown = [everyone[0]["nodeID"], "NodeID-111111111111111111116DBWJs"]
    assert len(result(api, VALIDATORS, "validators.getCurrentValidators", {"nodeIDs": unknown})["validators"]) == 1


# --- faults ---

LONG = "p" * 512
HEAD_HASH_PARAMS = [WORLD.node.evm.block_hash(WORLD.node.evm.latest(WORLD.clock.now))]
SOME_NODES = [str(v["nodeID"]) for v in WORLD.node.validators[2:5]]
Step = tuple[str, Any]


def idx(method: str, path: str = "index/X/tx", **params: Any) -> Step:
    return path, body(method, hexp(**params))


RANGE = idx("index.getContainerRange", startIndex=10, numToFetch=5)
LAST = idx("index.getLastAccepted")
BY_INDEX = idx("index.getContainerByIndex", index=10)
LOGGERS = ("admin", body("admin.getLoggerLevel", {}))
CHAIN_CONFIG = (RPC, body("eth_getChainConfig", []))
RULES = (RPC, body("eth_getActiveRulesAt", []))
CURRENT = (VALIDATORS, body("validators.getCurrentValidators", {}))


def adm(method: str, params: Any = _ABSENT) -> Step:
    return "admin", body(method, params)


PROBES: dict[str, list[Step]] = {
    "JsonRpcVersionAsNumber": [LOGGERS],
    "NumericIdEchoedAsString": [LOGGERS],
    "StringIdEchoedAsZero": [("admin", body("admin.getLoggerLevel", {}, id_="abc"))],
    "ErrorIdNull": [adm("admin.nope", {})],
    "ErrorWithNullResult": [adm("admin.nope", {})],
    "ErrorCodeAsString": [adm("admin.nope", {})],
    "ErrorMessageInData": [adm("admin.nope", {})],
    "UnknownMethodAnsweredWithNull": [adm("admin.nope", {})],
    "ParseErrorAsPlainText": [("admin", b"{oops")],
    "ScalarBodyAnsweredWithResult": [("admin", b"42")],
    "EmptyBatchAnsweredWithEmptyArray": [("admin", b"[]")],
    "SingleResponseInArray": [LOGGERS],
    "ContentTypeTextPlain": [LOGGERS],
    "ParamsRequiredForParameterlessMethods": [adm("admin.lockProfile")],
    "AdminApiRefusesPost": [LOGGERS],
    "AliasReturnsNull": [adm("admin.alias", {"endpoint": "index/X/tx", "alias": "tx"})],
    "EndpointAliasNotRouted": [adm("admin.alias", {"endpoint": "index/X/tx", "alias": "tx"}),
                               ("tx", body("index.getLastAccepted", hexp()))],
    "AliasBelowRouteBaseRoutesNothing": [adm("admin.alias", {"endpoint": RPC, "alias": "evm"}),
                                         ("evm", body("eth_chainId", []))],
    "AliasMovesEndpoint": [adm("admin.alias", {"endpoint": "index/X/tx", "alias": "tx"}), LAST],
    "AliasMaxLengthOffByOne": [adm("admin.alias", {"endpoint": "index/X/tx", "alias": LONG})],
    "AliasLengthNotChecked": [adm("admin.alias", {"endpoint": "index/X/tx", "alias": LONG + "p"})],
    "AliasChainReturnsTrue": [adm("admin.aliasChain", {"chain": EVM_ID, "alias": "l1"})],
    "ChainAliasNotRouted": [adm("admin.aliasChain", {"chain": EVM_ID, "alias": "l1"}),
                            ("bc/l1/rpc", body("eth_chainId", []))],
    "ChainAliasesAsString": [adm("admin.getChainAliases", {"chain": P_CHAIN_ID})],
    "ChainAliasesOmitAdded": [adm("admin.aliasChain", {"chain": EVM_ID, "alias": "l1"}),
                              adm("admin.getChainAliases", {"chain": EVM_ID})],
    "ChainAliasListedUnderEveryChain": [adm("admin.aliasChain", {"chain": EVM_ID, "alias": "l1"}),
                                        adm("admin.getChainAliases", {"chain": P_CHAIN_ID})],
    "LoggerLevelsAsNumbers": [LOGGERS],
    "LoggerNameFilterIgnored": [adm("admin.getLoggerLevel", {"loggerName": "C"})],
    "LoggerLevelsOnlyMain": [LOGGERS],
    "NamedLoggerLevelsSwapped": [adm("admin.getLoggerLevel", {"loggerName": "C"})],
    "SetLoggerLevelReturnsNull": [adm("admin.setLoggerLevel", {"logLevel": "DEBUG"})],
    "SetLoggerLevelIgnoresLogLevel": [adm("admin.setLoggerLevel", {"loggerName": "C", "logLevel": "DEBUG"}),
                                      LOGGERS],
    "SetLoggerLevelIgnoresDisplayLevel": [adm("admin.setLoggerLevel", {"loggerName": "C", "displayLevel": "DEBUG"}),
                                          LOGGERS],
    "SetLoggerLevelWithoutNameChangesMainOnly": [adm("admin.setLoggerLevel", {"logLevel": "DEBUG"}), LOGGERS],
    "SetLoggerLevelBothOmittedAccepted": [adm("admin.setLoggerLevel", {"loggerName": "C"})],
    "LoadVmsNamesAsString": [adm("admin.loadVMs", {})],
    "FailedVmsMessageAsObject": [adm("admin.loadVMs", {})],
    "FailedVmsAlwaysPresent": [adm("admin.loadVMs", {}), adm("admin.loadVMs", {})],
    "LockProfileReturnsFileName": [adm("admin.lockProfile", {})],
    "MemoryProfileReturnsNull": [adm("admin.memoryProfile", {})],
    "StartCpuProfilerReturnsTrue": [adm("admin.startCPUProfiler", {})],
    "StopCpuProfilerReturnsFileName": [adm("admin.startCPUProfiler", {}), adm("admin.stopCPUProfiler", {})],
    "RangeReversed": [RANGE],
    "RangeZeroFetchesOne": [idx("index.getContainerRange", startIndex=10, numToFetch=0)],
    "ZeroToFetchRefused": [idx("index.getContainerRange", startIndex=10, numToFetch=0)],
    "RangeMaxOffByOne": [idx("index.getContainerRange", startIndex=0, numToFetch=1024)],
    "RangeMaxClamped": [idx("index.getContainerRange", startIndex=0, numToFetch=1025)],
    "RangeBeyondLastGivesEmpty": [idx("index.getContainerRange", startIndex=XTX_LAST + 1, numToFetch=1)],
    "RangeZeroBeyondLastRejected": [idx("index.getContainerRange", startIndex=XTX_LAST + 1, numToFetch=0)],
    "RangePastEndRejected": [idx("index.getContainerRange", startIndex=XTX_LAST - 1, numToFetch=5)],
    "RangeWrappedInObject": [RANGE],
    "ContainerIdAsByteArray": [BY_INDEX],
    "ContainerBytesBase64": [BY_INDEX],
    "ContainerTimestampWithoutFraction": [BY_INDEX],
    "ContainerEncodingHexC": [BY_INDEX],
    "ContainerIndexAsNumber": [BY_INDEX],
    "EncodingNotChecked": [("index/X/tx", body("index.getLastAccepted", {"encoding": "cb58"}))],
    "HexVariantsAccepted": [("index/X/tx", body("index.getLastAccepted", {"encoding": "hexnc"}))],
    "ContainerByIndexOffByOne": [BY_INDEX],
    "ContainerByIdReturnsNext": [idx("index.getContainerByID", id=XTX.container_id(10))],
    "RangeBytesWithoutChecksum": [RANGE],
    "GetIndexAsNumber": [idx("index.getIndex", id=XTX.container_id(10))],
    "GetIndexOffByOne": [idx("index.getIndex", id=XTX.container_id(10))],
    "IsAcceptedAsString": [idx("index.isAccepted", id=XTX.container_id(10))],
    "IsAcceptedAlwaysFalse": [idx("index.isAccepted", id=XTX.container_id(10))],
    "LastAcceptedIsPrevious": [LAST],
    "LastAcceptedStampedNow": [LAST],
    "IndexCBlockNotServed": [idx("index.getLastAccepted", "index/C/block")],
    "IndexPBlockNotServed": [idx("index.getLastAccepted", "index/P/block")],
    "IndexXTxNotServed": [LAST],
    "IndexXBlockNotServed": [idx("index.getLastAccepted", "index/X/block")],
    "IndexXVtxNotServed": [idx("index.getLastAccepted", "index/X/vtx")],
    "LegacyVtxServesXBlock": [idx("index.getLastAccepted", "index/X/vtx")],
    "FeeConfigMinBaseFeeAsString": [(RPC, body("eth_feeConfig", []))],
    "FeeConfigLastChangedAtAsHex": [(RPC, body("eth_feeConfig", []))],
    "FeeConfigRequiresBlock": [(RPC, body("eth_feeConfig", []))],
    "FeeConfigRejectsLatest": [(RPC, body("eth_feeConfig", ["latest"]))],
    "FeeConfigRejectsBlockNumber": [(RPC, body("eth_feeConfig", ["0x10"]))],
    "FeeConfigRejectsBlockHash": [(RPC, body("eth_feeConfig", HEAD_HASH_PARAMS))],
    "FeeConfigDefaultsToGenesis": [(RPC, body("eth_feeConfig", []))],
    "ChainIdAsHex": [CHAIN_CONFIG],
    "ChainConfigGasLimitAsString": [CHAIN_CONFIG],
    "AllowFeeRecipientsAsString": [CHAIN_CONFIG],
    "MuirGlacierBlockNull": [CHAIN_CONFIG],
    "Eip150HashAsCb58": [CHAIN_CONFIG],
    "SubnetEvmTimestampAsString": [CHAIN_CONFIG],
    "PrecompileAdminAddressesWithoutPrefix": [CHAIN_CONFIG],
    "PrecompileBlockTimestampAsHex": [CHAIN_CONFIG],
    "ChainConfigWithoutUpgrades": [CHAIN_CONFIG],
    "PrecompileUpgradesAsMap": [CHAIN_CONFIG],
    "PrecompileUpgradesMerged": [CHAIN_CONFIG],
    "UpgradeAdminAddressesAsString": [CHAIN_CONFIG],
    "UpgradeBlockTimestampAsString": [CHAIN_CONFIG],
    "UpgradeDisableAsString": [CHAIN_CONFIG],
    "EthRulesWithoutIsCancun": [RULES],
    "NetworkRuleIsDurangoAsString": [RULES],
    "ActivePrecompileTimestampAsHex": [RULES],
    "ActiveRulesRequireTimestamp": [RULES],
    "ActiveRulesRejectTimestamp": [(RPC, body("eth_getActiveRulesAt", [1]))],
    "ActiveRulesDefaultAtGenesis": [RULES],
    "ActivePrecompilesUseRulesShape": [(RPC, body("eth_getActivePrecompilesAt", []))],
    "ActivePrecompilesMissOne": [(RPC, body("eth_getActivePrecompilesAt", []))],
    "EvmRpcNotServed": [(RPC, body("eth_chainId", []))],
    "ValidatorsApiNotServed": [CURRENT],
    "ValidatorsAsMap": [CURRENT],
    "SubnetValidationIdNull": [CURRENT],
    "NodeIdWithoutPrefix": [CURRENT],
    "WeightAsString": [CURRENT],
    "StartTimestampAsRfc3339": [CURRENT],
    "L1IsActiveAsNumber": [CURRENT],
    "IsL1ValidatorAsString": [CURRENT],
    "IsConnectedAsString": [CURRENT],
    "UptimeSecondsFractional": [CURRENT],
    "UptimePercentageAsString": [CURRENT],
    "SubnetValidatorsInactive": [CURRENT],
    "NodeIdsFilterIgnored": [(VALIDATORS, body("validators.getCurrentValidators", {"nodeIDs": SOME_NODES}))],
    "NodeIdsFilterDropsLast": [(VALIDATORS, body("validators.getCurrentValidators", {"nodeIDs": SOME_NODES}))],
    "EmptyNodeIdsReturnsNone": [(VALIDATORS, body("validators.getCurrentValidators", {"nodeIDs": []}))],
    "OmittedNodeIdsReturnsNone": [CURRENT],
}

HEAD = WORLD.node.evm.latest(WORLD.clock.now)
BLOCK = (RPC, body("eth_getBlockByNumber", [hex(HEAD - 5), False]))
FULL_BLOCK = (RPC, body("eth_getBlockByNumber", [hex(HEAD - 5), True]))
LOGS = (RPC, body("eth_getLogs", [{"fromBlock": hex(HEAD - 3), "toBlock": hex(HEAD)}]))
FEES = (RPC, body("eth_feeHistory", ["0x3", "latest", [50]]))
ACCOUNT = [WORLD.node.evm.admins[0], "latest"]
PROBES.update({
    "EthFeeConfigNotServed": [(RPC, body("eth_feeConfig", []))],
    "EthChainConfigNotServed": [CHAIN_CONFIG],
    "EthActiveRulesNotServed": [RULES],
    "EthChainIdAsNumber": [(RPC, body("eth_chainId", []))],
    "EthBlockNumberZeroPadded": [(RPC, body("eth_blockNumber", []))],
    "EthBlockNumberGoesBackwards": [(RPC, body("eth_blockNumber", []))] * 2,
    "EthBlockWithoutStateRoot": [BLOCK],
    "EthFullTransactionsAsHashes": [FULL_BLOCK],
    "EthBlockByHashReturnsParent": [(RPC, body("eth_getBlockByHash", [WORLD.node.evm.block_hash(HEAD - 5), False]))],
    "EthBlockByNumberOffByOne": [BLOCK],
    "EthParentHashSkipsABlock": [BLOCK],
    "EthBalanceAsDecimal": [(RPC, body("eth_getBalance", ACCOUNT))],
    "EthTransactionCountAsNumber": [(RPC, body("eth_getTransactionCount", ACCOUNT))],
    "EthCodeWithoutPrefix": [(RPC, body("eth_getCode", ACCOUNT))],
    "EthGasPriceAsNumber": [(RPC, body("eth_gasPrice", []))],
    "EthFeeHistoryOldestBlockAsNumber": [FEES],
    "EthFeeHistoryWithoutNextBaseFee": [FEES],
    "EthCallResultPadded": [(RPC, body("eth_call", [{"to": "0x" + "00" * 19 + "04", "data": "0xabcd"}]))],
    "EthSyncingAsTrue": [(RPC, body("eth_syncing", []))],
    "EthNetVersionAsHex": [(RPC, body("net_version", []))],
    "EthClientVersionAsObject": [(RPC, body("web3_clientVersion", []))],
    "EthLogIndexAsNumber": [LOGS],
    "EthLogsFromBlockOffByOne": [LOGS],
    "EthFutureBlockIsHead": [(RPC, body("eth_getBlockByNumber", [hex(HEAD + 1000), False]))],
    "ExtrasRefusedAsParseErrors": [(RPC, body(method, [])) for method in EXTRAS],
    "ExtrasRefusedAsUnsupported": [(RPC, body(method, [])) for method in EXTRAS],
})

from tests.test_relations_rpc import PROBES as RELATION_PROBES  # noqa: E402

PROBES.update(RELATION_PROBES)
#: The modules of the node faults, one per API family.
NODE_FAULT_MODULES = tuple(f"conformance.reference.faults.{family}"
                           for family in ("envelope", "admin", "index", "evm", "eth", "validators"))
NODE_FAULTS = [cls for cls in all_faults() if cls.__module__ in NODE_FAULT_MODULES]


def answers(api: Client, steps: list[Step]) -> list[tuple[int, str, bytes]]:
    return [post(api, path, payload) for path, payload in steps]


@pytest.mark.parametrize("name", sorted(PROBES))
def test_fault_changes_the_answer(name: str) -> None:
    clean, faulty = answers(client(), PROBES[name]), answers(client(name), PROBES[name])
    assert clean != faulty, f"{name} answers its probe like the clean reference"


def test_every_node_fault_has_a_probe_and_names_catalogue_rules() -> None:
    catalogue = load_catalogue()
    assert {cls.__name__ for cls in NODE_FAULTS} == set(PROBES)
    for cls in NODE_FAULTS:
        assert cls.summary() and cls.breaks
        for rule_id in cls.breaks + cls.also:
            # a rule of the node catalogue, or one declared in the node APIs' OpenRPC documents
            assert rule_id in catalogue and rule_id.startswith("RPC-"), (cls.__name__, rule_id)
        for rule_id in cls.breaks:
            rule = catalogue[rule_id]
            assert rule.level in ("must", "standard") and rule.testable, (cls.__name__, rule_id)


def test_every_testable_node_rule_has_a_fault() -> None:
    broken = {rule_id for cls in NODE_FAULTS for rule_id in cls.breaks}
    wanted = {rule.id for rule in load_catalogue() if rule.catalogue == "rpc.yaml" and rule.gating and rule.testable}
    assert wanted - broken == set()
