"""Validator filters: validationStatus, nodeIds, subnetId and the fee percentage filters keep only what they name,
on every page a walk reads; and a validation listed by listValidators is found again under its node."""
from __future__ import annotations

from collections import Counter
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check, data as checks, data_pages as pages
from conformance.checks.data_pages import DataWalk
from conformance.clients.http import Exchange
from conformance.suite.data.conftest import DataApi, variant

STATUSES = checks.enum("listValidators", "validationStatus")
MAX = checks.plain_page_size("listValidators")   # a page inside every bound: the bound is not on trial


def validators(data: DataApi, rule: str, params: dict[str, Any], **path: str) -> tuple[Exchange, list[dict]]:
    exchange = data.once("listValidators", {"pageSize": MAX, **params}, **path)
    body = checks.served(exchange, rule, f"listValidators with {params}")
    return exchange, [v for v in checks.items_of("listValidators", body) if isinstance(v, dict)]


def filtered(data: DataApi, operation_id: str, rule: str, params: dict[str, Any], **path: str) -> DataWalk:
    """The walk of the route with the filter (every page a filter test reads); its first page must be served."""
    walk = data.filtered(operation_id, params, **path)
    pages.require_walk(walk, rule, f"{operation_id} with {params}")
    return walk


def every_page(rule: str, walk: DataWalk, holds: Callable[[dict], bool], summary: str, expected: str,
               member: str) -> None:
    pages.assert_every_page(walk, rule, holds, summary=summary, expected=expected,
                            shown=lambda item: {member: item.get(member)})


def fee(item: dict) -> float | None:
    value = checks.number(item.get("delegationFee"))
    return float(value) if value is not None else None


def statuses() -> list[object]:
    """Every documented status in exhaustive profiles; quick tries active, the status most lists hold."""
    return [variant(status, quick=status == "active", id=status) for status in STATUSES]


@pytest.mark.rule("DATA-FLT-001")
@pytest.mark.parametrize("status", statuses())
def test_list_validators_status_filter(data: DataApi, status: str) -> None:
    """listValidators with validationStatus returns only validators of that status."""
    walk = filtered(data, "listValidators", "DATA-FLT-001", {"validationStatus": status})
    every_page("DATA-FLT-001", walk, lambda v: v.get("validationStatus", status) == status,
               f"validationStatus={status} returns other statuses", f"only {status}", "validationStatus")


@pytest.mark.rule("DATA-FLT-002")
@pytest.mark.parametrize("status", statuses())
def test_validators_by_node_status_filter(data: DataApi, status: str) -> None:
    """getValidatorsByNode with validationStatus returns only validations of that status."""
    walk = filtered(data, "getValidatorsByNode", "DATA-FLT-002", {"validationStatus": status})
    every_page("DATA-FLT-002", walk, lambda v: v.get("validationStatus", status) == status,
               f"validationStatus={status} returns other statuses", f"only {status}", "validationStatus")


@pytest.mark.rule("DATA-FLT-037")
def test_validators_by_node_are_of_that_node(data: DataApi) -> None:
    """getValidatorsByNode returns only validations of the node in the path."""
    node = data.node_id()
    walk = filtered(data, "getValidatorsByNode", "DATA-FLT-037", {}, nodeId=node)
    every_page("DATA-FLT-037", walk, lambda v: v.get("nodeId", node) == node,
               "validations of other nodes are returned", f"only nodeId {node}", "nodeId")


def node_part(node: str) -> str:
    """A distinctive inner part of a node ID (past the NodeID- prefix, without the last characters)."""
    core = node.split("-", 1)[-1]
    return core[2:-3] if len(core) > 10 else core


@pytest.mark.rule("DATA-FLT-003")
def test_node_ids_filter_matches_substrings(data: DataApi) -> None:
    """listValidators with nodeIds returns only validators whose nodeId contains the value."""
    part = node_part(data.node_id())   # the value the part-of-an-ID test sends too
    walk = filtered(data, "listValidators", "DATA-FLT-003", {"nodeIds": part})
    every_page("DATA-FLT-003", walk, lambda v: part in str(v.get("nodeId", part)),
               "nodeIds returns nodes that do not contain the value", f"node IDs containing {part!r}", "nodeId")


@pytest.mark.rule("DATA-FLT-004")
def test_node_ids_part_finds_the_node(data: DataApi) -> None:
    """listValidators with nodeIds set to part of a listed node ID returns that node."""
    node = data.node_id()
    walk = filtered(data, "listValidators", "DATA-FLT-004", {"nodeIds": node_part(node)})
    found = {v.get("nodeId") for v in walk.items if isinstance(v, dict)}
    check(node in found, "DATA-FLT-004", "a node is not found by part of its ID",
          expected=f"{node} among the validators", received=sorted(map(str, found))[:5],
          exchange=walk.walk.exchanges[0])


