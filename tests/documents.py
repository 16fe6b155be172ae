"""The three API documents, read as the source of truth: sections, and what their tables list."""
from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("1-node-jsonrpc-apis.md", "2-data-api.md", "3-metrics-api.md")
#: Where the documents are looked for when CONFORMANCE_DOCS_DIR is not set: beside the checkout.
BESIDE = ROOT.parent / "shared" / "docs"


def _missing(folder: Path) -> list[str]:
    return [name for name in NAMES if not (folder / name).is_file()]


@cache
def _located() -> tuple[Path | None, str]:
    """The folder of the three documents, or None and what is wrong."""
    configured = os.environ.get("CONFORMANCE_DOCS_DIR")
    if configured:
        folder = Path(configured).expanduser().resolve()
        missing = _missing(folder)
        if missing:
            # Asked for by name (CI sets it): a document that is not there is a failure, never a skip.
            return None, f"CONFORMANCE_DOCS_DIR={configured} lacks {', '.join(missing)}"
        return folder, ""
    if not _missing(BESIDE):
        return BESIDE, ""
    return None, ""


def docs_dir() -> Path:
    """$CONFORMANCE_DOCS_DIR, else `../shared/docs` beside the checkout.

    When neither holds the documents, the test asking for them is skipped (one reason, so pytest folds every
    such skip into one line); when CONFORMANCE_DOCS_DIR names a folder without them, it fails.
    """
    folder, problem = _located()
    if problem:
        pytest.fail(f"the API documents are not found: {problem}", pytrace=False)
    if folder is None:
        pytest.skip("the API documents are not found: set CONFORMANCE_DOCS_DIR=<folder of "
                    f"{', '.join(NAMES)}> to check specs and catalogue against them")
    return folder


@cache
def text(name: str) -> str:
    return (docs_dir() / name).read_text(encoding="utf-8")


def collapse(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


@cache
def sections(name: str) -> dict[str, str]:
    """Heading text -> the section's text up to the next heading of the same or a higher level."""
    lines = text(name).splitlines()
    headings = [(i, len(m.group(1)), m.group(2).strip()) for i, line in enumerate(lines)
                if (m := re.match(r"^(#{1,6})\s+(.*)$", line))]
    out: dict[str, str] = {}
    for n, (start, level, title) in enumerate(headings):
        end = next((i for i, lvl, _ in headings[n + 1:] if lvl <= level), len(lines))
        out[title] = "\n".join(lines[start + 1:end])
    return out


def rpc_methods() -> set[str]:
    """Every method named in a table row of document 1's endpoints."""
    return set(re.findall(r"^\| ((?:admin|index|validators)\.\w+|eth_\w+) \|", text("1-node-jsonrpc-apis.md"), re.M))


def data_routes() -> dict[str, tuple[str, str]]:
    """Document 2's numbered endpoints: number -> (HTTP method, path)."""
    return {n: (m, p) for n, m, p in re.findall(r"^\| (\d+) \| (GET|POST) (\S+) \|", text("2-data-api.md"), re.M)}


def data_page_sizes() -> dict[str, tuple[int, int]]:
    """Document 2's endpoint number -> (maximum, default) page size, from its table."""
    out = {}
    rows = re.findall(r"^\| (\d+) \| (?:GET|POST) \S+ \| (.*?) \|", text("2-data-api.md"), re.M)
    for number, request in rows:
        if m := re.search(r"pageSize \(1\.\.(\d+), default (\d+)\)", request):
            out[number] = (int(m.group(1)), int(m.group(2)))
        elif m := re.match(r"(?:Same query|Query) as (\d+)", request):
            out[number] = out[m.group(1)]
    filters = sections("2-data-api.md")["Endpoints"]
    if m := re.search(r"Validator list filters \(endpoint 5\):.*?pageSize \(1\.\.(\d+), default (\d+)\)", filters):
        out["5"] = (int(m.group(1)), int(m.group(2)))
    return out


def metrics_routes() -> set[str]:
    headings = [h for h in sections("3-metrics-api.md") if h.startswith(("GET", "GET /"))]
    return {path for h in headings for path in re.findall(r"GET (/v\d/\S+)", h) if "{" in path}


def metric_intervals() -> dict[str, list[str]]:
    """Document 3's metric table: metric -> allowed intervals."""
    out = {}
    for metric, intervals in re.findall(r"^\| (\w+) \| .*? \| ((?:hour, day, week, month)|day only) \|$",
                                        text("3-metrics-api.md"), re.M):
        out[metric] = ["hour", "day", "week", "month"] if "hour" in intervals else ["day"]
    return out
