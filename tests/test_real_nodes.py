"""The EVM part of the suite against three stock Ethereum nodes nobody here wrote: each is reported by exactly its
own deviations, every other rule the EVM tests carry is decided, and every count of a run says the same.

None of them serves the document's three extra methods (an EVM chain of the network serves them; a plain Ethereum
node does not), and each says so its own way: anvil with -32601, ganache with -32700 and a stack trace, hardhat
with -32004 (EIP-1474's "method not supported"). Each absence is one deviation, charged to the rule that the method
is served; that method's other rules are untested, blocked by it.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from collections.abc import Iterator

import pytest

from conformance import config
from conformance.checks.served import SERVED_RULES
from conformance.errors import ConfigError
from conformance.rules import load_catalogue
from tests.real_nodes import Node, live_chain, running, seed
from tests.suite_runs import SuiteRun, run_suite

NOT_SERVED = {"RPC-EVM-033": "eth_feeConfig, an extra method of the document's EVM chains, is not served",
              "RPC-EVM-034": "eth_getChainConfig, an extra method of the document's EVM chains, is not served",
              "RPC-EVM-035": "eth_getActiveRulesAt, an extra method of the document's EVM chains, is not served"}
BLOCK_HASH_REFUSED = ("a bare block hash as the block parameter is refused; the execution-apis block parameter "
                      "(BlockNumberOrTagOrHash) accepts one")
#: Node -> rule -> why the node truly contradicts the rule: the rules a run against it must fail, and no other.
DEVIATIONS: dict[str, dict[str, str]] = {
    "anvil": NOT_SERVED,
    "ganache": {**NOT_SERVED,
                "RPC-ENV-009": "a body that is not JSON is answered HTTP 400 text/plain, not with the error object "
                               "JSON-RPC 2.0 asks for (-32700 Parse error)",
                "RPC-ENV-011": "an empty batch [] is answered [], not with the one error object JSON-RPC 2.0 §6 "
                               "asks for",
                "RPC-ETH-009": BLOCK_HASH_REFUSED, "RPC-ETH-010": BLOCK_HASH_REFUSED,
                "RPC-ETH-011": BLOCK_HASH_REFUSED},
    "hardhat": {**NOT_SERVED,
                "RPC-ENV-011": "an empty batch [] is answered [], not with the one error object JSON-RPC 2.0 §6 "
                               "asks for",
                "RPC-ETH-009": BLOCK_HASH_REFUSED, "RPC-ETH-010": BLOCK_HASH_REFUSED,
                "RPC-ETH-011": BLOCK_HASH_REFUSED},
}
#: Rules whose tests skip on every one of these nodes for what the document allows, with the reason.
ALLOWED_SKIPS = {"RPC-EVM-028": "eth_getActivePrecompilesAt is deprecated and may be gone (RPC-EVM-029)",
                 "RPC-EVM-039": "eth_getActivePrecompilesAt is deprecated and may be gone (RPC-EVM-029)",
                 "RPC-EFF-006": "eth_getActivePrecompilesAt is deprecated and may be gone (RPC-EVM-029)",
                 "RPC-EFF-003": "ganache takes no block hash for the account methods: the two forms cannot be compared"}
#: What a skip of the EVM tests may say: a method not served (blocked by its rule), or one of the reasons above.
SKIP_REASONS = ("blocked by RPC-EVM-03", "eth_getActivePrecompilesAt (deprecated) is not served",
                "undecided: eth_getActivePrecompilesAt refuses both",
                "does not answer both forms of a block")
NODES = sorted(DEVIATIONS)


@pytest.fixture(scope="module", params=NODES)
def node_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, SuiteRun,
                                                                                                         Path]]:
    """One standard run of the EVM part of the suite against the node, seeded and moving, by its URL alone."""
    name = request.param
    reports = tmp_path_factory.mktemp(name)
    with running(Node(name)) as url:
        contract = seed(url)
        with live_chain(url, contract):
            run = run_suite(None, ["--pyargs", "conformance.suite"], "--evm-rpc-url", url, "--api", "evm",
                            "--conformance-profile", "standard", "--report-dir", str(reports))
    yield name, run, reports


def rules_of(reports: Path) -> dict[str, dict]:
    return {rule["id"]: rule for rule in json.loads((reports / "report.json").read_text())["rules"]}


def test_the_rules_a_node_fails_are_exactly_its_deviations(node_run: tuple[str, SuiteRun, Path]) -> None:
    name, run, reports = node_run
    failing = {rule_id for rule_id, rule in rules_of(reports).items() if rule["status"] == "fail"}
    assert failing == set(DEVIATIONS[name]), "\n\n".join(
        f"{o.nodeid}\n{o.message}" for o in run.failures() if set(o.broken) - set(DEVIATIONS[name]))
    assert not [o.nodeid for o in run.outcomes.values() if o.outcome == "error"]
    assert run.exit_code == 1


def test_every_other_rule_of_the_evm_tests_is_decided(node_run: tuple[str, SuiteRun, Path]) -> None:
    """Passed, observed, or untested because a method is not served (blocked by the rule that it is)."""
    name, _, reports = node_run
    served = set(SERVED_RULES.values())
    undecided = {rule_id: (rule["status"], rule.get("blocked_by")) for rule_id, rule in rules_of(reports).items()
                 if rule["tests"] and rule_id not in DEVIATIONS[name] and rule_id not in ALLOWED_SKIPS
                 and not (rule["status"] in ("pass", "observed")
                          or rule["status"] == "untested" and set(rule.get("blocked_by") or ()) & served)}
    assert undecided == {}


def test_a_method_not_served_is_reported_once_and_blocks_its_other_rules(
        node_run: tuple[str, SuiteRun, Path]) -> None:
    _, run, reports = node_run
    catalogue = load_catalogue()
    rules = rules_of(reports)
    for method, served_rule in SERVED_RULES.items():
        if not method.startswith("eth_"):
            continue
        reports_of_it = [o for o in run.failures() if f"method not served: {method}" in o.message]
        assert len(reports_of_it) == 1 and served_rule in reports_of_it[0].broken, (method, reports_of_it)
        own = [rule_id for rule_id, rule in rules.items()
               if rule["tests"] and catalogue[rule_id].applies_to == (method,) and rule_id != served_rule]
        assert own and all(rules[rule_id]["blocked_by"] == [served_rule] for rule_id in own), own


SUITE_LINE = re.compile(r"tests: (\d+) passed, (\d+) failed, (\d+) errors, (\d+) skipped")
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?)\b")


def test_every_count_of_the_run_agrees(node_run: tuple[str, SuiteRun, Path]) -> None:
    _, run, reports = node_run
    assert_counts_agree(run.output, reports)


def test_the_command_line_run_counts_alike_and_lists_every_report(tmp_path: Path) -> None:
    """`conformance run`, as a new user types it on a dev chain `conformance seed-dev-chain` gave something to
    read, in the quick profile: the same agreement, and the closing lines name every report written."""
    with running(Node("ganache")) as url:
        seeded = subprocess.run([sys.executable, "-m", "conformance", "seed-dev-chain", url], capture_output=True,
                                text=True, timeout=120)
        assert seeded.returncode == 0 and "a contract at 0x" in seeded.stdout, seeded.stdout + seeded.stderr
        done = subprocess.run([sys.executable, "-m", "conformance", "run", "--evm-rpc-url", url, "--api", "evm",
                               "--profile", "quick", "--report-dir", str(tmp_path)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert_counts_agree(done.stdout, tmp_path)
    assert "reports written: report.json, junit.xml, summary.md, report.html" in done.stdout
    assert "../" not in done.stdout, "test paths are shown from the suite's folder, wherever the run starts"
    failing = {rule["id"] for rule in json.loads((tmp_path / "report.json").read_text())["rules"]
               if rule["status"] == "fail"}
    assert failing == set(DEVIATIONS["ganache"])


def assert_counts_agree(output: str, reports: Path) -> None:
    """pytest's line, the suite's line, junit.xml, summary.md and report.json count the same tests the same way."""
    summary = json.loads((reports / "report.json").read_text())["summary"]
    expected = {"passed": summary["passed"], "failed": summary["failed"], "errors": summary["errors"],
                "skipped": summary["skipped"]}
    last = [line for line in output.splitlines() if re.search(r"\d+ passed", line) and " in " in line][-1]
    pytest_line = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    pytest_line.update({("errors" if word.startswith("error") else word): int(n)
                        for n, word in PYTEST_COUNT.findall(last)})
    assert pytest_line == expected, last
    suite = SUITE_LINE.search(output)
    assert suite and dict(zip(("passed", "failed", "errors", "skipped"), map(int, suite.groups()))) == expected
    junit = ET.parse(reports / "junit.xml").getroot()
    assert {"failed": int(junit.get("failures", -1)), "errors": int(junit.get("errors", -1)),
            "skipped": int(junit.get("skipped", -1))} == {k: expected[k] for k in ("failed", "errors", "skipped")}
    assert int(junit.get("tests", -1)) == summary["tests"] == sum(expected.values())
    markdown = (reports / "summary.md").read_text()
    assert (f"Tests: {expected['passed']} passed, {expected['failed']} failed, {expected['errors']} errors, "
            f"{expected['skipped']} skipped") in markdown


def test_only_the_selected_api_is_collected_and_each_skip_names_its_true_reason(
        node_run: tuple[str, SuiteRun, Path]) -> None:
    _, run, reports = node_run
    assert "deselected" not in run.output
    tests = json.loads((reports / "report.json").read_text())["tests"]
    assert not [t["id"] for t in tests if re.search(r"/(admin|index|validators)/|\[(admin|index|validators)", t["id"])]
    odd = {t["id"]: t["message"] for t in tests if t["outcome"] == "skipped"
           and not any(reason in t["message"] for reason in SKIP_REASONS)}
    assert odd == {}


def test_an_evm_rpc_url_alone_tests_the_evm_api_and_starts_no_reference(tmp_path: Path) -> None:
    target = config.resolve({"evm_rpc_url": "http://127.0.0.1:8545/"}, env={}, cwd=tmp_path)
    assert (target.apis, target.reference, target.evm_rpc_url) == (("evm",), False, "http://127.0.0.1:8545")
    with pytest.raises(ConfigError, match="--evm-rpc-url"):
        config.resolve({"evm_rpc_url": "127.0.0.1:8545"}, env={}, cwd=tmp_path)
    with pytest.raises(ConfigError, match="--api validators"):
        config.resolve({"evm_rpc_url": "http://127.0.0.1:8545", "api": "evm,validators"}, env={}, cwd=tmp_path)
