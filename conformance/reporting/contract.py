"""The contract a run was judged against, pinned: a digest of every spec, catalogue file and API document it used,
and the options it ran with (the API key never among them).

Two reports are comparable rule by rule only when their contracts agree; `conformance diff` reads what is pinned
here to say when they do not, and which files and rules changed between them.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.specs import specs_dir

if TYPE_CHECKING:
    from conformance.config import Target

#: The three API documents, by the names the catalogue cites them.
DOCUMENTS = ("1-node-jsonrpc-apis.md", "2-data-api.md", "3-metrics-api.md")
#: What the suite reads of specs/: the APIs as data and the rule catalogue.
SPEC_GLOBS = ("openrpc/*.json", "openapi/*.yaml", "rules/*.yaml")
#: Where the documents are looked for when CONFORMANCE_DOCS_DIR is not set: beside a source checkout.
DOCS_BESIDE = Path("..") / "shared" / "docs"
CHECKOUT = Path(__file__).resolve().parents[2]
#: Stands in for a secret option's value.
REDACTED = "***"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def documents_dir(environ: dict[str, str] | None = None) -> Path | None:
    """The folder of the API documents: $CONFORMANCE_DOCS_DIR, else `../shared/docs` beside the checkout, else None.
    The checkout is the package's, wherever the specs were read from."""
    environ = dict(os.environ) if environ is None else environ
    configured = environ.get("CONFORMANCE_DOCS_DIR")
    if configured:
        return Path(configured).expanduser()
    beside = CHECKOUT / DOCS_BESIDE
    return beside if beside.is_dir() else None


def pinned_contract(specs: Path | None = None, docs: Path | None = None) -> dict[str, str | None]:
    """Relative file name -> sha256 for every spec and catalogue file and each API document.

    A document that cannot be found is pinned as None: the report says it was not there rather than invent a digest.
    """
    root = specs or specs_dir()
    out: dict[str, str | None] = {}
    for pattern in SPEC_GLOBS:
        for path in sorted(root.glob(pattern)):
            out[f"specs/{path.relative_to(root).as_posix()}"] = sha256_of(path)
    folder = docs if docs is not None else documents_dir()
    for name in DOCUMENTS:
        document = folder / name if folder is not None else None
        out[f"docs/{name}"] = sha256_of(document) if document is not None and document.is_file() else None
    return out


def run_options(target: Target) -> dict[str, Any]:
    """Every setting of `conformance run` as this run resolved it: the API key as "***", URLs without user,
    password or query."""
    from conformance.config import SETTINGS
    from conformance.reporting.build import redact_url

    values: dict[str, Any] = {name: getattr(target, name) for name in target.__dataclass_fields__}
    values.update(api=list(target.apis), rule=list(target.rules),
                  # a key given as an identifier is a key all the same
                  sample=[f"{name}={REDACTED if 'key' in name.lower() else value}" for name, value in target.samples])
    urls = {target.node_url, target.data_url, target.metrics_url}
    # --target-url is not kept once resolved: it is the one URL when all three APIs share it.
    values["target_url"] = next(iter(urls)) if len(urls) == 1 else None
    out: dict[str, Any] = {}
    for setting in SETTINGS:
        value = values.get(setting.name)
        if setting.name == "api_key":
            value = REDACTED if value else None
        elif setting.name.endswith("_url"):
            value = redact_url(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[setting.name] = value
    return out


def contract_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What differs between the contracts of two reports: files changed, added, removed; the suite's version; and
    the rules whose title, level, quote or source changed, or that one catalogue has and the other has not.
    Empty when both were judged against the same contract (or neither report pins one)."""
    old_files: dict[str, Any] = old.get("suite", {}).get("contract") or {}
    new_files: dict[str, Any] = new.get("suite", {}).get("contract") or {}
    out: dict[str, Any] = {}
    if old_files and new_files:
        changed = sorted(name for name in set(old_files) & set(new_files) if old_files[name] != new_files[name])
        added = sorted(set(new_files) - set(old_files))
        removed = sorted(set(old_files) - set(new_files))
        if changed or added or removed:
            out["files"] = {"changed": changed, "added": added, "removed": removed}
    elif old_files or new_files:
        # A report of an earlier version pins nothing: whether the contracts agree cannot be said.
        out["unpinned"] = "old" if not old_files else "new"
    old_version, new_version = old.get("suite", {}).get("version"), new.get("suite", {}).get("version")
    if old_version != new_version:
        out["version"] = {"old": old_version, "new": new_version}
    rules = _rule_changes(old.get("rules", []), new.get("rules", []))
    if rules:
        out["rules"] = rules
    return out


#: What a rule says, as report.json carries it: a change to any of these is a change of the contract.
_WORDING = ("title", "level", "quote_sha256", "source")


def _rule_changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    before = {rule["id"]: rule for rule in old}
    after = {rule["id"]: rule for rule in new}
    out = []
    for rule_id in sorted(set(before) | set(after)):
        was, now = before.get(rule_id), after.get(rule_id)
        if was is None or now is None:
            out.append({"rule": rule_id, "change": "added" if was is None else "removed",
                        "title": (now or was or {}).get("title", "")})
            continue
        fields = [name for name in _WORDING if name in was and name in now and was[name] != now[name]]
        if fields:
            change: dict[str, Any] = {"rule": rule_id, "change": "changed", "fields": fields, "title": now["title"]}
            if "level" in fields:
                change["level"] = {"old": was["level"], "new": now["level"]}
            if "title" in fields:
                change["old_title"] = was["title"]
            out.append(change)
    return out
