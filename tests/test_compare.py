"""`conformance compare`: two references agree, live or not; a fault shows as the difference it makes."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from conformance import specs
from conformance.cli import main
from conformance.clients.http import Exchange
from conformance.compare import normalize, requests_plan
from conformance.compare.differ import ERROR_CODE, SHAPE, VALUE, compare_outcomes, diff
from conformance.compare.normalize import Outcome, PathRules
from conformance.reference import ReferenceServer
from tests import documents

SEED = 5


@pytest.fixture(scope="module")
def baseline() -> Iterator[ReferenceServer]:
    with ReferenceServer(seed=SEED) as server:
        yield server


def compare(baseline: ReferenceServer, candidate_url: str, report_dir: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """Runs the command against the baseline reference; returns its exit code and compare.json."""
    info = baseline.info()
    args = ["compare", "--baseline-url", baseline.url, "--candidate-url", candidate_url,
            "--evm-chain", str(info["evm_blockchain_id"]), "--report-dir", str(report_dir), *extra]
    for name, value in dict(info["samples"]).items():  # type: ignore[call-overload]  # a JSON object
        args += ["--sample", f"{name}={value}"]
    code = main(args)
    path = report_dir / "compare.json"
    return code, json.loads(path.read_text()) if path.is_file() else {}


def differences(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(r["operation"], d["path"], d["kind"]) for r in report["requests"] for d in r["differences"]]


def test_two_clean_references_do_not_differ(baseline: ReferenceServer, tmp_path: Path) -> None:
    with ReferenceServer(seed=SEED) as candidate:
        code, report = compare(baseline, candidate.url, tmp_path)
        served = dict(candidate.app.seen)
    assert (code, report["differences"]) == (0, 0), differences(report)
    # Every API was compared on answers, not only on errors both endpoints happen to share.
    answered = {r["api"] for r in report["requests"] if r["baseline"] in ("result", "HTTP 200")}
    assert answered == set(specs.ALL_APIS)
    assert {name for name in served if name.startswith("admin.")} == set(requests_plan.READ_ONLY_ADMIN)


def test_a_live_candidate_does_not_differ(baseline: ReferenceServer, tmp_path: Path) -> None:
    """The candidate's chain grows during the run: heads move, anchored answers do not."""
    candidate = ReferenceServer(seed=SEED, advance_every=0.02)
    started = candidate.world.clock.now
    with candidate:
        code, report = compare(baseline, candidate.url, tmp_path)
        moved = candidate.world.clock.now - started
    assert (code, report["differences"]) == (0, 0), differences(report)
    assert moved >= 10 * candidate.world.STEP_SECONDS, "the candidate's chain did not advance during the run"


@pytest.mark.parametrize(("fault", "api", "operation", "path", "kind"), [
    ("RangeReversed", "index", "index.getContainerRange", "/result/0/id", VALUE),
    ("WeightAsString", "validators", "validators.getCurrentValidators", "/result/validators/0/weight", SHAPE),
    ("TokenTransfersListMisnamed", "data", "listTokenTransfers", "/transfers", SHAPE),
    ("RangeMaxClamped", "index", "index.getContainerRange", "", ERROR_CODE),
])
def test_a_fault_shows_as_its_difference(baseline: ReferenceServer, tmp_path: Path, fault: str, api: str,
                                         operation: str, path: str, kind: str) -> None:
    with ReferenceServer(seed=SEED, faults=[fault]) as candidate:
        code, report = compare(baseline, candidate.url, tmp_path, "--api", api)
    found = differences(report)
    assert code == 1
    assert (operation, path, kind) in found
    assert {op for op, _, _ in found} == {operation}, "the fault made differences elsewhere too"


