"""The four time intervals as grids of UTC periods: hour, day, week (from Monday) and month (from the 1st)."""
from __future__ import annotations

import calendar
from datetime import datetime, UTC

HOUR = 3600
DAY = 24 * HOUR
WEEK = 7 * DAY
#: 1970-01-05T00:00:00Z, the first Monday of the UNIX epoch: week periods start here, every 7 days.
FIRST_MONDAY = 4 * DAY


class Grid:
    """Periods numbered by index: `start(i)` is the timestamp of period i, and period i ends where i + 1 starts."""

    name = ""

    def index(self, timestamp: int) -> int:
        """The index of the period that contains `timestamp`."""
        raise NotImplementedError

    def start(self, index: int) -> int:
        raise NotImplementedError

    def first_at_or_after(self, timestamp: int) -> int:
        index = self.index(timestamp)
        return index if self.start(index) >= timestamp else index + 1


class UniformGrid(Grid):
    def __init__(self, name: str, length: int, origin: int = 0) -> None:
        self.name = name
        self.length = length
        self.origin = origin

    def index(self, timestamp: int) -> int:
        return (timestamp - self.origin) // self.length

    def start(self, index: int) -> int:
        return self.origin + index * self.length


class MonthGrid(Grid):
    name = "month"

    def index(self, timestamp: int) -> int:
        moment = datetime.fromtimestamp(timestamp, tz=UTC)
        return moment.year * 12 + moment.month - 1

    def start(self, index: int) -> int:
        return calendar.timegm((index // 12, index % 12 + 1, 1, 0, 0, 0))


GRIDS: dict[str, Grid] = {
    "hour": UniformGrid("hour", HOUR),
    "day": UniformGrid("day", DAY),
    "week": UniformGrid("week", WEEK, FIRST_MONDAY),
    "month": MonthGrid(),
}
