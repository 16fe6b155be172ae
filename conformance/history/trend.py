"""The score trend as a small inline SVG: drawn by the page itself, no script, no external resource."""
from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

WIDTH, HEIGHT, PAD = 240, 48, 4
#: Presentation attributes, not style attributes: the report's Content-Security-Policy admits no inline style.
_LINE = 'fill="none" stroke="#1f5fa8" stroke-width="1.5"'
_DOT = {"conformant": "#2e7d32", "violations": "#c62828"}


def trend_svg(points: Sequence[dict[str, Any]]) -> str:
    """A line of the runs' scores (0 to 100 %), oldest left; a run without a score leaves a gap. Each point's
    <title> gives its time, score and verdict, so the picture is also text."""
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
            lines.append(run)
        run = []
    if len(run) > 1:
        lines.append(run)
    parts = [f'<polyline points="{" ".join(line)}" {_LINE}/>' for line in lines]
    for index, point in scored:
        colour = _DOT.get(str(point.get("verdict")), "#e08a00")
        tip = html.escape(f"{point.get('time')}: {point['score']:.1%} ({point.get('verdict')})", quote=True)
        parts.append(f'<circle cx="{x(index)}" cy="{y(point["score"])}" r="2.5" fill="{colour}">'
                     f"<title>{tip}</title></circle>")
    grid = (f'<line x1="{PAD}" y1="{y(1.0)}" x2="{WIDTH - PAD}" y2="{y(1.0)}" stroke="#ccc" stroke-width="0.5"/>'
            f'<line x1="{PAD}" y1="{y(0.0)}" x2="{WIDTH - PAD}" y2="{y(0.0)}" stroke="#ccc" stroke-width="0.5"/>')
    return (f'<svg class="trend" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{html.escape(label, quote=True)}">'
            f"<title>{html.escape(label)}</title>{grid}{''.join(parts)}</svg>")
