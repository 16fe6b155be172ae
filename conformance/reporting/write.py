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
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
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


def write_reports(report: dict[str, Any], report_dir: Path) -> list[Path]:
    """Writes every report, report.json first; one that cannot be rendered leaves the others written, and raises
    ReportNotWritten naming it afterwards. OSError (the folder) propagates."""
    from conformance.reporting import html, junit

    report_dir.mkdir(parents=True, exist_ok=True)
    written, failed = [], []
    for name, render in (("report.json", json_text), ("junit.xml", junit.render), ("summary.md", markdown.render),
                         ("report.html", html.render)):
        try:
            text = render(report)
        except Exception as exc:
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
            continue
        written.append(_write(report_dir / name, text))
    if failed:
        raise ReportNotWritten(written, f"could not render {', '.join(failed)}")
    return written


class ReportNotWritten(Exception):
    """Some reports could not be rendered; `written` are the ones that were."""

    def __init__(self, written: list[Path], reason: str) -> None:
        super().__init__(reason)
        self.written = written