def test_the_text_report_names_operation_path_and_both_answers(baseline: ReferenceServer, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with ReferenceServer(seed=SEED, faults=["ValidatorsApiNotServed"]) as candidate:
        compare(baseline, candidate.url, tmp_path, "--api", "validators")
    out = capsys.readouterr().out
    assert "validators: 2 requests sent to each endpoint, 0 identical, 2 differing" in out
    assert "  validators.getCurrentValidators  POST /ext/bc/" in out
    assert "error-code (answer): baseline result | candidate HTTP 404, not JSON" in out
    assert out.rstrip().splitlines()[-2].endswith("the endpoints differ (exit 1)")


def test_the_api_key_reaches_the_data_api_and_is_never_printed(baseline: ReferenceServer, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with ReferenceServer(seed=SEED, faults=["KeyedRequestsRefused"]) as candidate:
        code, report = compare(baseline, candidate.url, tmp_path, "--api", "data,metrics", "--api-key", "s3cr3t-k3y")
    out = capsys.readouterr()
    codes = {(r["api"], r["candidate"]) for r in report["requests"] if r["differences"]}
    assert code == 1 and codes == {("data", "HTTP 401")}
    assert "s3cr3t-k3y" not in out.out + out.err + (tmp_path / "compare.json").read_text()


def test_a_spent_budget_stops_the_comparison_incomplete(baseline: ReferenceServer, tmp_path: Path) -> None:
    code, report = compare(baseline, baseline.url, tmp_path, "--api", "index", "--max-requests", "7")
    assert code == 3
    assert (report["complete"], len(report["requests"])) == (False, 7)


def test_the_rate_limit_spaces_the_requests_to_each_endpoint(baseline: ReferenceServer, tmp_path: Path) -> None:
    started = time.monotonic()
    code, report = compare(baseline, baseline.url, tmp_path, "--api", "admin", "--rate-limit", "10/s")
    assert (code, len(report["requests"])) == (0, 3)
    assert time.monotonic() - started >= 0.2  # three requests to each endpoint, 0.1 s apart


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_candidate_is_one_line_and_exit_3(baseline: ReferenceServer, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, report = compare(baseline, f"http://127.0.0.1:{free_port()}", tmp_path)
    err = capsys.readouterr().err
    assert code == 3 and report == {}
    assert len(err.strip().splitlines()) == 1 and "candidate" in err and "Traceback" not in err


ONE, TWO = "http://127.0.0.1:1", "http://127.0.0.1:2"


@pytest.mark.parametrize(("argv", "says"), [
    (["--baseline-url", "ftp://example.org", "--candidate-url", ONE], "--baseline-url"),
    (["--baseline-url", ONE, "--candidate-url", "http://127.0.0.1:99999"], "--candidate-url"),
    (["--baseline-url", ONE], "the candidate has no URL"),
    (["--baseline-url", ONE, "--candidate-evm-rpc-url", "127.0.0.1:8545"], "--candidate-evm-rpc-url"),
    (["--baseline-node-url", "http://127.0.0.1:70000", "--candidate-url", TWO], "--baseline-node-url"),
    (["--baseline-url", ONE, "--candidate-evm-rpc-url", TWO, "--api", "validators"],
     "--api validators: the candidate has no URL for it (give --candidate-url or --candidate-node-url)"),
    (["--baseline-data-url", ONE, "--candidate-metrics-url", TWO], "no API with a URL in common"),
    (["--baseline-url", ONE, "--candidate-url", TWO, "--rate-limit", "fast"], "--rate-limit"),
    (["--baseline-url", ONE, "--candidate-url", TWO, "--max-requests", "0"], "--max-requests"),
    (["--baseline-url", ONE, "--candidate-url", TWO, "--timeout", "0.05"], "--timeout"),
    (["--baseline-url", ONE, "--candidate-url", TWO, "--outage-window", "-1"], "--outage-window"),
], ids=["scheme", "port", "missing-candidate", "side-scheme", "side-port", "no-url-for-api", "nothing-in-common",
        "rate", "budget", "timeout", "outage-window"])
def test_bad_usage_is_one_line_and_exit_2(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    code: int | str | None
    try:
        code = main(["compare", *argv])
    except SystemExit as exc:  # argparse's own refusals (a missing option) exit from the parser
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert says in err


def test_compare_takes_the_settings_of_run_with_their_defaults_bounds_and_sources(tmp_path: Path) -> None:
    from conformance.cli import build_parser
    from conformance.compare.command import options
    from conformance.config import resolve
    from conformance.errors import ConfigError

    (tmp_path / "conformance.toml").write_text('api_key = "from-the-file"\ntimeout = 12\n')
    argv = ["compare", "--baseline-url", "http://a.test", "--candidate-url", "http://b.test"]
    env = {"CONFORMANCE_MAX_REQUESTS": "9", "CONFORMANCE_REPORT_DIR": ""}
    opts = options(build_parser().parse_args(argv), env=env, cwd=tmp_path)
    for side in opts.sides.values():
        assert (side.api_key, side.timeout, side.max_requests, side.report_dir) == ("from-the-file", 12.0, 9, None)
        assert (side.api_key_header, side.rate_limit, side.outage_window) == ("x-data-api-key", None, 30.0)
    assert (opts.seed, opts.apis, opts.report_dir) == (0, specs.ALL_APIS, None)
    run = resolve({}, env=env, cwd=tmp_path)
    assert (run.api_key, run.timeout, run.max_requests, run.report_dir) == ("from-the-file", 12.0, 9, None)
    with pytest.raises(ConfigError, match="--timeout: must be at least 0.1"):
        options(build_parser().parse_args([*argv, "--timeout", "0.05"]), env=env, cwd=tmp_path)


def test_each_endpoint_has_its_own_urls_and_a_run_s_urls_reach_neither(tmp_path: Path) -> None:
    """Per-side URLs over the side's base URL, resolved as `run` resolves a target; the URLs of a run's one target
    in the environment or conformance.toml are no endpoint's, and the other settings hold for both."""
    from conformance.cli import build_parser
    from conformance.compare.command import options

    (tmp_path / "conformance.toml").write_text('node_url = "http://run.test"\nmax_duration = 60\n')
    env = {"CONFORMANCE_EVM_RPC_URL": "http://env.test", "CONFORMANCE_OUTAGE_WINDOW": "5"}
    argv = ["compare", "--baseline-url", "http://a.test", "--baseline-evm-rpc-url", "http://a.test:8545/",
            "--candidate-node-url", "http://b.test:9650", "--candidate-evm-rpc-url", "http://b.test:8545"]
    opts = options(build_parser().parse_args(argv), env=env, cwd=tmp_path)
    baseline, candidate = opts.sides["baseline"], opts.sides["candidate"]
    assert (baseline.node_url, baseline.data_url, baseline.evm_rpc_url) == ("http://a.test", "http://a.test",
                                                                            "http://a.test:8545")
    assert (candidate.node_url, candidate.data_url, candidate.evm_rpc_url) == ("http://b.test:9650", None,
                                                                               "http://b.test:8545")
    assert (baseline.max_duration, baseline.outage_window) == (candidate.max_duration, candidate.outage_window) \
        == (60.0, 5.0)
    # Without --api: what both have a URL for; the rest is said not compared.
    assert opts.apis == ("admin", "index", "evm", "validators") == baseline.apis == candidate.apis
    assert set(opts.one_sided) == {"data", "metrics"}
    only_evm = ["compare", "--baseline-evm-rpc-url", "http://a.test", "--candidate-evm-rpc-url", "http://b.test"]
    assert options(build_parser().parse_args(only_evm), env={}, cwd=tmp_path).apis == ("evm",)


# Each endpoint as `run` reaches it: its EVM RPC URL, the identifiers discovery finds -----------------------------

class RecordingRpc:
    """A JSON-RPC endpoint at any path of its own port, forwarding each body to `upstream` (a reference's EVM chain
    RPC) and recording the path and method of each request: an EVM RPC URL that is no node's /ext/bc/… path."""

    def __init__(self, upstream: str) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        import requests

        self.seen: list[tuple[str, str]] = []
        recording = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                parsed = json.loads(body or b"null")
                calls = parsed if isinstance(parsed, list) else [parsed]
                recording.seen += [(self.path, str(c.get("method"))) for c in calls if isinstance(c, dict)]
                answer = requests.post(upstream, data=body, headers={"content-type": "application/json"}, timeout=10)
                self.send_response(answer.status_code)
                self.send_header("content-type", answer.headers.get("content-type", "application/json"))
                self.send_header("content-length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            def do_GET(self) -> None:   # the preflight asks the URL whether anything answers
                self.send_response(405)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/evm"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self) -> RecordingRpc:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def run_compare(report_dir: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["compare", *argv, "--report-dir", str(report_dir)])
    path = report_dir / "compare.json"
    return code, json.loads(path.read_text()) if path.is_file() else {}


EVM_METHODS = {method["name"] for method in specs.openrpc("evm")["methods"]}


def test_each_endpoint_s_evm_rpc_url_is_asked_itself_every_method_of_the_document(baseline: ReferenceServer,
                                                                                   tmp_path: Path) -> None:
    chain = baseline.info()["evm_blockchain_id"]
    rpc = f"{baseline.url}/ext/bc/{chain}/rpc"
    with RecordingRpc(rpc) as first, RecordingRpc(rpc) as second:
        code, report = run_compare(tmp_path, "--baseline-evm-rpc-url", first.url, "--candidate-evm-rpc-url",
                                   second.url, "--api", "evm")
    assert (code, report["differences"]) == (0, 0), differences(report)
    for side in (first, second):
        assert {path for path, _ in side.seen} == {"/evm"}, "a request went elsewhere than the EVM RPC URL"
        assert {method for _, method in side.seen} >= EVM_METHODS
    assert {r["operation"] for r in report["requests"]} == EVM_METHODS
    assert all(r["baseline"] == "result" for r in report["requests"]), "the reference serves every method"


def test_discovery_finds_the_evm_chain_on_both_endpoints_and_its_apis_are_asked(baseline: ReferenceServer,
                                                                                tmp_path: Path) -> None:
    """By their URLs alone, as `run` takes a target: the EVM chain is found, and evm and validators are compared."""
    with ReferenceServer(seed=SEED) as candidate:
        code, report = run_compare(tmp_path, "--baseline-url", baseline.url, "--candidate-url", candidate.url,
                                   "--api", "evm,validators")
    chain = str(baseline.info()["evm_blockchain_id"])
    assert (code, report["differences"]) == (0, 0), differences(report)
    assert report["identifiers"]["evm_chain"] == {"value": chain, "from": "baseline", "source": "listBlockchains"}
    assert report["identifier_notes"] == [], "both endpoints found the same identifiers"
    assert report["discovery"]["candidate"]["requests"] > 0
    counts = report["apis"]
    assert counts["evm"]["requests"] > 20 and counts["validators"]["requests"] == 2
    assert {r["path"] for r in report["requests"]} == {f"/ext/bc/{chain}/rpc", f"/ext/bc/{chain}/validators"}


def test_an_api_with_nothing_to_ask_says_why_and_the_comparison_is_incomplete(
        baseline: ReferenceServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """EVM RPC URLs name no chain, so the validators API (under the chain's path) has nothing to ask: said so, and
    since --api named it, not a clean 0."""
    rpc = f"{baseline.url}/ext/bc/{baseline.info()['evm_blockchain_id']}/rpc"
    code, report = run_compare(tmp_path, "--baseline-node-url", baseline.url, "--baseline-evm-rpc-url", rpc,
                               "--candidate-node-url", baseline.url, "--candidate-evm-rpc-url", rpc,
                               "--api", "evm,validators")
    out = capsys.readouterr().out
    assert code == 3 and report["complete"] is False
    assert report["apis"]["validators"]["requests"] == 0 and report["apis"]["evm"]["requests"] > 0
    [why] = report["apis"]["validators"]["nothing_asked"]
    assert why.startswith("nothing to ask: no EVM chain the node serves found") and "--evm-chain" in why
    assert "validators: nothing compared\n  nothing to ask: no EVM chain" in out
    assert "nothing to ask of validators, named by --api" in out


def test_where_the_two_crawls_disagree_the_baseline_s_identifier_is_asked_of_both() -> None:
    from conformance.compare.command import agree
    from conformance.discovery import Discovery
    from conformance.session import Endpoints

    opened = {}
    for role, chain, more in (("baseline", "C", {}), ("candidate", "2q9e4r6Mu3U68nU1", {"evm_chain_id": "43114"})):
        found = Discovery()
        for name, value in {"evm_chain": chain, **more}.items():
            found.add(name, value, "eth_chainId")
        opened[role] = Endpoints("http://node.test", None, None, None, {"data_network": "fuji"})
        opened[role].identifiers.load(found)
    agreed = agree(opened)
    assert agreed.values == {"data_network": "fuji", "evm_chain": "C", "evm_chain_id": "43114"}
    assert agreed.sources["evm_chain"] == {"value": "C", "from": "baseline", "source": "eth_chainId",
                                           "candidate": "2q9e4r6Mu3U68nU1"}
    assert agreed.sources["data_network"] == {"value": "fuji", "from": "given"}
    assert agreed.notes == [
        "EVM chain the node serves (evm_chain): the baseline found C (eth_chainId), the candidate 2q9e4r6Mu3U68nU1 "
        "(eth_chainId); the baseline's is asked of both",
        "EVM chain ID (evm_chain_id): only the candidate found one, 43114 (eth_chainId); it is asked of both"]


def test_a_stock_ethereum_node_compared_with_itself_asks_what_run_asks_and_does_not_differ(tmp_path: Path) -> None:
    """anvil, seeded and moving, by its RPC URL on both sides: every method of the EVM document that `conformance
    run --evm-rpc-url` asks, at that URL (no 404), and no difference between a node and itself."""
    from tests.real_nodes import Node, live_chain, running, seed

    har = tmp_path / "run.har"
    with running(Node("anvil")) as url:
        contract = seed(url)
        done = subprocess.run([sys.executable, "-m", "conformance", "run", "--evm-rpc-url", url, "--api", "evm",
                               "--profile", "quick", "--report-dir", "", "--har", str(har)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]   # it ran: a verdict
        with live_chain(url, contract, every=0.1):
            code, report = run_compare(tmp_path, "--baseline-evm-rpc-url", url, "--candidate-evm-rpc-url", url,
                                       "--api", "evm")
    entries = json.loads(har.read_text())["log"]["entries"]
    asked_by_run = {call.get("method") for e in entries for call in _calls(e["request"].get("postData", {}))}
    asked = {r["operation"] for r in report["requests"]}
    assert (code, report["differences"]) == (0, 0), differences(report)
    assert asked == EVM_METHODS == asked_by_run & EVM_METHODS
    assert {e["request"]["url"].rstrip("/") for e in entries} == {url}
    # Every answer a JSON-RPC object: a result, or the error of a method anvil does not serve; never an HTTP error.
    assert {r["baseline"] for r in report["requests"]} <= {"result", "JSON-RPC error -32601"}


def _calls(post: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        body = json.loads(post.get("text") or "null")
    except ValueError:
        return []
    return [call for call in (body if isinstance(body, list) else [body]) if isinstance(call, dict)]


# The plan sends only read-only requests ---------------------------------------------------------------------

def test_every_admin_method_is_classified_read_only_or_state_changing() -> None:
    methods = {method["name"] for method in specs.openrpc("admin")["methods"]}
    assert methods == set(requests_plan.READ_ONLY_ADMIN) | set(requests_plan.STATE_CHANGING_ADMIN)
    assert not set(requests_plan.READ_ONLY_ADMIN) & set(requests_plan.STATE_CHANGING_ADMIN)


def test_the_plan_refuses_a_state_changing_method() -> None:
    with pytest.raises(ValueError, match="changes node state"):
        requests_plan.rpc("admin", "/ext/admin", "admin.setLoggerLevel", {"logLevel": "INFO"})


# What is ignored, and how answers are reduced ---------------------------------------------------------------

def test_every_volatile_entry_quotes_its_document_verbatim() -> None:
    import yaml

    data = yaml.safe_load(normalize.DATA_FILE.read_text(encoding="utf-8"))
    for entry in [e for kind in ("volatile", "keys", "maps") for e in data[kind]]:
        sections = documents.sections(entry["source"]["doc"])
        assert entry["source"]["section"] in sections, entry
        assert documents.collapse(entry["quote"]) in documents.collapse(sections[entry["source"]["section"]]), entry
        assert entry["why"]


def rpc_error(code: int, message: str) -> Outcome:
    body = {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": message}}
    return normalize.rpc_outcome(Exchange("POST", "http://node/ext/index/X/tx", {}, None, status=200,
                                          body=json.dumps(body).encode()))


def test_error_codes_are_compared_and_messages_are_not() -> None:
    rules = PathRules("index.getContainerRange")
    assert compare_outcomes(rpc_error(-32602, "too many"), rpc_error(-32602, "numToFetch > 1024"), rules) == []
    [found] = compare_outcomes(rpc_error(-32602, "x"), Outcome("result", [], ok=True), rules)
    assert (found.kind, found.baseline, found.candidate) == (ERROR_CODE, "JSON-RPC error -32602", "result")


def test_shape_and_value_differences_are_told_apart() -> None:
    rules = PathRules("anything")
    found = diff({"a": 1, "b": "x", "c": [1, 2], "gone": True}, {"a": "1", "b": "y", "c": [1, 2, 3], "new": 0},
                 rules)
    assert {(d.path, d.kind) for d in found} == {("/a", SHAPE), ("/b", VALUE), ("/c", VALUE), ("/gone", SHAPE),
                                                  ("/new", SHAPE)}
    assert diff({"v": 0.1 + 0.2}, {"v": 0.3}, rules) == []


def test_volatile_members_are_compared_by_shape_only() -> None:
    rules = PathRules("validators.getCurrentValidators")
    one = {"nodeID": "NodeID-A", "uptimeSeconds": 10, "isConnected": True, "weight": 5}
    two = {"nodeID": "NodeID-B", "uptimeSeconds": 11, "isConnected": False, "weight": 6}
    baseline = {"validators": [one, two]}
    candidate = {"validators": [{**two, "uptimeSeconds": 99}, {**one, "isConnected": False, "uptimeSeconds": "9"}]}
    found = diff(baseline, candidate, rules, root=("result",))
    assert [(d.path, d.kind) for d in found] == [("/result/validators/0/uptimeSeconds", SHAPE)]


def test_latest_pages_holding_other_items_agree_on_shape() -> None:
    rules = PathRules("listTransactions", everything_volatile=True)
    older = {"transactions": [{"txHash": "a", "nodeId": "N1", "memo": None}, {"txHash": "b", "memo": "m"},
                              {"txHash": "c", "memo": "m"}]}
    newer = {"transactions": [{"txHash": "d", "memo": "x"}, {"txHash": "e", "memo": None, "value": []},
                              {"txHash": "f", "memo": "y"}]}
    assert diff(older, newer, rules) == []
    # One item each is too little to tell a renamed member from an item that lacks an optional one.
    assert diff({"transactions": [{"txHash": "a"}]}, {"transactions": [{"hash": "d"}]}, rules) == []
    renamed = {"transactions": [{"hash": "d", "memo": "x"}, {"hash": "e", "memo": "x"}, {"hash": "f", "memo": "x"}]}
    assert {(d.path, d.kind) for d in diff(older, renamed, rules)} == {("/transactions/*/txHash", SHAPE),
                                                                       ("/transactions/*/hash", SHAPE)}


def test_entries_of_a_map_are_values_unless_the_map_is_volatile() -> None:
    at_genesis = {"precompiles": {"feeManagerConfig": {"timestamp": 0}}}
    later = {"precompiles": {"feeManagerConfig": {"timestamp": 0}, "txAllowListConfig": {"timestamp": 9}}}
    [found] = diff(at_genesis, later, PathRules("eth_getActiveRulesAt"), root=("result",))
    assert (found.path, found.kind) == ("/result/precompiles/txAllowListConfig", VALUE)
    assert diff(at_genesis, later, PathRules("eth_getActiveRulesAt", everything_volatile=True), root=("result",)) == []


def test_a_list_read_oldest_first_is_compared_up_to_where_either_ends() -> None:
    ended = {"utxos": [{"utxoId": "a"}, {"utxoId": "b"}]}
    grown = {"utxos": [{"utxoId": "a"}, {"utxoId": "b"}, {"utxoId": "c"}], "nextPageToken": "t"}
    assert diff(*normalize.open_ended(ended, grown, "utxos"), PathRules("listUtxos")) == []
    full = {"utxos": [{"utxoId": "a"}, {"utxoId": "b"}], "nextPageToken": "t1"}
    longer = {"utxos": [{"utxoId": "a"}, {"utxoId": "b"}, {"utxoId": "c"}], "nextPageToken": "t2"}
    [found] = diff(*normalize.open_ended(full, longer, "utxos"), PathRules("listUtxos"))
    assert (found.path, found.kind) == ("/utxos", VALUE)


def test_list_items_are_matched_by_identity_and_their_order_compared() -> None:
    rules = PathRules("listTransactions")
    a, b, c = ({"txHash": h, "txType": "BaseTx"} for h in "abc")
    found = diff({"transactions": [a, b]}, {"transactions": [b, a, c]}, rules)
    assert [(d.path, d.kind, d.baseline, d.candidate) for d in found] == [
        ("/transactions", VALUE, "absent", 'item txHash="c"'),
        ("/transactions", VALUE, 'in order, shared item 0 is txHash="a"', 'in order, shared item 0 is txHash="b"')]


def test_no_difference_with_requests_left_uncompared_is_exit_3() -> None:
    from conformance.compare.command import exit_code
    from conformance.compare.report import Compared, Comparison

    request = requests_plan.rpc("admin", "/ext/admin", "admin.getLoggerLevel", {})
    answered = Compared(request, Outcome("result", {}, ok=True), Outcome("result", {}, ok=True))
    busy = Compared(request, Outcome("HTTP 429", unavailable=True), Outcome("result", {}, ok=True), skipped="429")
    assert exit_code(Comparison("a", "b", ("admin",), [answered])) == 0
    assert exit_code(Comparison("a", "b", ("admin",), [answered, busy])) == 3


def test_latest_pages_may_differ_in_whether_a_next_page_exists() -> None:
    full = {"blocks": [{"blockHash": "a"}], "nextPageToken": "t"}
    last = {"blocks": [{"blockHash": "b"}]}
    rules = PathRules("listBlocksByNode", everything_volatile=True)
    assert diff(*normalize.latest_pages(full, last), rules) == []
    assert [d.path for d in diff(full, last, rules)] == ["/nextPageToken"]
