"""Reproduce before accusing: a deviation seen once against a live target is run again before it is called a
failure; one that does not show again makes its rule flaky, and a true deviation still fails."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.delay_proxy import DelayProxy
from conformance.reference import ReferenceServer
from tests.suite_runs import Behind, run_suite

SUITE = ["--pyargs", "conformance.suite", "--recheck", "3"]



def _rules(report_dir: Path) -> dict[str, dict[str, Any]]:
    return {rule["id"]: rule for rule in json.loads((report_dir / "report.json").read_text())["rules"]}


def test_an_odd_answer_now_and_then_makes_rules_flaky_never_failing(tmp_path: Path) -> None:
    """Every API: an odd answer kept in the run's cache, a fixture or a reader is asked again too."""
    with ReferenceServer() as server, DelayProxy(server.url, 0.0, swap_every=25) as proxy:
        # mutating tests are never run again: a swapped answer to a write could only be believed
        run = run_suite(Behind(proxy.url, server), SUITE, f"--report-dir={tmp_path}", allow_mutations=False)
    assert proxy.swapped > 5
    rules = _rules(tmp_path)
    assert [rule_id for rule_id, rule in rules.items() if rule["status"] == "fail"] == [], run.output[-3000:]
    flaky = {rule_id: rule for rule_id, rule in rules.items() if rule["status"] == "flaky"}
    assert flaky, "no odd answer broke a check"
    seen = next(iter(flaky.values()))["flaky"][0]
    assert seen["reproducer"] and seen["answers"] and sum(answer["count"] for answer in seen["answers"]) >= 2
    assert run.exit_code == 0, "a flaky rule does not fail the gate"


def test_a_true_deviation_behind_the_same_proxy_still_fails(tmp_path: Path) -> None:
    with ReferenceServer(faults=["ContainerIndexAsNumber"]) as server, \
            DelayProxy(server.url, 0.0, swap_every=25) as proxy:
        run = run_suite(Behind(proxy.url, server), [*SUITE, "--api", "index"], "--rule", "RPC-IDX-014", "-k", "X/tx",
                        f"--report-dir={tmp_path}")
    assert _rules(tmp_path)["RPC-IDX-014"]["status"] == "fail"
    assert run.exit_code == 1


def test_flaky_fails_the_gate_when_asked(tmp_path: Path) -> None:
    with ReferenceServer() as server, DelayProxy(server.url, 0.0, swap_every=25) as proxy:
        run = run_suite(Behind(proxy.url, server), [*SUITE, "--api", "index"], "--flaky", "fail",
                        f"--report-dir={tmp_path}")
    flaky = [rule_id for rule_id, rule in _rules(tmp_path).items() if rule["status"] == "flaky"]
    assert (run.exit_code == 1) == bool(flaky)


def test_a_request_sent_again_is_the_same_whatever_its_json_rpc_id() -> None:
    from conformance.plugin.recheck import same_request
    first = ("POST", "http://node/rpc", b'{"jsonrpc":"2.0","id":6,"method":"eth_feeConfig","params":[]}')
    again = ("POST", "http://node/rpc", b'{"method":"eth_feeConfig","params":[],"jsonrpc":"2.0","id":9}')
    other = ("POST", "http://node/rpc", b'{"jsonrpc":"2.0","id":6,"method":"eth_chainId","params":[]}')
    assert same_request(first) == same_request(again) != same_request(other)
    assert same_request(("GET", "http://data/v1/x?a=1", None)) == ("GET", "http://data/v1/x?a=1", None)
