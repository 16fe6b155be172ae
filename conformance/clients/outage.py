"""Whether the target is there: faults on the way to it ridden through, and an outage that outlasts its window.

A node in a rolling upgrade refuses connections for a few seconds; a load balancer resets one now and then. Such a
fault says nothing about the answers, so a request that changes nothing is sent again, with backoff, for up to the
outage window. The same window bounds the whole run: when nothing but refused or reset connections, cut answers and
5XX answers has come back, from any request, for longer than the window, the target is down and the run stops.
"""
from __future__ import annotations

import collections
import datetime as dt
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: The first wait before a request is sent again; each further wait doubles, up to MAX_BACKOFF.
BACKOFF = 0.25
#: Short enough that a target back after a few seconds is found back within a second or two of it.
MAX_BACKOFF = 2.0
#: How far past the end of its window a request's last attempt goes: far enough that the outage has outlasted it.
_PAST_THE_END = 0.05
#: Requests ridden through that report.json lists one by one; the others are counted.
LISTED = 20


@dataclass
class Ride:
    """The faults one request met on its way, and the attempts they cost."""

    started: float = field(default_factory=time.monotonic)
    faults: list[str] = field(default_factory=list)     # the kind of each fault: refused, reset, cut
    attempts: list[int] = field(default_factory=list)   # the exchange numbers of the attempts that failed

    def next_wait(self, window: float) -> float | None:
        """Seconds to wait before the next attempt, or None when it would start past the window. A connection that
        broke once is tried again at once, on a new one: the target was there a moment ago (a load balancer reset
        it, or the target closed it while idle); after a refusal, and from then on, the waits double."""
        left = self.started + window - time.monotonic()
        if left < 0:
            return None
        if self.faults == ["reset"] or self.faults == ["cut"]:
            wait = 0.0
        else:
            wait = min(BACKOFF * 2 ** (len(self.faults) - 1), MAX_BACKOFF)
        # The last attempt goes just past the window's end: a target still away then is down, and the run stops
        # rather than this request failing on its own.
        return min(wait, left + _PAST_THE_END)


class Outage:
    """The run's one view of whether its target answers, fed by every attempt of every request.

    An answer (anything but 5XX) ends an outage; a fault or a 5XX answer starts one or extends it. `window`
    0 turns both off: a fault is an error of its request at once, and the run never stops for an outage.
    """

    def __init__(self, window: float = 0.0) -> None:
        self.window = window
        self._lock = threading.Lock()
        self._since: float | None = None   # time.monotonic() of the first fault since the last answer
        self._since_at = 0.0               # the same moment, time.time(), for the report
        self._count = 0                    # faults and 5XX answers since then
        self.down: dict[str, Any] | None = None
        self.ridden = 0
        self._listed: list[dict[str, Any]] = []
        self._kinds: collections.Counter[str] = collections.Counter()

    def answered(self) -> None:
        """An answer came back: the target is there."""
        if self._since is not None:   # read without the lock: the common case, nothing to end, stays cheap
            with self._lock:
                self._since = None

    def failed(self, what: str) -> str | None:
        """A fault or a 5XX answer (`what` says which); returns why the target is down when it is, once."""
        if not self.window:
            return None
        now = time.monotonic()
        with self._lock:
            if self.down is not None:
                return None
            if self._since is None:
                self._since, self._since_at, self._count = now, time.time(), 0
            self._count += 1
            lasted = now - self._since
            if lasted <= self.window:
                return None
            since = _iso(self._since_at)
            self.down = {"since": since, "for_s": round(lasted, 1), "faults": self._count, "last": what}
        return (f"the target was down since {since}: nothing but refused or reset connections, cut answers and 5XX "
                f"answers for {lasted:.1f} s (longer than --outage-window {self.window:g} s); last: {what}")

    def rode_through(self, method: str, url: str, ride: Ride, answer: int, after: float) -> None:
        """A request answered after the faults of `ride`: what report.json lists."""
        with self._lock:
            self.ridden += 1
            self._kinds.update(ride.faults)
            if len(self._listed) < LISTED:
                self._listed.append({"method": method, "url": _without_credentials(url), "faults": list(ride.faults),
                                     "attempts": list(ride.attempts), "answered_by": answer,
                                     "after_s": round(after, 2)})

    def section(self) -> dict[str, Any] | None:
        """report.json's `suite.transport`: the faults ridden through and whether the target was down; None when
        there is nothing to say."""
        with self._lock:
            if not self.ridden and self.down is None:
                return None
            out: dict[str, Any] = {"outage_window_s": self.window, "ridden_through": self.ridden,
                                   "faults": dict(self._kinds), "requests": [dict(entry) for entry in self._listed]}
            if self.down is not None:
                out["down"] = dict(self.down)
            return out


def _iso(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).isoformat(timespec="seconds")


def _without_credentials(url: str) -> str:
    """The URL as evidence names an exchange: no user or password, no fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, ""))