@pytest.mark.rule("DATA-FLT-005")
def test_two_node_ids_find_both(data: DataApi) -> None:
    """listValidators with two comma-separated node IDs returns both nodes."""
    nodes = list(dict.fromkeys(data.validator_node_ids))[:2]
    if len(nodes) < 2:
        pytest.skip("the target lists fewer than two nodes")
    found: set[Any] = set()
    walk = data.walk("listValidators", {"pageSize": MAX, "nodeIds": ",".join(nodes)})
    if not walk.walk.pages:
        checks.served(walk.walk.exchanges[0], "DATA-FLT-005", "listValidators with two nodeIds")
    found = {v.get("nodeId") for v in walk.items if isinstance(v, dict)}
    check(set(nodes) <= found or not walk.ended and found, "DATA-FLT-005", "two node IDs do not return both nodes",
          expected=f"{nodes}", received=sorted(map(str, found))[:5], exchange=walk.walk.exchanges[0])


def subnets(data: DataApi) -> tuple[str | None, str]:
    """(the primary network's subnet ID when known, another subnet: given, or seen among validators or
    blockchains)."""
    if data.sample("primary_subnet_id") and data.sample("subnet_id"):
        return data.sample("primary_subnet_id"), data.need("subnet_id")
    _, items = validators(data, "DATA-FLT-006", {})
    counts = Counter(subnet for v in items if isinstance(subnet := v.get("subnetId"), str))
    primary = data.sample("primary_subnet_id") or (counts.most_common(1)[0][0] if counts else None)
    if data.sample("subnet_id"):
        return primary, data.need("subnet_id")
    others = [s for s, _ in counts.most_common() if s != primary]
    if not others:  # the listing may hide subnet validations: blockchains name their subnets too
        exchange = data.once("listBlockchains", {"pageSize": checks.plain_page_size("listBlockchains")})
        chains = checks.items_of("listBlockchains", checks.served(exchange, "DATA-FLT-006", "listBlockchains"))
        others = list(dict.fromkeys(c["subnetId"] for c in chains if isinstance(c, dict)
                                    and isinstance(c.get("subnetId"), str) and c["subnetId"] != primary))
    if not others:
        pytest.skip("neither validators nor blockchains show a subnet other than the primary network")
    return primary, others[-1]


@pytest.mark.rule("DATA-FLT-006")
def test_subnet_filter(data: DataApi) -> None:
    """listValidators with subnetId returns only validators of that subnet."""
    _, subnet = subnets(data)
    walk = filtered(data, "listValidators", "DATA-FLT-006", {"subnetId": subnet})
    every_page("DATA-FLT-006", walk, lambda v: v.get("subnetId", subnet) == subnet,
               "subnetId returns validators of other subnets", f"only subnet {subnet}", "subnetId")


@pytest.mark.rule("DATA-FLT-007")
def test_without_subnet_all_subnets_are_returned(data: DataApi) -> None:
    """listValidators without subnetId also returns what a subnetId filter for another subnet returns."""
    _, subnet = subnets(data)
    _, filtered = validators(data, "DATA-FLT-007", {"subnetId": subnet})   # the subnet filter test's listing
    if not filtered or not isinstance(filtered[0].get("nodeId"), str):
        pytest.skip(f"subnet {subnet} lists no validator with a nodeId")
    wanted = checks.identity("listValidators", filtered[0])
    exchange, items = validators(data, "DATA-FLT-007", {"nodeIds": filtered[0]["nodeId"]})
    check(wanted in {checks.identity("listValidators", v) for v in items}, "DATA-FLT-007",
          "a subnet validation is missing when subnetId is absent", expected=f"the validation {wanted}",
          received=f"{len(items)} validations of the node", exchange=exchange)


@pytest.mark.parametrize(("rule", "parameter", "value"), [
    pytest.param("DATA-FLT-008", "minFeePercentage", 2, marks=pytest.mark.rule("DATA-FLT-008"), id="min"),
    pytest.param("DATA-FLT-009", "maxFeePercentage", 100, marks=pytest.mark.rule("DATA-FLT-009"), id="max")])
