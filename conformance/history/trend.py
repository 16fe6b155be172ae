"""The score trend as a small inline SVG (reporting/templates/trend.svg): drawn by the page itself, no script, no
external resource."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.reporting import pages

WIDTH, HEIGHT, PAD = 240, 48, 4
_DOT = {"conformant": "#2e7d32", "violations": "#c62828"}


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    colour: str
    tip: str


@dataclass(frozen=True)
class Picture:
    """What trend.svg draws: lines of points "x,y ...", a dot per scored run, and the lines of 100 % and 0 %."""
    label: str
    lines: list[str]
    dots: list[Dot]
    grid: tuple[float, float]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = PAD
    right: int = WIDTH - PAD


def picture(points: Sequence[dict[str, Any]]) -> Picture:
    """A line of the runs' scores (0 to 100 %), oldest left; a run without a score leaves a gap. Each dot's tip
    gives its time, score and verdict, so the picture is also text."""
    scored = [(index, point) for index, point in enumerate(points) if isinstance(point.get("score"), (int, float))]
    label = "score trend: " + (", ".join(f"{point['score']:.1%}" for _, point in scored) or "no score yet")
    step = (WIDTH - 2 * PAD) / max(len(points) - 1, 1)

    def x(index: int) -> float:
        return round(PAD + index * step, 1)

    def y(score: float) -> float:
        return round(HEIGHT - PAD - score * (HEIGHT - 2 * PAD), 1)

    lines, run = [], []
    for index, point in enumerate(points):
        if isinstance(point.get("score"), (int, float)):
            run.append(f"{x(index)},{y(point['score'])}")
            continue
        if len(run) > 1:
            lines.append(" ".join(run))
        run = []
    if len(run) > 1:
        lines.append(" ".join(run))
    dots = [Dot(x(index), y(point["score"]), _DOT.get(str(point.get("verdict")), "#e08a00"),
                f"{point.get('time')}: {point['score']:.1%} ({point.get('verdict')})") for index, point in scored]
    return Picture(label, lines, dots, (y(1.0), y(0.0)))


def trend_svg(points: Sequence[dict[str, Any]]) -> str:
    """The picture alone, as report.html draws it."""
    return pages.render("trend.svg", picture=picture(points))
