"""Prints every benchmark as one table: reference throughput, suite speed, validation cost."""
from __future__ import annotations

import os
import platform
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import reference_throughput, suite_speed, validation_cost  # noqa: E402


def main() -> None:
    print(f"# benchmarks, {date.today()}, {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}")
    rows = reference_throughput.measure() + validation_cost.measure() + suite_speed.measure()
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:{width}}  {value}")


if __name__ == "__main__":
    main()
