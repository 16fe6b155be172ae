"""Answers of the metrics route that the document allows and the reference does not give: the relation tests must
pass them. Each wraps the reference like a fault (see conformance/reference/variants.py)."""
from __future__ import annotations

import itertools
import threading

from conformance.reference.calls import HttpReply, RestCall
from conformance.reference.middleware import RestProceed
from conformance.reference.variant_catalogue import Variant, variant

METRIC_ROUTE = "/v2/chains/{chainId}/metrics/{metric}"
#: The rules whose tests compare values across requests.
_RELATIONS = ("MET-AGG-001", "MET-AGG-002", "MET-CUM-001", "MET-CUM-002", "MET-CUM-003", "MET-CUM-004",
              "MET-REL-001", "MET-REL-002", "MET-REL-003", "MET-TS-010", "MET-TS-011")


def _served(call: RestCall, reply: HttpReply) -> bool:
    return call.api == "metrics" and call.route == METRIC_ROUTE and reply.status == 200 \
        and isinstance(reply.body, dict) and bool(reply.body.get("results"))


class LatestPointMovesOnEveryRead(Variant):
    """The newest point of a series has another value on every request that serves it, as if each request came
    after a refresh."""

    reads = (*_RELATIONS, "MET-PAG-003", "MET-DEF-001", "MET-SHP-005", "MET-SHP-006")
    allowed_by = "The latest data point of any response may change on each refresh."

    def __init__(self) -> None:
        self._reads = itertools.count(1)
        self._lock = threading.Lock()

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        reply = proceed(call)
        if not _served(call, reply):
            return reply
        newest = proceed(call.with_(query={"timeInterval": call.query.get("timeInterval", ["day"]),
                                           "pageSize": ["1"]}))
        if newest.status != 200 or not newest.body.get("results"):
            return reply
        latest = newest.body["results"][0]["timestamp"]
        with self._lock:
            grown = next(self._reads)
        reply.body["results"] = [{**p, "value": p["value"] + grown} if p["timestamp"] == latest else p
                                 for p in reply.body["results"]]
        return reply


class WindowEdgesExclusive(Variant):
    """startTimestamp and endTimestamp are exclusive: a point exactly at either edge is left out."""

    reads = ("MET-TS-006", "MET-TS-007", "MET-TS-010", "MET-TS-011", "MET-TS-012", "MET-PAG-001", "MET-PAG-002",
             "MET-PAG-003", "MET-PAG-004", "MET-PAG-005", "MET-DEF-001", "MET-LIM-006", "MET-LIM-010",
             "MET-LIM-011", *_RELATIONS)
    allowed_by = "items after this timestamp … items before this timestamp: whether a point at the timestamp " \
                 "itself is after or before it is not determined"

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        if call.api == "metrics" and call.route == METRIC_ROUTE:
            start, end = call.first("startTimestamp") or "", call.first("endTimestamp") or ""
            if start.isdigit():
                call = call.with_query(startTimestamp=str(int(start) + 1))
            if end.isdigit() and int(end) > 0:
                call = call.with_query(endTimestamp=str(int(end) - 1))
        return proceed(call)


#: The variants of the metrics route, run by tests/test_relations_metrics.py.
METRICS_VARIANTS: tuple[type[Variant], ...] = (LatestPointMovesOnEveryRead, WindowEdgesExclusive)

for _metrics_variant in METRICS_VARIANTS:
    variant(_metrics_variant)
