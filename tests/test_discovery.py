"""Discovery: pointed at a URL with nothing else, the suite finds every identifier it needs, within its budget."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.clients.http import HttpSession, Limits
from conformance.discovery import BUDGET, Discovery, Identifiers, discover
from conformance.reference import ReferenceServer
from conformance.reference.faults.data import BlockchainsDescendingPagesReversed
from conformance.specs import ALL_APIS
from conformance.suite.data.conftest import SAMPLES

CONFORMANCE = [sys.executable, "-m", "conformance"]
#: Slots no answer of a target can name: the network (a choice, mainnet by default), a vertex height (any height
#: of the vertex era does), the deployment's own hash (only the node's receipts could say) and the API key.
NOT_DISCOVERED = {"data_network", "data_vertex_height", "data_deployment_tx_hash", "data_api_key"}
#: At most this many tests may skip for want of an identifier at a URL with nothing else given.
MAX_IDENTIFIER_SKIPS = 5


@pytest.fixture(scope="module")
def server() -> Any:
    with ReferenceServer(seed=0) as running:
        yield running


def crawl(server: ReferenceServer, **given: str) -> Discovery:
    return discover(HttpSession(), apis=tuple(ALL_APIS), node_url=server.url, data_url=server.url, given=given)


def test_the_reference_at_a_url_yields_every_slot_within_the_budget(server: ReferenceServer) -> None:
    found = crawl(server)
    wanted = set(SAMPLES.values()) - NOT_DISCOVERED | {"evm_chain", "blockchain_id", "evm_chain_id"}
    assert sorted(wanted - set(found.found)) == [], found.searched
    assert 0 < found.requests <= BUDGET
    info = server.info()
    advertised = dict(info["samples"])  # type: ignore[call-overload]  # a JSON object
    assert found.value("evm_chain") == found.value("blockchain_id") == info["evm_blockchain_id"]
    assert found.value("evm_chain_id") == found.value("data_evm_chain_id") == info["evm_chain_id"]
    for name in ("data_p_chain_address", "data_x_chain_address", "data_evm_address", "data_erc20_contract",
                 "data_l1_validation_id", "data_p_chain_id", "data_x_chain_id", "data_x_chain_vertex_id",
                 "data_c_chain_id", "data_primary_subnet_id", "data_c_chain_evm_address"):
        assert found.value(name) == advertised[name], name


def test_every_identifier_names_the_answer_it_was_read_from(server: ReferenceServer) -> None:
    found = crawl(server)
    for identifier in found.found.values():
        assert identifier.source != "given" and identifier.request, identifier
        assert identifier.pointer is not None and (identifier.pointer == "" or identifier.pointer.startswith("/"))
    address = found.found["data_p_chain_address"]
    assert address.request is not None
    # the P-Chain by its well-known ID, as the tests' default requests name it
    assert (address.source, address.request.split("?")[0]) == \
        ("listTransactions", "GET /v1/networks/mainnet/blockchains/11111111111111111111111111111111LpoYY/transactions")


def test_a_given_sample_wins_and_is_never_overridden(server: ReferenceServer) -> None:
    given = {"data_p_chain_address": "avax1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"}
    found = crawl(server, **given)
    assert "data_p_chain_address" not in found.found
    identifiers = Identifiers(given)
    identifiers.bind(lambda: found)
    assert identifiers.get("data_p_chain_address") == given["data_p_chain_address"]
    assert identifiers.get("data_x_chain_address") == found.value("data_x_chain_address")


def test_discovery_keeps_to_the_run_s_rate_limit_and_request_budget(server: ReferenceServer) -> None:
    http = HttpSession(Limits(rate_limit=20.0, max_requests=5))
    started = time.monotonic()
    found = discover(http, apis=tuple(ALL_APIS), node_url=server.url, data_url=server.url)
    assert found.requests == http.requests_sent == 5 and time.monotonic() - started >= 4 / 20
    assert any("budget of 5 requests" in note for note in found.notes), found.notes


def test_a_target_that_answers_nothing_yields_nothing_and_says_what_was_searched() -> None:
    found = discover(HttpSession(), apis=("data",), node_url=None, data_url="http://127.0.0.1:9")
    assert found.found == {} and found.requests == 1 and any("stopped" in note for note in found.notes)
    assert found.missing("data_p_chain_address").startswith("no P-Chain address found: searched listTransactions")


def test_garbage_answers_during_discovery_yield_fewer_identifiers_never_an_error() -> None:
    with ReferenceServer(faults=["BlockchainsBodyNotJson"]) as faulty:
        found = crawl(faulty)
    assert "data_evm_chain_id" not in found.found and "data_p_chain_address" in found.found
    assert "listBlockchains on mainnet (no answer)" in found.missing("data_evm_chain_id")


def test_a_chain_whose_balances_are_refused_is_never_chosen() -> None:
    # Listed oldest first, the chains probed are ones the reference does not serve: each answers 404.
    with ReferenceServer(faults=[BlockchainsDescendingPagesReversed()]) as faulty:
        found = discover(HttpSession(), apis=("data",), node_url=None, data_url=faulty.url)
    assert not {"data_evm_chain_id", "data_evm_blockchain_id", "data_evm_address"} & set(found.found), found.found
    assert "which listBlockchains names (answered 404)" in found.missing("data_evm_chain_id")
    assert "data_p_chain_address" in found.found


def test_a_listing_s_deviation_fails_its_own_rules_and_no_route_discovery_read_it_for() -> None:
    from tests.suite_runs import run_suite

    fault = BlockchainsDescendingPagesReversed
    with ReferenceServer(faults=[fault()]) as target:
        run = run_suite(target, ["--pyargs", "conformance.suite"], "--api", "data", evm_chain=False)
    failing = {rule for o in run.failures() for rule in o.rules} | run.broken_rules()
    assert failing == set(fault.breaks), "\n\n".join(f"{o.nodeid}\n{o.message}" for o in run.failures())
    # the EVM routes are not charged with the listing's deviation: they skip for want of a chain, saying why
    evm = [o for o in run.outcomes.values() if "balances:listErc20" in o.nodeid or "listErc20Balances" in o.nodeid]
    assert evm and all(o.outcome in ("skipped", "passed") for o in evm)
    assert any(o.message.startswith("no EVM chain of the Data API found") or
               o.message.startswith("no EVM address with token balances found") for o in evm), evm


def test_the_node_logs_name_tokens_and_holders_the_data_api_did_not(server: ReferenceServer) -> None:
    from conformance.discovery.crawl import Crawl
    from conformance.discovery.node import NodeCrawl

    http, found = HttpSession(), Discovery()
    node = NodeCrawl(Crawl(http, budget=BUDGET), http, found, node_url=server.url, evm_rpc_url=None,
                     evm_chain=str(server.info()["evm_blockchain_id"]), given={})
    node.logs(("data_evm_address", "data_erc20_contract", "data_erc721_contract"))
    contract = found.found["data_erc20_contract"]
    assert contract.source == "eth_getLogs" and contract.pointer is not None and contract.pointer.endswith("/address")
    assert contract.value in server.world.data.contracts(str(server.world.evm_chain_id))
    assert found.value("data_evm_address") == found.value("evm_address")
    assert found.missing("data_erc721_contract").startswith("no ERC-721 contract found: searched eth_getLogs")


def run(tmp_path: Path, *argv: str, exit_code: int = 0) -> dict[str, Any]:
    result = subprocess.run(CONFORMANCE + ["run", "--profile", "quick", "--report-dir", str(tmp_path), *argv],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == exit_code, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads((tmp_path / "report.json").read_text())


def identifier_skips(report: dict[str, Any]) -> list[str]:
    """Tests that skipped for want of an identifier (given or found)."""
    return [t["id"] for t in report["tests"] if t["outcome"] == "skipped" and
            ("found:" in t.get("message", "") or "--sample" in t.get("message", "")
             or "--evm-chain" in t.get("message", ""))]


@pytest.mark.parametrize("where", [["--target-url"], ["--data-url", "--api", "data"]], ids=["target-url", "data-url"])
def test_at_a_url_with_nothing_else_few_tests_skip_for_an_identifier(server: ReferenceServer, tmp_path: Path,
                                                                     where: list[str]) -> None:
    report = run(tmp_path, where[0], server.url, *where[1:])
    assert len(identifier_skips(report)) <= MAX_IDENTIFIER_SKIPS, identifier_skips(report)
    names = {i["name"]: i for i in report["identifiers"]}
    assert names["data_x_chain_address"]["source"] == "listTransactions"
    assert names["data_x_chain_address"]["pointer"].startswith("/transactions/")
    assert 0 < report["discovery"]["requests"] <= report["discovery"]["budget"] == BUDGET


def test_given_identifiers_are_reported_as_given(server: ReferenceServer, tmp_path: Path) -> None:
    report = run(tmp_path, "--data-url", server.url, "--api", "data", "--rule", "DATA-SHP-001",
                 "--sample", "data_network=mainnet")
    names = {i["name"]: i for i in report["identifiers"]}
    assert names["data_network"] == {"name": "data_network", "value": "mainnet", "source": "given"}
    assert names["data_p_chain_address"]["source"] == "listTransactions"


def test_a_node_alone_skips_the_evm_tests_with_one_line(server: ReferenceServer, tmp_path: Path) -> None:
    # Nothing of the EVM API can be tested without its chain: the run is untestable (3), and says why in one line.
    report = run(tmp_path, "--node-url", server.url, "--api", "evm", exit_code=3)
    skipped = set(identifier_skips(report))
    reasons = {t.get("message") for t in report["tests"] if t["id"] in skipped}
    assert skipped and reasons == {"no EVM chain the node serves found: searched eth_chainId at /ext/bc/C/rpc "
                       "(or pass --evm-chain BLOCKCHAIN_ID_OR_ALIAS)"}


def test_the_clean_reference_passes_every_test_with_every_identifier_discovered() -> None:
    from tests.suite_runs import run_suite

    with ReferenceServer(seed=5) as target:
        run = run_suite(target, ["--pyargs", "conformance.suite"], "--conformance-seed", "5", evm_chain=False)
    assert run.failures() == [], "\n\n".join(f"{o.nodeid}\n{o.message}" for o in run.failures())
    ran = {o.nodeid.split("::")[0] for o in run.outcomes.values() if o.outcome == "passed"}
    assert {"conformance/suite/rpc/evm/test_chain_config.py", "conformance/suite/data/test_chains.py",
            "conformance/suite/metrics/test_avg_tps.py"} <= ran
