"""The declared effects of the Metrics API's parameters, and its declared relations: derived from `x-effects` and
`x-identity` in specs/openapi/metrics-api.yaml, one test per declaration."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.checks import effects, independently
from conformance.checks.metrics import metric_path
from conformance.checks.timeseries import shift_periods
from conformance.clients.http import Exchange
from conformance.clients.rest import RestClient
from conformance.meaning import declarations, members
from conformance.meaning.declarations import Declaration
from conformance.pagination import walk_pages
from conformance.profiles import Profile
from conformance.suite.metrics.conftest import CHAIN

API = "metrics"
EFFECTS = declarations.checked(declarations.effects(API))
RELATIONS = declarations.of_kind("identity", API)
#: Points a bound is placed among: a window of this many periods before the latest.
PERIODS = 12


def cases(kind: str) -> list[Any]:
    return [pytest.param(effect, marks=pytest.mark.rule(effect.rule), id=effect.id)
            for effect in EFFECTS if effect.kind == kind]


def points(exchanges: list[Exchange]) -> list[tuple[Exchange, list[Any]]]:
    out = []
    for exchange in exchanges:
        body = exchange.json() if exchange.status == 200 and exchange.is_json() else None
        results = body.get("results") if isinstance(body, dict) else None
        out.append((exchange, [p for p in results if isinstance(p, dict)] if isinstance(results, list) else []))
    return out


def timestamp(point: Any) -> str:
    return str(members.first(point, "timestamp"))


@pytest.mark.parametrize("effect", cases("bound"))
def test_a_bound_placed_on_a_point_s_own_timestamp(metrics_api: RestClient, latest_day: int, profile: Profile,
                                                   effect: Declaration) -> None:
    """A bound one period inside a point's timestamp keeps the point, one period outside drops it, one second
    past it (strictly inside the point's period) drops it too, and no point of any page lies beyond the bound
    (whether a point exactly on it is kept is not shown)."""
    requires = dict(effect.get("requires", {}))
    metric, interval = requires.pop("metric"), requires.get("timeInterval", "day")
    path = metric_path(CHAIN, metric)
    start = shift_periods(latest_day, interval, -PERIODS)
    base = points(walk_pages(metrics_api, path, {**requires, "startTimestamp": start, "pageSize": PERIODS + 5},
                             budget=1).exchanges)
    found = sorted((int(ts), point) for _, page in base for point in page
                   if isinstance(ts := members.number(point.get("timestamp")), int))
    if len(found) < 5:
        pytest.skip(f"{metric} has fewer than five {interval} points to place a bound among")
    at, point = found[len(found) // 2]
    lower = effect.get("side") == "lower"
    budget = profile.pages
    # (periods moved, or a second past the point's own timestamp; whether the point is kept)
    placements = ((-1 if lower else 1, 0, True), (1 if lower else -1, 0, False), (0, 1 if lower else -1, False))
    for moved, seconds, present in placements:
        bound = shift_periods(at, interval, moved) + seconds
        other = shift_periods(at, interval, 2 if lower else -2)
        sent = {**requires, effect.name: bound, effect.get("pair"): other}
        # every page of a walk in small pages keeps the bound; whether a point is in the window is read from one
        # page that holds the whole window (how pages split a window is the pagination rules' question)
        paged = {**sent, "pageSize": 2}
        with independently():
            effects.assert_bound_on_every_page(
                _on_points(effect), points(walk_pages(metrics_api, path, paged, budget=budget).exchanges), bound,
                paged)
        whole = {**sent, "pageSize": PERIODS}
        exchange = metrics_api.get(path, whole)
        with independently():
            effects.assert_presence(_on_points(effect), points([exchange]), timestamp, point, present=present,
                                    decided=True, sent=whole,
                                    why="the point lies inside the window" if present else
                                    "the point lies outside the window")


def _on_points(effect: Declaration) -> Declaration:
    """The declaration as the checks read it for one point at a time (its member within a point)."""
    return Declaration(effect.api, effect.kind, effect.subject, effect.name, effect.rule, effect.quote,
                       {**effect.spec, "member": effect.get("member_of_item", "timestamp")})


@pytest.mark.parametrize("declaration", [pytest.param(d, marks=pytest.mark.rule(d.rule), id=d.id) for d in RELATIONS])
def test_every_answer_keeps_the_declared_relation(metrics_api: RestClient, latest_day: int,
                                                  declaration: Declaration) -> None:
    """A series read as pages of two and as one page: the run's watch compares each point seen twice."""
    path = metric_path(CHAIN, "txCount")
    query = {"timeInterval": "day", "startTimestamp": shift_periods(latest_day, "day", -6)}
    walk_pages(metrics_api, path, {**query, "pageSize": 2}, budget=3)
    whole = metrics_api.get(path, {**query, "pageSize": 20})
    if not points([whole])[0][1]:
        pytest.skip("txCount has no daily point to compare")