def test_fee_filter_excludes_subnet_validations(data: DataApi, rule: str, parameter: str, value: int) -> None:
    """A populated fee filter returns no subnet validation (their fee percentage is null)."""
    walk = filtered(data, "listValidators", rule, {parameter: value})
    primary = data.sample("primary_subnet_id")
    every_page(rule, walk, lambda v: not ("delegationFee" in v and v["delegationFee"] is None),
               f"{parameter} returns validations with a null fee", "no subnet validation", "delegationFee")
    if primary:
        every_page(rule, walk, lambda v: v.get("subnetId", primary) == primary,
                   f"{parameter} returns subnet validations", "only primary network validations", "subnetId")


@pytest.mark.parametrize(("rule", "parameter"), [
    pytest.param("DATA-FLT-010", "minFeePercentage", marks=pytest.mark.rule("DATA-FLT-010"), id="min"),
    pytest.param("DATA-FLT-011", "maxFeePercentage", marks=pytest.mark.rule("DATA-FLT-011"), id="max")])
def test_fee_filter_bounds_the_fee(data: DataApi, rule: str, parameter: str) -> None:
    """A fee filter returns only validators whose delegationFee is within it."""
    _, seen = validators(data, rule, {"minFeePercentage": 2})
    fees = sorted(f for f in map(fee, seen) if f is not None)
    bound = fees[len(fees) // 2] if fees else 10.0
    bound = min(max(bound, 2.0), 100.0)
    walk = filtered(data, "listValidators", rule, {parameter: bound})
    within = (lambda f: f >= bound) if parameter.startswith("min") else (lambda f: f <= bound)
    every_page(rule, walk, lambda v: fee(v) is None or within(fee(v)), f"{parameter}={bound} returns fees beyond it",
               f"delegationFee {'>=' if parameter.startswith('min') else '<='} {bound}", "delegationFee")


@pytest.mark.rule("DATA-FLT-012")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_range_filters_are_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """How many validators the capacity, time remaining and uptime filters leave is recorded."""
    seen = {}
    tried: tuple[dict[str, Any], ...] = ({}, {"minUptimePerformance": 99}, {"minDelegationCapacity": "1000000000000"},
                                         {"minTimeRemaining": 86400 * 30})
    for params in tried if data.exhaustive else tried[:2]:
        exchange = data.once("listValidators", {"pageSize": MAX, **params})
        seen[str(params or "none")] = len(checks.items_of("listValidators", exchange.json())) \
            if exchange.status == 200 else exchange.status
    observe("DATA-FLT-012", seen)


def same_validation(listed: dict, found: dict) -> bool:
    """Whether two validator items are the same validation: by txHash where both carry one, else by its period."""
    if isinstance(listed.get("txHash"), str) and isinstance(found.get("txHash"), str):
        return listed["txHash"] == found["txHash"]
    return (listed.get("startTimestamp"), listed.get("endTimestamp")) == \
        (found.get("startTimestamp"), found.get("endTimestamp"))


@pytest.mark.rule("DATA-REL-001")
def test_listed_validation_is_found_under_its_node(data: DataApi) -> None:
    """Each primary network validation listValidators lists for a node is returned by getValidatorsByNode for it."""
    node = data.node_id()
    # the listing the node was discovered from (whether it is served is the listValidators rules' question)
    listing = checks.input_of(data.once("listValidators", {"pageSize": MAX}), "listValidators")
    items = [v for v in checks.items_of("listValidators", listing) if isinstance(v, dict)]
    primary = data.sample("primary_subnet_id")
    # Subnet validations aside: which subnets the node's own listing covers is not shown.
    listed = [v for v in items if v.get("nodeId") == node and
              (v.get("subnetId") == primary if primary else isinstance(v.get("delegationFee"), str))]
    if not listed:
        pytest.skip(f"listValidators lists no primary network validation of {node}")
    walk = data.filtered("getValidatorsByNode", {"pageSize": MAX}, nodeId=node)
    checks.input_of(walk.walk.exchanges[0], f"getValidatorsByNode of {node}")
    found = [v for v in walk.items if isinstance(v, dict)]
    missing = [v for v in listed if not any(same_validation(v, f) for f in found)]
    if missing and not walk.ended:
        pytest.skip(f"the validations of {node} did not end within {len(walk.walk.exchanges)} pages")
    check(not missing, "DATA-REL-001", f"getValidatorsByNode leaves out validations listValidators lists for {node}",
          expected=f"the {len(listed)} validations listed for {node}, among them "
                   f"{[(v.get('txHash'), v.get('validationStatus')) for v in missing[:3]]}",
          received=f"{len(found)} validations: {[(v.get('txHash'), v.get('validationStatus')) for v in found[:5]]}",
          exchange=walk.walk.exchanges[0])
