"""Faults that break rules of the metrics catalogue (3-metrics-api.md).

Each acts only on requests to the metrics service, and only where its rule is concerned: a fault about
success bodies leaves errors alone, a fault about one metric's intervals leaves the other metrics alone.
"""
from __future__ import annotations

import re
import threading
import uuid
from datetime import datetime, UTC
from typing import Any, ClassVar

from conformance.reference.calls import HttpReply, RestCall
from conformance.reference.faults.catalogue import register
from conformance.reference.middleware import Fault, RestProceed
from conformance.reference.metrics_api.intervals import GRIDS
from conformance.reference.rest import phrase

METRIC_ROUTE = "/v2/chains/{chainId}/metrics/{metric}"
AVG_TPS_ROUTE = "/v1/avg_tps/{chainId}"
_ROUTES = (re.compile(r"^/v2/chains/[^/]+/metrics/[^/]+$"), re.compile(r"^/v1/avg_tps/[^/]+$"))
COUNT_METRICS = ("txCount", "activeAddresses", "activeSenders", "contracts", "deployers", "cumulativeTxCount")

# Rules that a fault breaking every success body, or every error body, may take down with it.
_SUCCESS = ("MET-ENV-001", "MET-ENV-002", "MET-SHP-001", "MET-SHP-002", "MET-SHP-003", "MET-SHP-004", "MET-SHP-005",
            "MET-SHP-006", "MET-LIM-001", "MET-LIM-002", "MET-LIM-006", "MET-DEF-001", "MET-TS-001", "MET-TS-002",
            "MET-TS-003", "MET-TS-004", "MET-TS-005", "MET-TS-006", "MET-TS-007", "MET-TS-008", "MET-CHN-001",
            "MET-CHN-002", "MET-CHN-003", "MET-CHN-004", "MET-PAG-001", "MET-PAG-002", "MET-PAG-003",
            "MET-PAG-004", "MET-PAG-005", "MET-AUTH-002", "MET-LIM-010", "MET-LIM-011") \
    + tuple(f"MET-INT-{n:03d}" for n in range(1, 18)) + tuple(f"MET-TPS-{n:03d}" for n in (*range(1, 10), 12))
_ERRORS = ("MET-ENV-003", "MET-ENV-004", "MET-ERR-001", "MET-ERR-002", "MET-ERR-003", "MET-ERR-004", "MET-ERR-005",
           "MET-ERR-006", "MET-ERR-007", "MET-LIM-003", "MET-LIM-004", "MET-LIM-005", "MET-LIM-007", "MET-LIM-008",
           "MET-ENUM-001", "MET-ENUM-002", "MET-PAG-006") + tuple(f"MET-INT-{n:03d}" for n in range(5, 18))
_WALKS = ("MET-PAG-001", "MET-PAG-002", "MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-TS-008")
_EVERYTHING = tuple(dict.fromkeys(_SUCCESS + _ERRORS + _WALKS))


def _but(rules: tuple[str, ...], *own: str) -> tuple[str, ...]:
    """`rules` without the ones a fault breaks itself."""
    return tuple(rule for rule in rules if rule not in own)

#: Rules checked on the error a test provokes, should it pick the parameter a fault no longer refuses.
_ERROR_SHAPE = ("MET-ENV-003", "MET-ENV-004", "MET-ERR-001", "MET-ERR-002", "MET-ERR-003", "MET-ERR-004",
                "MET-ERR-005")


# What a fault looks at --------------------------------------------------------------------------------------

def _ours(call: RestCall) -> bool:
    return call.api == "metrics"


def _metric(call: RestCall) -> bool:
    return _ours(call) and call.route == METRIC_ROUTE


def _tps(call: RestCall) -> bool:
    return _ours(call) and call.route == AVG_TPS_ROUTE


def _metric_name(call: RestCall) -> str:
    return call.path.rsplit("/", 1)[-1]


def _chain(call: RestCall) -> str:
    return call.path.split("/")[3]


def _interval(call: RestCall) -> str:
    return call.first("timeInterval") or "day"   # the reference's default


def _page_size(call: RestCall) -> int | None:
    raw = call.first("pageSize")
    if raw is None or raw == "":
        return 100
    return int(raw) if raw.isdigit() else None


def _ok(reply: HttpReply) -> bool:
    return reply.status == 200 and isinstance(reply.body, dict)


def _failed(reply: HttpReply) -> bool:
    return reply.status >= 400 and isinstance(reply.body, dict) and "statusCode" in reply.body


def _error(status: int, *messages: str) -> HttpReply:
    """An error in the metrics API's own body format."""
    return HttpReply(status, {"message": list(messages), "statusCode": status, "error": phrase(status)})


def _first_page(call: RestCall) -> bool:
    """A first page without endTimestamp: its first point is the latest."""
    return not call.first("pageToken") and not call.first("endTimestamp")


class _Results(Fault):
    """Changes each data point of successful answers of one route."""

    tps: ClassVar[bool] = False

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if (_tps(call) if self.tps else _metric(call)) and _ok(reply) and self.applies(call):
            reply.body["results"] = [self.change(dict(point)) for point in reply.body.get("results", [])]
        return reply

    def applies(self, call: RestCall) -> bool:
        return True

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class _Query(Fault):
    """Rewrites the query of one route's requests before the service sees them."""

    tps: ClassVar[bool] = False

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _tps(call) if self.tps else _metric(call):
            answer = self.rewrite(call)
            if isinstance(answer, HttpReply):
                return answer
            call = answer
        return proceed(call)

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        raise NotImplementedError



def _with_metric(call: RestCall, metric: str) -> RestCall:
    return call.with_(path=call.path[: -len(_metric_name(call))] + metric)


