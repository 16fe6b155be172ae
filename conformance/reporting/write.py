"""Writes a run's reports into its report directory: report.json, junit.xml, summary.md and report.html."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from conformance.reporting import markdown


def _write(path: Path, text: str) -> Path:
    # Written beside and renamed, so a reader (a CI step, a browser) never sees half a report.
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)   # a report that could not take its place leaves nothing half-named beside it
        raise
    return path


def json_text(value: Any) -> str:
    """Strict JSON (RFC 8259): a number a target sent beyond a float's range is written as a string, never as
    the `Infinity` other readers refuse."""
    return json.dumps(_finite(value), indent=1, ensure_ascii=False, allow_nan=False, default=str) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


REPORTS = ("report.json", "junit.xml", "summary.md", "report.html")


def write_reports(report: dict[str, Any], report_dir: Path) -> list[Path]:
    """Writes every report, report.json first; one that cannot be rendered or written leaves the others written,
    and raises ReportNotWritten naming every one missing afterwards."""
    from conformance.reporting import html, junit

    renders = dict(zip(REPORTS, (json_text, junit.render, markdown.render, html.render)))
    written: list[Path] = []
    failed: list[str] = []
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportNotWritten([], list(REPORTS), f"cannot create {report_dir} ({exc.strerror or exc})") from None
    for name, render in renders.items():
        try:
            text = render(report)
        except Exception as exc:
            failed.append(f"{name} could not be rendered ({type(exc).__name__}: {exc})")
            continue
        try:
            written.append(_write(report_dir / name, text))
        except OSError as exc:
            failed.append(f"{name} could not be written ({exc.strerror or exc})")
    if failed:
        missing = [name for name in REPORTS if report_dir / name not in written]
        raise ReportNotWritten(written, missing, "; ".join(failed))
    return written


class ReportNotWritten(Exception):
    """Some reports could not be rendered or written; `written` are the ones that were, `missing` the others."""

    def __init__(self, written: list[Path], missing: list[str], reason: str) -> None:
        super().__init__(reason)
        self.written = written
        self.missing = missing
