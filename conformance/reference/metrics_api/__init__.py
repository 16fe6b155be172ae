"""The metrics REST API of the reference target: 17 time series per chain and the v1 average TPS route."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from conformance.reference.calls import HttpReply, RestCall
from conformance.reference.metrics_api.intervals import GRIDS, Grid
from conformance.reference.metrics_api.tokens import BadRequest, Query, TokenStore
from conformance.reference.rest import RestError, RestService, phrase

if TYPE_CHECKING:
    from conformance.reference.world import World

INTERVALS = ("hour", "day", "week", "month")
_DAY_ONLY = ("day",)
#: The 17 metrics and the intervals each is served at.
METRICS: dict[str, tuple[str, ...]] = {
    "activeAddresses": INTERVALS, "activeSenders": INTERVALS, "gasUsed": INTERVALS, "txCount": INTERVALS,
    "cumulativeTxCount": _DAY_ONLY, "cumulativeAddresses": _DAY_ONLY, "cumulativeContracts": _DAY_ONLY,
    "cumulativeDeployers": _DAY_ONLY, "contracts": _DAY_ONLY, "deployers": _DAY_ONLY, "avgGps": _DAY_ONLY,
    "maxGps": _DAY_ONLY, "avgTps": _DAY_ONLY, "maxTps": _DAY_ONLY, "avgGasPrice": _DAY_ONLY,
    "maxGasPrice": _DAY_ONLY, "feesPaid": _DAY_ONLY,
}
PAGE_SIZE_MIN, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT = 1, 2160, 100
#: not shown: the interval applied without timeInterval; every metric supports day, so day it is.
DEFAULT_INTERVAL = "day"
AGGREGATE_CHAINS = ("total", "mainnet", "testnet")
#: not shown: the extent and page size of the average TPS series; the reference serves the hourly
#: average of the last 14 days, newest first, 100 points a page.
AVG_TPS_HOURS = 14 * 24
AVG_TPS_PAGE = 100
_INTEGER = re.compile(r"^-?\d+$")

METRIC_ROUTE = "/v2/chains/{chainId}/metrics/{metric}"
AVG_TPS_ROUTE = "/v1/avg_tps/{chainId}"


class MetricsService(RestService):
    api = "metrics"

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world
        self.tokens = TokenStore(world.seed, lambda: world.clock.now)
        self.route("GET", METRIC_ROUTE, self.metric)
        self.route("GET", AVG_TPS_ROUTE, self.avg_tps)

    def error_body(self, status: int, message: str | list[str]) -> dict[str, Any]:
        return {"message": message if isinstance(message, list) else [message], "statusCode": status,
                "error": phrase(status)}

    def dispatch(self, call: RestCall) -> HttpReply:
        try:
            return super().dispatch(call)
        except BadRequest as exc:
            return HttpReply(400, self.error_body(400, exc.messages))

    # Routes -----------------------------------------------------------------------------------------------

    def metric(self, call: RestCall) -> dict[str, Any]:
        """GET /v2/chains/{chainId}/metrics/{metric}: one page of a metric's series, newest point first."""
        chain = self._chain(call)
        metric = call.path_params["metric"]
        errors: list[str] = []
        if metric not in METRICS:
            errors.append(f"metric must be one of the following values: {', '.join(METRICS)}")
        interval = call.first("timeInterval") or None
        if interval is not None and interval not in INTERVALS:
            errors.append(f"timeInterval must be one of the following values: {', '.join(INTERVALS)}")
        start = _integer(call, "startTimestamp", errors, minimum=0)
        end = _integer(call, "endTimestamp", errors, minimum=0)
        size = _integer(call, "pageSize", errors, minimum=PAGE_SIZE_MIN, maximum=PAGE_SIZE_MAX)
        if errors:
            raise BadRequest(errors)
        given: Query = {"route": "metrics", "chainId": chain, "metric": metric, "timeInterval": interval,
                        "startTimestamp": start, "endTimestamp": end}
        query, cursor = self._resume(call, given, default={"timeInterval": DEFAULT_INTERVAL})
        interval = query["timeInterval"]
        if interval not in METRICS[metric]:
            raise BadRequest([f"timeInterval {interval} is not supported for metric {metric}; "
                              f"it supports only {', '.join(METRICS[metric])}"])
        grid = GRIDS[interval]
        with self.world.lock:
            as_of = self.world.metrics.as_of()
            first, last = self.world.metrics.span(grid, as_of)
            low, high = _window(grid, first, last, query["startTimestamp"], query["endTimestamp"])
            if cursor is not None:
                high = min(high, grid.index(cursor) - 1)
            indices = range(high, max(low, high - (size or PAGE_SIZE_DEFAULT) + 1) - 1, -1)
            results = [self.world.metrics.point(chain, metric, grid, i, as_of) for i in indices]
        body: dict[str, Any] = {"results": results}
        if results and indices[-1] > low:
            body = {"nextPageToken": self.tokens.issue(query, cast(int, results[-1]["timestamp"])), **body}
        return body

    def avg_tps(self, call: RestCall) -> dict[str, Any]:
        """GET /v1/avg_tps/{chainId}: hourly average transactions per second, newest first."""
        chain = self._chain(call)
        query, cursor = self._resume(call, {"route": "avg_tps", "chainId": chain}, default={})
        grid = GRIDS["hour"]
        with self.world.lock:
            as_of = self.world.metrics.as_of()
            first, high = self.world.metrics.span(grid, as_of)
            low = max(first, high - AVG_TPS_HOURS + 1)
            if cursor is not None:
                high = min(high, grid.index(cursor) - 1)
            indices = range(high, max(low, high - AVG_TPS_PAGE + 1) - 1, -1)
            results = [self.world.metrics.point(chain, "avgTps", grid, i, as_of) for i in indices]
        body: dict[str, Any] = {"results": results, "status": 200, "lastRun": as_of}
        if results and indices[-1] > low:
            body["nextPageToken"] = self.tokens.issue(query, cast(int, results[-1]["timestamp"]))
        return body

    # Parameters -------------------------------------------------------------------------------------------

    def _chain(self, call: RestCall) -> str:
        chain = call.path_params["chainId"]
        if chain not in AGGREGATE_CHAINS and chain != str(self.world.evm_chain_id):
            # not shown: the answer for an unsupported chain; the reference says the resource does not exist
            raise RestError(404, f"chain {chain} is not supported")
        return chain

    def _resume(self, call: RestCall, given: Query, *, default: Query) -> tuple[Query, int | None]:
        token = call.first("pageToken")
        if token:
            return self.tokens.resume(token, given)
        return {**given, **{k: v for k, v in default.items() if given.get(k) is None}}, None


def _integer(call: RestCall, name: str, errors: list[str], *, minimum: int,
             maximum: int | None = None) -> int | None:
    """An integer query parameter; a malformed or out-of-range value adds its message to `errors`."""
    raw = call.first(name)
    if raw is None or raw == "":
        return None
    if not _INTEGER.match(raw):
        errors.append(f"{name} must be an integer number")
        return None
    value = int(raw)
    if value < minimum:
        errors.append(f"{name} must not be less than {minimum}")
    elif maximum is not None and value > maximum:
        errors.append(f"{name} must not be greater than {maximum}")
    return value


def _window(grid: Grid, first: int, last: int, start: int | None, end: int | None) -> tuple[int, int]:
    """The period indices within [start, end], both inclusive; empty when low > high."""
    low, high = first, last
    if start is not None:
        low = max(low, grid.first_at_or_after(start)) if start <= grid.start(last) else last + 1
    if end is not None:
        high = min(high, grid.index(min(end, grid.start(last)))) if end >= grid.start(first) else first - 1
    return low, high