def _read(call: RestCall, proceed: RestProceed, metric: str, interval: str, since: int) -> dict[int, Any]:
    """The fault's own read of `metric` at `interval` from `since` on, as the service behind it answers:
    timestamp -> value (the points a fault derives its wrong values from)."""
    inner = _with_metric(call, metric).with_(query={"timeInterval": [interval], "startTimestamp": [str(max(0, since))],
                                                   "pageSize": ["2160"]})
    reply = proceed(inner)
    return {p["timestamp"]: p["value"] for p in reply.body.get("results", [])} if _ok(reply) else {}


def _stamps(reply: HttpReply) -> list[int]:
    return [p["timestamp"] for p in reply.body.get("results", [])]


class _Derived(Fault):
    """Replaces the values of one metric at some intervals by values derived from other reads of the service."""

    metrics: ClassVar[tuple[str, ...]] = ()
    intervals: ClassVar[tuple[str, ...]] = ("day",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply) and _metric_name(call) in self.metrics and _interval(call) in self.intervals \
                and reply.body["results"]:
            reply.body["results"] = self.derive(call, proceed, [dict(p) for p in reply.body["results"]])
        return reply

    def derive(self, call: RestCall, proceed: RestProceed, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        raise NotImplementedError


# ENV: JSON bodies and content type -------------------------------------------------------------------------

@register
class SuccessBodyIsPythonRepr(Fault):
    """Successful answers carry the body's Python repr (single quotes, True/None) instead of JSON."""

    breaks = ("MET-ENV-001",)
    also = _but(_SUCCESS, "MET-ENV-001")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _ours(call) and _ok(reply):
            return HttpReply(200, raw=repr(reply.body).encode(), headers={"Content-Type": "application/json"})
        return reply


@register
class SuccessContentTypeHtml(Fault):
    """Successful answers declare Content-Type text/html although the body is JSON."""

    breaks = ("MET-ENV-002",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _ours(call) and _ok(reply):
            reply.headers["Content-Type"] = "text/html; charset=utf-8"
        return reply


@register
class ErrorBodyIsJsonString(Fault):
    """Error answers carry only the message as a JSON string instead of the error object."""

    breaks = ("MET-ENV-003",)
    also = _but(_ERRORS, "MET-ENV-003")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _ours(call) and _failed(reply):
            reply.body = "; ".join(reply.body["message"])
        return reply


@register
class ErrorContentTypePlain(Fault):
    """Error answers declare Content-Type text/plain although the body is JSON."""

    breaks = ("MET-ENV-004",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _ours(call) and _failed(reply):
            reply.headers["Content-Type"] = "text/plain; charset=utf-8"
        return reply


# SHP: metric response and data point shapes ----------------------------------------------------------------

@register
class ResultsMemberNamedData(Fault):
    """The metric route returns its data points under data instead of results."""

    breaks = ("MET-SHP-001",)
    also = _but(_SUCCESS, "MET-SHP-001")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply):
            reply.body["data"] = reply.body.pop("results")
        return reply


@register
class ValueAsDecimalString(_Results):
    """The metric route writes each value as a decimal string."""

    breaks = ("MET-SHP-002",)

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "value": str(point["value"])}


@register
class TimestampAsString(_Results):
    """The metric route writes each timestamp as a decimal string."""

    breaks = ("MET-SHP-003",)
    also = _but(_SUCCESS, "MET-SHP-003")

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "timestamp": str(point["timestamp"])}


class _IntegerTokens(Fault):
    """Hands out page tokens as integers (a row offset) and maps them back on the next request."""

    tps: ClassVar[bool] = False

    def __init__(self) -> None:
        self._tokens: dict[str, str] = {}
        self._lock = threading.Lock()

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if not (_tps(call) if self.tps else _metric(call)):
            return proceed(call)
        with self._lock:
            real = self._tokens.get(call.first("pageToken") or "")
        reply = proceed(call.with_query(pageToken=real) if real else call)
        if _ok(reply) and "nextPageToken" in reply.body:
            with self._lock:
                number = len(self._tokens) + 1
                self._tokens[str(number)] = reply.body["nextPageToken"]
            reply.body["nextPageToken"] = number
        return reply


@register
class NextPageTokenIsInteger(_IntegerTokens):
    """The metric route writes nextPageToken as an integer instead of a string."""

    breaks = ("MET-SHP-004",)


@register
class CumulativeTxCountNotCumulative(_Query):
    """cumulativeTxCount serves each day's own transaction count instead of the rolling sum."""

    breaks = ("MET-SHP-005",)
    also = ("MET-CUM-001",)     # the same sentence: the rolling sum of txCount

    def rewrite(self, call: RestCall) -> RestCall:
        if _metric_name(call) == "cumulativeTxCount" and _interval(call) == "day":
            return call.with_(path=call.path[: -len("cumulativeTxCount")] + "txCount")
        return call


@register
class LatestCountIsMinusOne(Fault):
    """Count metrics report -1 for the latest, still-open period instead of its count so far."""

    breaks = ("MET-SHP-006",)
    also = ("MET-SHP-005",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply) and _metric_name(call) in COUNT_METRICS and _first_page(call) \
                and reply.body["results"]:
            reply.body["results"][0]["value"] = -1
        return reply


# LIM: parameter bounds -------------------------------------------------------------------------------------

@register
class PageSizeOneRefused(_Query):
    """The metric route refuses pageSize 1, as if the minimum were 2."""

    breaks = ("MET-LIM-001",)

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        return _error(400, "pageSize must not be less than 2") if call.first("pageSize") == "1" else call


