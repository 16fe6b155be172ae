"""Writes a run's reports into its report directory: report.json, summary.md and report.html."""
from __future__ import annotations

import json
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


def write_reports(report: dict[str, Any], report_dir: Path) -> list[Path]:
    from conformance.reporting import html

    report_dir.mkdir(parents=True, exist_ok=True)
    return [_write(report_dir / "report.json", json.dumps(report, indent=1, ensure_ascii=False) + "\n"),
            _write(report_dir / "summary.md", markdown.render(report)),
            _write(report_dir / "report.html", html.render(report))]
