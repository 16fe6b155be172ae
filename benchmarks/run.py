"""Prints every benchmark as one markdown table: reference throughput, suite speed, validation cost, the whole
suite, the processor time a request costs, the suite against a target 10 and 50 ms away, and what each speed
mechanism of the engine is worth."""
from __future__ import annotations

import argparse
import os
import platform
import sys
from datetime import datetime, UTC
from pathlib import Path
from collections.abc import Sequence
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import cpu_cost, latency, mechanisms, reference_throughput, suite_speed, validation_cost
from benchmarks.table import BenchmarkError, Row, markdown, progress

#: in the order their rows appear in the table
PARTS = ("throughput", "suite", "validation", "whole", "cpu", "latency", "mechanisms")


class _Parser(argparse.ArgumentParser):
    """Bad usage is one line and exit code 2, as with the `conformance` command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="benchmarks/run.py", description=__doc__)
    parser.add_argument("--only", default=",".join(PARTS), metavar="PARTS",
                        help=f"comma-separated subset of {','.join(PARTS)} (default: all)")
    parser.add_argument("--thorough", action="store_true",
                        help="also time the thorough profile per API group, and quick one test at a time behind each "
                             "latency (several minutes more)")
    parser.add_argument("-o", "--output", metavar="FILE", help="also write the heading, table and notes to FILE")
    return parser


def parts_of(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(name.strip() for name in value.split(",") if name.strip()))
    unknown = [name for name in names if name not in PARTS]
    if unknown or not names:
        raise ValueError(f"--only: unknown part {', '.join(unknown) or '(none)'}; choose from {','.join(PARTS)}")
    return names


def machine() -> str:
    """CPU model, usable cores and Python version: what the figures depend on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {platform.machine()}, {cores} cores, Python {platform.python_version()}"


def heading() -> str:
    load = f", load average {os.getloadavg()[0]:.2f} at start" if hasattr(os, "getloadavg") else ""
    return f"Benchmarks of {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine()}{load}."


def notes(parts: Sequence[str]) -> list[str]:
    lines = ["The reference target runs as `conformance serve-reference` in its own process; every suite run is "
             "a fresh `conformance run` process against it."]
    if "suite" in parts or "whole" in parts:
        lines.append(suite_speed.RATIO_NOTE)
    if "cpu" in parts:
        lines.append(cpu_cost.NOTE)
    if "latency" in parts:
        lines.append(latency.NOTE)
    return lines


def measure(parts: Sequence[str], *, thorough: bool) -> list[Row]:
    found: dict[str, list[Row]] = {}
    if "throughput" in parts:
        progress("reference throughput")
        found["throughput"] = reference_throughput.measure()
    if "suite" in parts or "whole" in parts:
        profiles = ("quick", "standard", "thorough") if thorough else ("quick", "standard")
        found.update(suite_speed.measure(profiles, groups="suite" in parts, whole="whole" in parts))
    if "validation" in parts:
        progress("validation cost")
        found["validation"] = validation_cost.measure()
    if "cpu" in parts:
        found["cpu"] = cpu_cost.run()
    if "latency" in parts:
        found["latency"] = latency.measure(sequential=thorough)
    if "mechanisms" in parts:
        found["mechanisms"] = mechanisms.measure(("quick", "standard"), repeats=3, only=())
    return [row for part in PARTS for row in found.get(part, [])]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        parts = parts_of(args.only)
    except ValueError as exc:
        print(f"benchmarks/run.py: error: {exc}", file=sys.stderr)
        return 2
    output = Path(args.output) if args.output else None
    if output is not None and not output.parent.is_dir():
        print(f"benchmarks/run.py: error: --output: {output.parent} is not a directory", file=sys.stderr)
        return 2
    top = heading()
    try:
        rows = measure(parts, thorough=args.thorough)
    except BenchmarkError as exc:
        print(f"benchmarks/run.py: cannot measure: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("benchmarks/run.py: interrupted", file=sys.stderr)
        return 130
    text = "\n\n".join([top, markdown(rows), *notes(parts)]) + "\n"
    print(text, end="")
    if output is not None:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"benchmarks/run.py: error: --output: cannot write {output} ({exc.strerror})", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