@register
class PageSizeMaxRefused(_Query):
    """The metric route refuses pageSize 2160, as if the maximum were exclusive."""

    breaks = ("MET-LIM-002",)
    also = ("MET-PAG-003",)

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        return _error(400, "pageSize must be less than 2160") if call.first("pageSize") == "2160" else call


@register
class PageSizeZeroMeansDefault(_Query):
    """The metric route treats pageSize 0 as absent and serves the default page."""

    breaks = ("MET-LIM-003",)
    also = _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(pageSize=None) if call.first("pageSize") == "0" else call


@register
class PageSizeAboveMaxClamped(_Query):
    """The metric route clamps pageSize above 2160 to 2160 instead of refusing it."""

    breaks = ("MET-LIM-004",)
    also = _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("pageSize") or ""
        return call.with_query(pageSize="2160") if raw.isdigit() and int(raw) > 2160 else call


@register
class PageSizeParsedLeniently(_Query):
    """The metric route reads pageSize like parseInt: leading digits count, no digits means the default."""

    breaks = ("MET-LIM-005",)
    also = _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("pageSize")
        if raw is None or re.fullmatch(r"-?\d+", raw):
            return call
        digits = re.match(r"\s*(\d+)", raw)
        return call.with_query(pageSize=digits.group(1) if digits and int(digits.group(1)) > 0 else None)


@register
class StartTimestampZeroRefused(_Query):
    """The metric route refuses startTimestamp 0, treating zero as missing and required to be positive."""

    breaks = ("MET-LIM-006",)

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        return _error(400, "startTimestamp must be a positive number") if call.first("startTimestamp") == "0" \
            else call


class _NegativeIgnored(_Query):
    parameter: ClassVar[str] = ""

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first(self.parameter) or ""
        return call.with_query(**{self.parameter: None}) if raw.startswith("-") else call


@register
class NegativeStartTimestampIgnored(_NegativeIgnored):
    """The metric route ignores a negative startTimestamp instead of refusing it."""

    breaks = ("MET-LIM-007",)
    also = _ERROR_SHAPE
    parameter = "startTimestamp"


@register
class NegativeEndTimestampIgnored(_NegativeIgnored):
    """The metric route ignores a negative endTimestamp instead of refusing it."""

    breaks = ("MET-LIM-008",)
    also = _ERROR_SHAPE
    parameter = "endTimestamp"


@register
class EndTimestampZeroRefused(_Query):
    """The metric route refuses endTimestamp 0, as if its minimum were 1."""

    breaks = ("MET-LIM-010",)

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        return _error(400, "endTimestamp must not be less than 1") if call.first("endTimestamp") == "0" else call


@register
class ShortTimestampsRefused(_Query):
    """startTimestamp and endTimestamp other than 0 are refused unless they have the ten digits of UNIX seconds (a
    check meant to catch milliseconds that also refuses small valid values such as 1)."""

    breaks = ("MET-LIM-011",)

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        for name in ("startTimestamp", "endTimestamp"):
            raw = call.first(name) or ""
            if raw.isdigit() and raw != "0" and len(raw) != 10:
                return _error(400, f"{name} must be a UNIX time in seconds")
        return call


# DEF: defaults ---------------------------------------------------------------------------------------------

@register
class DefaultPageSizeIsMaximum(_Query):
    """Without pageSize the metric route serves pages of 2160 points instead of 100."""

    breaks = ("MET-DEF-001",)
    also = ("MET-PAG-001", "MET-PAG-003", "MET-PAG-005")

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(pageSize="2160") if not call.first("pageSize") else call


@register
class DefaultPageSizeSmaller(_Query):
    """Without pageSize the metric route serves pages of 50 points, each with a next page, instead of 100."""

    breaks = ("MET-DEF-001",)

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(pageSize="50") if not call.first("pageSize") else call


# ENUM: closed value sets -----------------------------------------------------------------------------------

@register
class UnknownMetricServedAsTxCount(_Query):
    """An unknown metric name falls through to txCount instead of being refused."""

    breaks = ("MET-ENUM-001",)
    also = _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        from conformance.reference.metrics_api import METRICS
        name = _metric_name(call)
        return call if name in METRICS else call.with_(path=call.path[: -len(name)] + "txCount")


@register
class UnknownIntervalServedAsDay(_Query):
    """An unknown timeInterval falls back to day instead of being refused."""

    breaks = ("MET-ENUM-002",)
    also = _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        value = call.first("timeInterval")
        return call.with_query(timeInterval="day") if value and value not in ("hour", "day", "week", "month") \
            else call


# INT: allowed intervals per metric -------------------------------------------------------------------------

class _IntervalRefused(_Query):
    """Refuses one documented interval of one metric."""

    metric: ClassVar[str] = ""
    interval: ClassVar[str] = ""

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        if _metric_name(call) == self.metric and _interval(call) == self.interval:
            return _error(400, f"timeInterval {self.interval} is not supported for metric {self.metric}")
        return call


class _IntervalAccepted(_Query):
    """Serves a day-only metric at other intervals too, silently as its day series."""

    metric: ClassVar[str] = ""
    intervals: ClassVar[tuple[str, ...]] = ()

    def rewrite(self, call: RestCall) -> RestCall:
        if _metric_name(call) == self.metric and call.first("timeInterval") in self.intervals:
            return call.with_query(timeInterval="day")
        return call


@register
class ActiveAddressesMonthRefused(_IntervalRefused):
    """activeAddresses refuses timeInterval month."""

    breaks = ("MET-INT-001",)
    also = ("MET-TS-004", "MET-TS-006", "MET-TS-007", "MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-SHP-006")
    metric, interval = "activeAddresses", "month"


