"""State behind the metrics API: per-chain activity since genesis, from which every metric at every interval follows.

Each chain has, per day, a transaction count, the gas those transactions used and the contracts they created
(each a pure function of the seed and the day). Within a day the day's total spreads over the hours by a fixed
daily profile, linearly within each hour, so `counted(chain, kind, t)` (the count from genesis up to the
instant t) is O(1) after a one-off prefix sum over at most a few hundred days. A metric's value for a period
is then a difference (or a function) of counts at the period's bounds, cut off at the last refresh: the
latest period grows on each refresh and the cumulative metrics never decrease.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING
from collections.abc import Callable

from conformance.reference import ids
from conformance.reference.clock import BASE_TIME
from conformance.reference.metrics_api.intervals import DAY, HOUR, Grid

if TYPE_CHECKING:
    from conformance.reference.world import World

#: Days of history before the reference's base date (2026-05-04): genesis is 2024-04-03, a Wednesday
#: that starts no week and no month, so the first week and month periods begin before genesis.
HISTORY_DAYS = 761
#: "Metrics are refreshed several times every hour": the data is as of the last 10-minute mark.
REFRESH_SECONDS = 600
#: not shown: how far back hourly points go; the reference keeps a year of them.
HOUR_RETENTION = 365 * 24
#: Activity scale of the aggregate chain IDs relative to the single EVM chain.
AGGREGATE_SCALES = {"total": 60, "mainnet": 45, "testnet": 15}
KINDS = ("tx", "gas", "contracts")

Value = Callable[[str, int, int], "int | float"]


class MetricsWorld:
    def __init__(self, world: World) -> None:
        self.world = world
        self.seed = world.seed
        self.genesis_day = BASE_TIME // DAY - HISTORY_DAYS
        self.genesis = self.genesis_day * DAY
        self._totals: dict[tuple[str, str], list[int]] = {}     # (chain, kind) -> totals of the days since genesis
        self._prefix: dict[tuple[str, str], list[int]] = {}     # (chain, kind) -> running sums, prefix[0] = 0
        self._profiles: dict[str, tuple[list[int], list[int], int]] = {}
        self.values: dict[str, Value] = {
            "activeAddresses": lambda c, s, e: _distinct(self._between(c, "tx", s, e), 0.55, 0.88),
            "activeSenders": lambda c, s, e: _distinct(self._between(c, "tx", s, e), 0.3, 0.85),
            "gasUsed": lambda c, s, e: self._between(c, "gas", s, e),
            "txCount": lambda c, s, e: self._between(c, "tx", s, e),
            "cumulativeTxCount": lambda c, s, e: self.counted(c, "tx", e),
            "cumulativeAddresses": lambda c, s, e: _distinct(self.counted(c, "tx", e), 0.55, 0.88),
            # "from genesis to the timestamp", unlike the others, which run to 24 hours after it
            "cumulativeContracts": lambda c, s, e: self.counted(c, "contracts", s),
            "cumulativeDeployers": lambda c, s, e: _distinct(self.counted(c, "contracts", e), 0.35, 0.8),
            "contracts": lambda c, s, e: self._between(c, "contracts", s, e),
            "deployers": lambda c, s, e: _distinct(self._between(c, "contracts", s, e), 0.35, 0.8),
            "avgGps": lambda c, s, e: round(self._between(c, "gas", s, e) / (e - s), 4),
            "maxGps": lambda c, s, e: round(self._between(c, "gas", s, e) / (e - s) * self._peak(c, "gps", s), 4),
            "avgTps": lambda c, s, e: round(self._between(c, "tx", s, e) / (e - s), 4),
            "maxTps": lambda c, s, e: round(self._between(c, "tx", s, e) / (e - s) * self._peak(c, "tps", s), 4),
            "avgGasPrice": lambda c, s, e: self._gas_price(c, s),
            "maxGasPrice": lambda c, s, e: round(self._gas_price(c, s) * self._peak(c, "price", s), 2),
            # not shown: the unit of feesPaid; the reference sums fees in the native token (gas x price / 1e18)
            "feesPaid": lambda c, s, e: round(self._between(c, "gas", s, e) * self._gas_price(c, s) / 1e18, 6),
        }

    def advance(self) -> None:
        """Nothing to do: the data follows world.clock, so each refresh mark adds points or grows the latest."""

    # Time -------------------------------------------------------------------------------------------------

    def as_of(self) -> int:
        """The time of the last refresh: data after it is not visible yet."""
        return int(self.world.clock.now) // REFRESH_SECONDS * REFRESH_SECONDS

    def span(self, grid: Grid, as_of: int) -> tuple[int, int]:
        """First and last period index with data: periods that end after genesis and start before `as_of`."""
        last = grid.index(as_of - 1)
        first = grid.index(self.genesis)
        if grid.name == "hour":
            first = max(first, last - HOUR_RETENTION + 1)
        return first, last

    # Values -----------------------------------------------------------------------------------------------

    def point(self, chain: str, metric: str, grid: Grid, index: int, as_of: int) -> dict[str, int | float]:
        """The data point of one period; the latest period is cut off at `as_of` and grows with it."""
        start = grid.start(index)
        end = min(grid.start(index + 1), as_of)
        return {"value": self.values[metric](chain, max(start, self.genesis), end), "timestamp": start}

    def counted(self, chain: str, kind: str, instant: int) -> int:
        """The count of `kind` from genesis up to `instant`."""
        if instant <= self.genesis:
            return 0
        day, second = divmod(instant, DAY)
        offset = day - self.genesis_day
        self._extend(chain, kind, offset + 1)
        done = self._prefix[(chain, kind)][offset]
        if second == 0:
            return done
        weights, cumulative, total_weight = self._profile(chain)
        hour = second // HOUR
        share = cumulative[hour] * HOUR + weights[hour] * (second - hour * HOUR)
        return done + self._totals[(chain, kind)][offset] * share // (total_weight * HOUR)

    def _between(self, chain: str, kind: str, start: int, end: int) -> int:
        return self.counted(chain, kind, end) - self.counted(chain, kind, start)

    def _extend(self, chain: str, kind: str, days: int) -> None:
        totals = self._totals.setdefault((chain, kind), [])
        prefix = self._prefix.setdefault((chain, kind), [0])
        while len(totals) < days:
            total = self._day_total(chain, kind, len(totals))
            totals.append(total)
            prefix.append(prefix[-1] + total)

    def _day_total(self, chain: str, kind: str, offset: int) -> int:
        if kind == "gas":
            self._extend(chain, "tx", offset + 1)
            return self._totals[(chain, "tx")][offset] * int(45_000 + 120_000 * self._unit(chain, "gas", offset))
        if kind == "contracts":
            self._extend(chain, "tx", offset + 1)
            return int(self._totals[(chain, "tx")][offset] * (0.001 + 0.004 * self._unit(chain, "contracts", offset)))
        weekday = (self.genesis_day + offset + 3) % 7            # 1970-01-01 was a Thursday; 0 is Monday
        quiet = 0.75 if weekday >= 5 else 1.0
        growth = 1 + 0.6 * offset / 365
        scale = AGGREGATE_SCALES.get(chain, 1)
        return int(scale * 18_000 * growth * quiet * (0.75 + 0.5 * self._unit(chain, "tx", offset)))

    def _profile(self, chain: str) -> tuple[list[int], list[int], int]:
        """The chain's hourly weights over a UTC day (busiest mid-afternoon), their running sums and total."""
        if chain not in self._profiles:
            weights = [20 + round(12 * math.cos(2 * math.pi * (hour - 15) / 24))
                       + ids.number(self.seed, chain, "profile", hour, below=5) for hour in range(24)]
            cumulative = [0]
            for weight in weights:
                cumulative.append(cumulative[-1] + weight)
            self._profiles[chain] = (weights, cumulative, cumulative[-1])
        return self._profiles[chain]

    def _unit(self, chain: str, kind: str, offset: int) -> float:
        return ids.number(self.seed, "metrics", chain, kind, offset, below=1 << 32) / (1 << 32)

    def _peak(self, chain: str, kind: str, start: int) -> float:
        """How far a day's busiest block exceeds the day's average, at least 1.5 times."""
        return 1.5 + 3 * self._unit(chain, "peak-" + kind, start // DAY - self.genesis_day)

    def _gas_price(self, chain: str, start: int) -> float:
        """The day's average gas price in wei (1 to 50 gwei)."""
        return round(1e9 + 49e9 * self._unit(chain, "price", start // DAY - self.genesis_day) ** 2, 2)


def _distinct(count: int, factor: float, power: float) -> int:
    """Distinct participants among `count` events: grows more slowly than the events themselves."""
    return int(factor * count ** power) if count > 0 else 0
