"""`conformance history FILE [--target NAME] [--limit N]`: the trend of the runs kept in a history file."""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from conformance.errors import ConfigError
from conformance.history.store import RunChanges, replay, runs

_BARS = "▁▂▃▄▅▆▇█"


def sparkline(scores: Sequence[float | None]) -> str:
    """One character per run, its height the score; a run without a score is a space."""
    return "".join(" " if score is None else _BARS[min(int(score * len(_BARS)), len(_BARS) - 1)] for score in scores)


def render(changes: list[RunChanges], limit: int) -> list[str]:
    by_target: dict[str, list[RunChanges]] = {}
    for change in changes:
        by_target.setdefault(change.run.target, []).append(change)
    lines = []
    for target, mine in by_target.items():
        shown = mine[-limit:]
        lines.append(f"{target}: {len(mine)} {'run' if len(mine) == 1 else 'runs'}"
                     + (f" (the last {len(shown)} shown)" if len(shown) < len(mine) else "")
                     + f"  score trend {sparkline([c.run.score for c in shown])}")
        lines.append(f"  {'finished':<26}{'verdict':<12}{'score':>7}{'failing':>9}{'new':>5}{'fixed':>7}  suite")
        for change in shown:
            run = change.run
            score = f"{run.score:.1%}" if run.score is not None else "-"
            lines.append(f"  {run.finished:<26}{run.verdict:<12}{score:>7}{change.failing:>9}{len(change.new):>5}"
                         f"{len(change.fixed):>7}  {run.suite_version}")
        last = shown[-1]
        if last.new:
            lines.append(f"  new in the last run: {', '.join(last.new)}")
        if last.fixed:
            lines.append(f"  fixed in the last run: {', '.join(last.fixed)}")
    return lines


def main(args: argparse.Namespace) -> int:
    limit = getattr(args, "limit", 20) or 20
    if limit < 1:
        raise ConfigError("--limit: must be at least 1")
    target = getattr(args, "target", None)
    changes = replay(args.file, target)
    if not changes and target:
        known = sorted({run.target for run in runs(args.file)})
        raise ConfigError(f"--target {target}: no run of it is kept in {args.file}"
                          + (f" (targets: {', '.join(known)})" if known else ""))
    if not changes:
        print(f"{args.file}: no run kept yet", flush=True)
        return 0
    print("\n".join(render(changes, limit)), flush=True)
    return 0