@register
class ActiveSendersHourRefused(_IntervalRefused):
    """activeSenders refuses timeInterval hour."""

    breaks = ("MET-INT-002",)
    also = ("MET-TS-001", "MET-TS-006", "MET-TS-007", "MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-SHP-006")
    metric, interval = "activeSenders", "hour"


@register
class GasUsedWeekRefused(_IntervalRefused):
    """gasUsed refuses timeInterval week."""

    breaks = ("MET-INT-003",)
    also = ("MET-TS-003", "MET-TS-006", "MET-TS-007", "MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-SHP-006")
    metric, interval = "gasUsed", "week"


@register
class TxCountHourRefused(_IntervalRefused):
    """txCount refuses timeInterval hour."""

    breaks = ("MET-INT-004",)
    also = ("MET-TS-001", "MET-TS-006", "MET-TS-007", "MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-SHP-006")
    metric, interval = "txCount", "hour"


@register
class CumulativeTxCountServedHourly(_IntervalAccepted):
    """cumulativeTxCount answers timeInterval hour instead of refusing it."""

    breaks = ("MET-INT-005",)
    metric, intervals = "cumulativeTxCount", ("hour",)


@register
class CumulativeAddressesServedWeekly(_IntervalAccepted):
    """cumulativeAddresses answers timeInterval week instead of refusing it."""

    breaks = ("MET-INT-006",)
    metric, intervals = "cumulativeAddresses", ("week",)


@register
class CumulativeContractsServedMonthly(_IntervalAccepted):
    """cumulativeContracts answers timeInterval month instead of refusing it."""

    breaks = ("MET-INT-007",)
    metric, intervals = "cumulativeContracts", ("month",)


@register
class CumulativeDeployersServedHourly(_IntervalAccepted):
    """cumulativeDeployers answers timeInterval hour instead of refusing it."""

    breaks = ("MET-INT-008",)
    metric, intervals = "cumulativeDeployers", ("hour",)


@register
class ContractsServedAtEveryInterval(_IntervalAccepted):
    """contracts answers hour, week and month as if it were a four-interval metric."""

    breaks = ("MET-INT-009",)
    metric, intervals = "contracts", ("hour", "week", "month")


@register
class DeployersServedAtEveryInterval(_IntervalAccepted):
    """deployers answers hour, week and month as if it were a four-interval metric."""

    breaks = ("MET-INT-010",)
    metric, intervals = "deployers", ("hour", "week", "month")


@register
class AvgGpsServedWeekly(_IntervalAccepted):
    """avgGps answers timeInterval week instead of refusing it."""

    breaks = ("MET-INT-011",)
    metric, intervals = "avgGps", ("week",)


@register
class MaxGpsServedMonthly(_IntervalAccepted):
    """maxGps answers timeInterval month instead of refusing it."""

    breaks = ("MET-INT-012",)
    metric, intervals = "maxGps", ("month",)


@register
class AvgTpsServedHourly(_IntervalAccepted):
    """avgTps answers timeInterval hour instead of refusing it."""

    breaks = ("MET-INT-013",)
    metric, intervals = "avgTps", ("hour",)


@register
class MaxTpsDayRefused(_IntervalRefused):
    """maxTps refuses timeInterval day, its only documented interval."""

    breaks = ("MET-INT-014",)
    metric, interval = "maxTps", "day"


@register
class AvgGasPriceServedWeekly(_IntervalAccepted):
    """avgGasPrice answers timeInterval week instead of refusing it."""

    breaks = ("MET-INT-015",)
    metric, intervals = "avgGasPrice", ("week",)


@register
class MaxGasPriceServedMonthly(_IntervalAccepted):
    """maxGasPrice answers timeInterval month instead of refusing it."""

    breaks = ("MET-INT-016",)
    metric, intervals = "maxGasPrice", ("month",)


@register
class FeesPaidServedAtEveryInterval(_IntervalAccepted):
    """feesPaid answers hour, week and month as if it were a four-interval metric."""

    breaks = ("MET-INT-017",)
    metric, intervals = "feesPaid", ("hour", "week", "month")


# TS: timestamps and time range -----------------------------------------------------------------------------

class _Shifted(_Results):
    """Moves the timestamps of one interval's points by a fixed offset (a time-zone slip)."""

    interval: ClassVar[str] = ""
    offset: ClassVar[int] = 0

    def applies(self, call: RestCall) -> bool:
        return _interval(call) == self.interval

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "timestamp": point["timestamp"] + self.offset}


@register
class HourTimestampsOnTheHalfHour(_Shifted):
    """Hourly points are stamped at half past the hour (a UTC+05:30 bucketing) instead of on the hour."""

    breaks = ("MET-TS-001",)
    also = ("MET-TS-006", "MET-TS-007")
    interval, offset = "hour", 1800


@register
class DayTimestampsAtLocalMidnight(_Shifted):
    """Daily points are stamped at midnight UTC-5 (05:00 UTC) instead of 00:00 UTC."""

    breaks = ("MET-TS-002",)
    also = ("MET-TS-006", "MET-TS-007")
    interval, offset = "day", 5 * 3600


@register
class WeeksStartOnSunday(_Shifted):
    """Weekly points are stamped on the Sunday before the week instead of its Monday."""

    breaks = ("MET-TS-003",)
    also = ("MET-TS-006", "MET-TS-007")
    interval, offset = "week", -86400


@register
class MonthTimestampsAtLocalMidnight(_Shifted):
    """Monthly points are stamped at midnight UTC-5 of the 1st, which is 19:00 UTC on the previous day."""

    breaks = ("MET-TS-004",)
    also = ("MET-TS-006", "MET-TS-007")
    interval, offset = "month", -5 * 3600


@register
class TimestampsInMilliseconds(_Results):
    """The metric route writes timestamps in milliseconds instead of seconds."""

    breaks = ("MET-TS-005",)
    also = ("MET-TS-001", "MET-TS-002", "MET-TS-003", "MET-TS-004", "MET-TS-006", "MET-TS-007")

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "timestamp": point["timestamp"] * 1000}


@register
class StartTimestampIgnored(_Query):
    """The metric route ignores startTimestamp and serves points from before it."""

    breaks = ("MET-TS-006",)
    also = ("MET-LIM-007", "MET-PAG-002") + _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(startTimestamp=None)


@register
class StartTimestampFlooredToItsPeriod(_Query):
    """startTimestamp is moved back to the start of the hour or day it falls in before the points are chosen, so
    a bound placed inside a period lets in the point that starts it."""

    breaks = ("MET-TS-006",)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("startTimestamp") or ""
        step = {"hour": 3600, "day": 86400}.get(_interval(call))
        if not raw.isdigit() or step is None:
            return call
        return call.with_query(startTimestamp=str(int(raw) - int(raw) % step))


@register
class EndTimestampIgnored(_Query):
    """The metric route ignores endTimestamp and serves points from after it."""

    breaks = ("MET-TS-007",)
    also = ("MET-LIM-008", "MET-PAG-002") + _ERROR_SHAPE

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(endTimestamp=None)


@register
class LatestPointDuplicated(Fault):
    """The latest period appears twice on the first page, once per refresh that computed it."""

    breaks = ("MET-TS-008",)
    also = ("MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-DEF-001")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply) and _first_page(call) and reply.body["results"]:
            reply.body["results"].insert(1, dict(reply.body["results"][0]))
        return reply


@register
class WindowForgottenAfterFirstPage(Fault):
    """Pages after the first of a window forget startTimestamp and endTimestamp: the page token keeps only the
    position, so a walk runs on past the window's start."""

    breaks = ("MET-TS-006",)

    def __init__(self) -> None:
        self._cursors: dict[str, int] = {}
        self._lock = threading.Lock()

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if not _metric(call):
            return proceed(call)
        with self._lock:
            cursor = self._cursors.get(call.first("pageToken") or "")
        if cursor is not None:
            call = call.with_query(pageToken=None, startTimestamp=None, endTimestamp=str(cursor - 1))
        elif not (call.first("startTimestamp") or call.first("endTimestamp")):
            return proceed(call)
        reply = proceed(call)
        if _ok(reply) and "nextPageToken" in reply.body and reply.body["results"]:
            cursor = min(_stamps(reply))
            token = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{call.path}?{sorted(call.query.items())}#{cursor}"))
            with self._lock:
                self._cursors[token] = cursor
            reply.body["nextPageToken"] = token
        return reply


@register
class EndTimestampZeroIgnored(_Query):
    """endTimestamp 0 is read as absent (a falsy test of the parameter), so the latest points are served."""

    breaks = ("MET-TS-007",)

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(endTimestamp=None) if call.first("endTimestamp") == "0" else call


@register
class WindowLosesItsLastPeriod(_Query):
    """A window ends one period early: endTimestamp is taken as the start of an excluded period and the period
    before it is dropped too (an exclusive end applied twice)."""

    breaks = ("MET-TS-010",)

    def rewrite(self, call: RestCall) -> RestCall:
        raw = call.first("endTimestamp") or ""
        if not raw.isdigit():
            return call
        grid = GRIDS[_interval(call)] if _interval(call) in GRIDS else GRIDS["day"]
        earlier = grid.start(grid.index(int(raw)) - 1) - 1
        return call.with_query(endTimestamp=str(earlier)) if earlier >= 0 else call


@register
class PastWindowServesLatestValues(Fault):
    """A window that ends in the past keeps its timestamps but takes its values from the latest periods, as if the
    value lookup ignored endTimestamp: each point gets the value of the period as many periods later as the window
    ends before the latest."""

    breaks = ("MET-TS-011",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        raw = call.first("endTimestamp") or ""
        if not (_metric(call) and _ok(reply) and raw.isdigit() and reply.body["results"]) \
                or _interval(call) not in GRIDS:
            return reply
        grid = GRIDS[_interval(call)]
        newest = proceed(call.with_query(pageToken=None, startTimestamp=None, endTimestamp=None, pageSize="1"))
        if not _ok(newest) or not newest.body["results"]:
            return reply
        latest = grid.index(_stamps(newest)[0])
        later = latest - min(grid.index(int(raw)), latest)
        if later <= 0:
            return reply
        wanted = [grid.start(grid.index(ts) + later) for ts in _stamps(reply)]
        values = _read(call, proceed, _metric_name(call), _interval(call), min(wanted))
        reply.body["results"] = [{**p, "value": values.get(ts, p["value"])}
                                 for p, ts in zip(reply.body["results"], wanted)]
        return reply


# AGG: a longer period against the shorter periods it covers -------------------------------------------------

_ADDITIVE = ("txCount", "gasUsed")
_DISTINCT = ("activeAddresses", "activeSenders")


@register
class WeekCountsAverageTheirDays(_Results):
    """The weekly txCount and gasUsed are the average of the week's days instead of their sum."""

    breaks = ("MET-AGG-001",)

    def applies(self, call: RestCall) -> bool:
        return _interval(call) == "week" and _metric_name(call) in _ADDITIVE

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "value": round(point["value"] / 7)}


@register
class MonthsAreThirtyDays(_Derived):
    """A month of txCount or gasUsed counts the 30 days from its timestamp instead of the calendar month."""

    breaks = ("MET-AGG-001",)
    metrics, intervals = _ADDITIVE, ("month",)

    def derive(self, call: RestCall, proceed: RestProceed, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        days = _read(call, proceed, _metric_name(call), "day", min(p["timestamp"] for p in points))
        return [{**p, "value": sum(days.get(p["timestamp"] + n * 86400, 0) for n in range(30))} for p in points]


@register
class HourBucketsOneHourLate(_Derived):
    """Hourly txCount and gasUsed are bucketed one hour late: each hour carries the count of the hour before it."""

    breaks = ("MET-AGG-001",)
    metrics, intervals = _ADDITIVE, ("hour",)

    def derive(self, call: RestCall, proceed: RestProceed, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        hours = _read(call, proceed, _metric_name(call), "hour", min(p["timestamp"] for p in points) - 3600)
        return [{**p, "value": hours.get(p["timestamp"] - 3600, p["value"])} for p in points]


@register
class WeekAndMonthDistinctCountsAverageTheirDays(_Derived):
    """Weekly and monthly activeAddresses and activeSenders are the average daily count instead of the distinct
    addresses of the whole period."""

    breaks = ("MET-AGG-002",)
    metrics, intervals = _DISTINCT, ("week", "month")

    def derive(self, call: RestCall, proceed: RestProceed, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        grid = GRIDS[_interval(call)]
        return [{**p, "value": round(p["value"] * 86400 / (grid.start(grid.index(p["timestamp"]) + 1)
                                                            - p["timestamp"]))} for p in points]


@register
class HourlyDistinctCountsCoverPartOfTheHour(_Results):
    """Hourly activeAddresses and activeSenders count only the addresses of part of the hour (the last refresh
    interval) instead of the whole hour, so a day counts more addresses than its hours together."""

    breaks = ("MET-AGG-002",)

    def applies(self, call: RestCall) -> bool:
        return _interval(call) == "hour" and _metric_name(call) in _DISTINCT

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "value": point["value"] // 5}


# CUM: cumulative metrics against their per-day metrics ------------------------------------------------------

class _FromSameDay(_Derived):
    """Computes each day's value from its own and the same day's values of the metrics it `reads`."""

    reads: ClassVar[tuple[str, ...]] = ()

    def derive(self, call: RestCall, proceed: RestProceed, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
        since = min(p["timestamp"] for p in points)
        others = [_read(call, proceed, metric, "day", since) for metric in self.reads]
        return [{**p, "value": self.value(p["value"], *(other.get(p["timestamp"], 0) for other in others))}
                for p in points]

    def value(self, own: Any, *others: Any) -> Any:
        raise NotImplementedError


@register
class CumulativeTxCountToTheTimestamp(_FromSameDay):
    """cumulativeTxCount counts from genesis to the timestamp instead of to 24 hours after it (the day's own
    transactions are left out)."""

    breaks = ("MET-CUM-001",)
    metrics, reads = ("cumulativeTxCount",), ("txCount",)

    def value(self, own: Any, *others: Any) -> Any:
        return own - others[0]


@register
class CumulativeContractsToTheNextDay(_FromSameDay):
    """cumulativeContracts counts to 24 hours after the timestamp, like the other cumulative metrics, instead of to
    the timestamp."""

    breaks = ("MET-CUM-002",)
    metrics, reads = ("cumulativeContracts",), ("contracts",)

    def value(self, own: Any, *others: Any) -> Any:
        return own + others[0]


@register
class CumulativeAddressesCountAppearances(_FromSameDay):
    """cumulativeAddresses counts the from and to of every transaction since genesis instead of unique addresses."""

    breaks = ("MET-CUM-003",)
    metrics, reads = ("cumulativeAddresses",), ("cumulativeTxCount",)

    def value(self, own: Any, *others: Any) -> Any:
        return 2 * others[0]


@register
class CumulativeDeployersCountDeployments(_FromSameDay):
    """cumulativeDeployers counts every contract creation (each CREATE trace) instead of unique deployers."""

    breaks = ("MET-CUM-004",)
    metrics, reads = ("cumulativeDeployers",), ("cumulativeContracts", "contracts")

    def value(self, own: Any, *others: Any) -> Any:
        return others[0] + others[1]      # cumulativeContracts runs to the timestamp: add the day's own


# REL: two metrics of the same period --------------------------------------------------------------------------

@register
class ActiveSendersCountTransactions(_Query):
    """activeSenders counts one sender per transaction instead of distinct senders, so it exceeds activeAddresses."""

    breaks = ("MET-REL-001",)

    def rewrite(self, call: RestCall) -> RestCall:
        return _with_metric(call, "txCount") if _metric_name(call) == "activeSenders" else call


@register
class DeployersCountBothEnds(_FromSameDay):
    """deployers counts both addresses of each CREATE trace (the deployer and the created contract), so a day has
    twice as many deployers as contracts."""

    breaks = ("MET-REL-002",)
    metrics, reads = ("deployers",), ("contracts",)

    def value(self, own: Any, *others: Any) -> Any:
        return 2 * others[0]


@register
class MaxGasPriceIsTheMinimum(_FromSameDay):
    """maxGasPrice reports the lowest gas price of the day, below the day's average."""

    breaks = ("MET-REL-003",)
    metrics, reads = ("maxGasPrice",), ("avgGasPrice",)

    def value(self, own: Any, *others: Any) -> Any:
        return round(others[0] / 2, 2)


# CHN: chain identifiers ------------------------------------------------------------------------------------

class _ChainRefused(_Query):
    chain: ClassVar[str] = ""

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        return _error(404, f"chain {self.chain} is not supported") if _chain(call) == self.chain else call


@register
class TotalChainRefused(_ChainRefused):
    """The metric route answers 404 for chainId total."""

    breaks = ("MET-CHN-001",)
    also = _but(_EVERYTHING, "MET-CHN-001")     # whichever chain ID the other tests use fails with it
    chain = "total"


@register
class MainnetChainRefused(_ChainRefused):
    """The metric route answers 404 for chainId mainnet."""

    breaks = ("MET-CHN-002",)
    also = _but(_EVERYTHING, "MET-CHN-002")     # whichever chain ID the other tests use fails with it
    chain = "mainnet"


@register
class TestnetChainRefused(_ChainRefused):
    """The metric route answers 404 for chainId testnet."""

    breaks = ("MET-CHN-003",)
    also = _but(_EVERYTHING, "MET-CHN-003")     # whichever chain ID the other tests use fails with it
    chain = "testnet"


@register
class EvmChainIdRefused(_Query):
    """The metric route accepts only total, mainnet and testnet and refuses numeric EVM chain IDs."""

    breaks = ("MET-CHN-004",)
    also = _but(_EVERYTHING, "MET-CHN-004")

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        if _chain(call).isdigit():
            return _error(400, "chainId must be one of the following values: total, mainnet, testnet")
        return call


# PAG: pagination -------------------------------------------------------------------------------------------

@register
class NextPageTokenNeverIssued(Fault):
    """The metric route never returns nextPageToken, so only the first page is reachable."""

    breaks = ("MET-PAG-001",)
    also = ("MET-PAG-003", "MET-PAG-004")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply):
            reply.body.pop("nextPageToken", None)
        return reply


@register
class NextPageTokenOnLastPage(Fault):
    """The metric route returns nextPageToken on the last page too; it leads to an empty page."""

    breaks = ("MET-PAG-002",)

    def __init__(self) -> None:
        self._dangling: set[str] = set()

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _metric(call) and call.first("pageToken") in self._dangling:
            return HttpReply(200, {"results": []})
        reply = proceed(call)
        if _metric(call) and _ok(reply) and "nextPageToken" not in reply.body and reply.body["results"]:
            token = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{call.path}?{sorted(call.query.items())}"))
            self._dangling.add(token)
            reply.body = {"nextPageToken": token, **reply.body}
        return reply


@register
class LastPageTokenEmpty(Fault):
    """The last page of a metric carries "nextPageToken": "" instead of leaving the member out, as the real service
    does."""

    breaks = ("MET-SHP-004",)
    real = True

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply) and "nextPageToken" not in reply.body:
            reply.body["nextPageToken"] = ""
        return reply


@register
class PageAfterTokenSkipsAPoint(Fault):
    """Each page reached through a token drops its first point (an exclusive cursor applied twice)."""

    breaks = ("MET-PAG-003",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _metric(call) and _ok(reply) and call.first("pageToken"):
            del reply.body["results"][:1]
        return reply


@register
class PageTokenCursorInclusive(Fault):
    """Each page reached through a token starts again with the last point of the previous page."""

    breaks = ("MET-PAG-004",)
    also = ("MET-PAG-003",)

    def __init__(self) -> None:
        self._last: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if not _metric(call):
            return proceed(call)
        size = _page_size(call)
        with self._lock:
            repeated = self._last.get(call.first("pageToken") or "")
        if repeated and size and size > 1:
            call = call.with_query(pageSize=str(size - 1))
        reply = proceed(call)
        if _ok(reply):
            if repeated and size and size > 1:
                reply.body["results"].insert(0, repeated)
            if "nextPageToken" in reply.body and reply.body["results"]:
                with self._lock:
                    self._last[reply.body["nextPageToken"]] = dict(reply.body["results"][-1])
        return reply


@register
class PageOverfullByOne(_Query):
    """The metric route serves pageSize + 1 points (it fetches one extra to look ahead and keeps it)."""

    breaks = ("MET-PAG-005",)
    also = ("MET-DEF-001",)

    def rewrite(self, call: RestCall) -> RestCall:
        size = _page_size(call)
        return call.with_query(pageSize=str(size + 1)) if size and 1 <= size < 2160 else call


@register
class UnknownPageTokenIgnored(Fault):
    """A pageToken the service never issued is ignored and the first page is served."""

    breaks = ("MET-PAG-006",)
    also = _ERROR_SHAPE

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _ours(call) and reply.status == 400 and call.first("pageToken") \
                and any("pageToken" in m for m in (reply.body or {}).get("message", [])):
            return proceed(call.with_query(pageToken=None))
        return reply


# ERR: error responses --------------------------------------------------------------------------------------

class _ErrorBody(Fault):
    """Changes the error bodies of the metrics service."""

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _ours(call) and _failed(reply) and self.applies(reply):
            self.change(reply)
        return reply

    def applies(self, reply: HttpReply) -> bool:
        return True

    def change(self, reply: HttpReply) -> None:
        raise NotImplementedError


@register
class ErrorMessageIsString(_ErrorBody):
    """Error bodies carry message as one string instead of an array of strings, as the real service does."""

    breaks = ("MET-ERR-001",)
    real = True

    def change(self, reply: HttpReply) -> None:
        reply.body["message"] = "; ".join(reply.body["message"])


@register
class ErrorTypeIsNull(_ErrorBody):
    """Error bodies carry error null instead of the error type string."""

    breaks = ("MET-ERR-002",)
    also = ("MET-ERR-005", "MET-ERR-007")

    def change(self, reply: HttpReply) -> None:
        reply.body["error"] = None


@register
class StatusCodeIsString(_ErrorBody):
    """Error bodies carry statusCode as a string ("400") instead of an integer."""

    breaks = ("MET-ERR-003",)

    def change(self, reply: HttpReply) -> None:
        reply.body["statusCode"] = str(reply.body["statusCode"])


@register
class InvalidParametersAre422(_ErrorBody):
    """Invalid query parameters get 422 Unprocessable Entity instead of 400."""

    breaks = ("MET-ERR-004",)

    def applies(self, reply: HttpReply) -> bool:
        return reply.status == 400

    def change(self, reply: HttpReply) -> None:
        reply.status = 422
        reply.body.update(statusCode=422, error=phrase(422))


@register
class BadRequestPhraseIsValidationError(_ErrorBody):
    """400 error bodies carry error "ValidationError" instead of "Bad Request"."""

    breaks = ("MET-ERR-005",)

    def applies(self, reply: HttpReply) -> bool:
        return reply.status == 400

    def change(self, reply: HttpReply) -> None:
        reply.body["error"] = "ValidationError"


@register
class MistypedUrlIs400(Fault):
    """A path under the metrics prefixes that matches no route gets 400 instead of 404."""

    breaks = ("MET-ERR-006",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _ours(call) and not any(route.match(call.path) for route in _ROUTES):
            return _error(400, f"Invalid route {call.method} {call.path}")
        return proceed(call)


@register
class NotFoundPhraseIsConstant(_ErrorBody):
    """404 error bodies carry error "NOT_FOUND" instead of "Not Found"."""

    breaks = ("MET-ERR-007",)

    def applies(self, reply: HttpReply) -> bool:
        return reply.status == 404

    def change(self, reply: HttpReply) -> None:
        reply.body["error"] = "NOT_FOUND"


# TPS: average TPS route ------------------------------------------------------------------------------------

@register
class AvgTpsRefusesEvmChainId(Fault):
    """The average TPS route answers 404 for a numeric EVM chain ID."""

    breaks = ("MET-TPS-001",)
    also = tuple(f"MET-TPS-{n:03d}" for n in (*range(2, 10), 12))

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _tps(call) and _chain(call).isdigit():
            return _error(404, f"no average TPS for chain {_chain(call)}")
        return proceed(call)


@register
class AvgTpsResultsKeyedByTimestamp(Fault):
    """The average TPS route returns results as an object from timestamp to value instead of an array."""

    breaks = ("MET-TPS-002",)
    also = ("MET-TPS-003", "MET-TPS-004", "MET-TPS-009")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _tps(call) and _ok(reply):
            reply.body["results"] = {str(p["timestamp"]): p["value"] for p in reply.body["results"]}
        return reply


@register
class AvgTpsValueAsFixedString(_Results):
    """The average TPS route writes each value as a string with two decimals."""

    breaks = ("MET-TPS-003",)
    tps = True

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "value": f"{point['value']:.2f}"}


@register
class AvgTpsTimestampAsIsoString(_Results):
    """The average TPS route writes each timestamp as an ISO 8601 string."""

    breaks = ("MET-TPS-004",)
    also = ("MET-TPS-009",)
    tps = True

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        moment = datetime.fromtimestamp(point["timestamp"], tz=UTC)
        return {**point, "timestamp": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}


@register
class AvgTpsStatusIsText(Fault):
    """The average TPS route writes status as the text "OK" instead of the integer 200."""

    breaks = ("MET-TPS-005",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _tps(call) and _ok(reply):
            reply.body["status"] = "OK"
        return reply


@register
class AvgTpsLastRunIsFractional(Fault):
    """The average TPS route writes lastRun as fractional seconds instead of an integer."""

    breaks = ("MET-TPS-006",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _tps(call) and _ok(reply):
            reply.body["lastRun"] = reply.body["lastRun"] + 0.372
        return reply


@register
class AvgTpsNextPageTokenIsInteger(_IntegerTokens):
    """The average TPS route writes nextPageToken as an integer instead of a string."""

    breaks = ("MET-TPS-007",)
    tps = True


@register
class AvgTpsPageTokenRefused(_Query):
    """The average TPS route refuses every pageToken, including the ones it issued."""

    breaks = ("MET-TPS-008",)
    tps = True

    def rewrite(self, call: RestCall) -> RestCall | HttpReply:
        return _error(400, "pageToken is invalid") if call.first("pageToken") else call


@register
class AvgTpsTimestampsMidHour(_Results):
    """The average TPS route stamps each hourly average at the middle of its hour."""

    breaks = ("MET-TPS-009",)
    tps = True

    def change(self, point: dict[str, Any]) -> dict[str, Any]:
        return {**point, "timestamp": point["timestamp"] + 1800}


@register
class AvgTpsPageTokenIgnored(_Query):
    """The average TPS route ignores pageToken: the token leads to the first page again."""

    breaks = ("MET-TPS-008",)
    tps = True

    def rewrite(self, call: RestCall) -> RestCall:
        return call.with_query(pageToken=None)


@register
class AvgTpsLastRunIsTheDailyRun(Fault):
    """lastRun reports the start of the day's batch run (00:00 UTC) although hourly points after it are served."""

    breaks = ("MET-TPS-012",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if _tps(call) and _ok(reply):
            reply.body["lastRun"] -= reply.body["lastRun"] % 86400
        return reply


# AUTH: no authentication -----------------------------------------------------------------------------------

@register
class ApiKeyRequired(Fault):
    """The metrics service answers 401 to requests without an API key header."""

    breaks = ("MET-AUTH-001",)
    also = _but(_EVERYTHING, "MET-AUTH-001")

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _ours(call) and not ({"x-glacier-api-key", "x-api-key", "authorization"} & set(call.headers)):
            return _error(401, "API key required")
        return proceed(call)


@register
class JsonContentTypeRefusedOnGet(Fault):
    """A GET with Content-Type application/json fails parsing its empty body and gets 400."""

    breaks = ("MET-AUTH-002",)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if _ours(call) and call.headers.get("content-type", "").startswith("application/json"):
            return _error(400, "Unexpected end of JSON input")
        return proceed(call)
