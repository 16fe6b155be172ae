"""The history file: every run of every target in one SQLite database, and what changed since the runs before.

A rule's earlier verdict is the one of the last run that decided it (pass, fail, flaky or observed): a run that
did not select its API, was stopped before it, or could not reach the target says nothing about it, so it
neither hides an old failure nor makes one look new.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import __version__
from conformance.errors import ConfigError

#: PRAGMA application_id of a history file ("Cnfh"): tells it from any other SQLite database.
APPLICATION_ID = 0x436E6668
SCHEMA_VERSION = 1
#: Statuses that decide a rule; the others (error, skip, untested, not selected) say nothing about the target.
DECIDED = ("pass", "fail", "flaky", "observed")
#: How long a writer waits for another one (a fleet's runs share one file) before giving up.
LOCK_TIMEOUT_S = 60.0
TREND_RUNS = 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    target TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    verdict TEXT NOT NULL,
    exit_code INTEGER NOT NULL,
    score REAL,
    tests INTEGER NOT NULL,
    apis TEXT NOT NULL,
    versions TEXT NOT NULL,
    suite_version TEXT NOT NULL,
    contract TEXT,
    profile TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_of_target ON runs (target, id);
CREATE TABLE IF NOT EXISTS rule_status (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    rule TEXT NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (run_id, rule)
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class Run:
    """One recorded run of a target."""

    id: int
    target: str
    started: str
    finished: str
    verdict: str
    exit_code: int
    score: float | None
    tests: int
    apis: tuple[str, ...]
    versions: dict[str, Any]
    suite_version: str
    contract: str | None   # one digest of the files the run was judged against, when the report pins them

    def to_json(self) -> dict[str, Any]:
        return {"started": self.started, "finished": self.finished, "verdict": self.verdict, "score": self.score,
                "suite_version": self.suite_version, "contract": self.contract, "apis": list(self.apis),
                "versions": self.versions}


def overall_score(report: dict[str, Any]) -> float | None:
    """Required rules passed / tested over every API of the run, or None when none was tested."""
    scores = [api["score"] for api in (report.get("apis") or {}).values()]
    tested = sum(score["tested"] for score in scores)
    return round(sum(score["passed"] for score in scores) / tested, 4) if tested else None


@contextlib.contextmanager
def opened(path: str | Path, *, create: bool = True) -> Iterator[sqlite3.Connection]:
    """The history file, checked to be one (or created empty); anything else is a usage error naming it."""
    path = Path(path)
    if not create and not path.is_file():
        raise ConfigError(f"{path}: no such history file")
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder, not a history file")
    try:
        # isolation_level None: transactions are begun here, explicitly, one per recorded run.
        connection = sqlite3.connect(path, timeout=LOCK_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise ConfigError(f"{path}: cannot open the history file ({exc})") from None
    try:
        _prepare(connection, path)
        yield connection
    except sqlite3.Error as exc:
        raise ConfigError(f"{path}: the history file cannot be used ({exc})") from None
    finally:
        connection.close()


def _prepare(connection: sqlite3.Connection, path: Path) -> None:
    try:
        if connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
            _check_version(connection, path)
            return
        # New, or not a history file: decided under the write lock, since the runs of a fleet may all create
        # the file at once and one of them may be half-way through.
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.DatabaseError:
        raise ConfigError(f"{path}: not a history file (not an SQLite database)") from None
    try:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application_id != APPLICATION_ID and (application_id != 0 or tables):
            raise ConfigError(f"{path}: not a history file (an SQLite database of something else)")
        if application_id == 0:
            # One statement at a time: executescript would commit the transaction that holds the lock.
            for statement in filter(str.strip, _SCHEMA.split(";")):
                connection.execute(statement)
            connection.execute(f"PRAGMA application_id={APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    _check_version(connection, path)
    # WAL: readers go on while a run records.
    connection.execute("PRAGMA journal_mode=WAL")


def _check_version(connection: sqlite3.Connection, path: Path) -> None:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise ConfigError(f"{path}: a history file of a newer version ({version}); upgrade conformance")


def check(path: str | Path) -> None:
    """Fails with a one-line usage error now, before a run, when `path` cannot serve as a history file."""
    with opened(path):
        pass


def _run(row: sqlite3.Row | tuple[Any, ...]) -> Run:
    (run_id, target, started, finished, verdict, exit_code, score, tests, apis, versions, suite_version,
     contract) = row
    return Run(run_id, target, started, finished, verdict, exit_code, score, tests, tuple(json.loads(apis)),
               json.loads(versions), suite_version, contract)


_RUN_COLUMNS = ("id, target, started, finished, verdict, exit_code, score, tests, apis, versions, suite_version, "
                "contract")


def contract_digest(report: dict[str, Any]) -> str | None:
    """One sha256 over the digests report.json pins (documents, specs, catalogue): equal when the contract is."""
    pinned = (report.get("suite") or {}).get("contract")
    if not pinned:
        return None
    return hashlib.sha256(json.dumps(pinned, sort_keys=True).encode()).hexdigest()[:16]


def runs(path: str | Path, target: str | None = None, *, limit: int | None = None,
         create: bool = False) -> list[Run]:
    """The runs kept, oldest first: of one target, or of all; the last `limit` of each target when given."""
    with opened(path, create=create) as db:
        if target is not None:
            # Newest first, so that a long history is not read whole for its last runs.
            tail = "LIMIT ?" if limit is not None else ""
            rows = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE target = ? ORDER BY id DESC {tail}",
                              [target, limit] if limit is not None else [target]).fetchall()
            return [_run(row) for row in reversed(rows)]
        rows = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY target, id").fetchall()
    found = [_run(row) for row in rows]
    if limit is None:
        return found
    by_target: dict[str, list[Run]] = {}
    for run in found:
        by_target.setdefault(run.target, []).append(run)
    return [run for mine in by_target.values() for run in mine[-limit:]]


def previous(path: str | Path, target: str) -> Run | None:
    """The last run of `target` recorded so far, or None."""
    kept = runs(path, target, limit=1, create=True)
    return kept[-1] if kept else None


def last_decided(path: str | Path, target: str) -> dict[str, str]:
    """Rule -> its status in the last run of `target` that decided it (see DECIDED)."""
    marks = ",".join("?" * len(DECIDED))
    with opened(path) as db:
        rows = db.execute(
            f"SELECT rule, status FROM (SELECT s.rule, s.status, ROW_NUMBER() OVER "
            f"(PARTITION BY s.rule ORDER BY s.run_id DESC) AS n FROM rule_status s JOIN runs r ON r.id = s.run_id "
            f"WHERE r.target = ? AND s.status IN ({marks})) WHERE n = 1", [target, *DECIDED]).fetchall()
    return dict(rows)


def old_failures(path: str | Path, target: str) -> frozenset[str]:
    """Rules that were failing (or flaky) the last time a run of `target` decided them: under `--fail-on new`
    their failures do not fail the gate again."""
    return frozenset(rule for rule, status in last_decided(path, target).items() if status in ("fail", "flaky"))


def _streaks(db: sqlite3.Connection, target: str, rules: list[str]) -> dict[str, int]:
    """Rule -> how many of the runs that last decided it, counted back from the newest, found it failing."""
    if not rules:
        return {}
    marks, decided = ",".join("?" * len(rules)), ",".join("?" * len(DECIDED))
    rows = db.execute(f"SELECT s.rule, s.status FROM rule_status s JOIN runs r ON r.id = s.run_id "
                      f"WHERE r.target = ? AND s.rule IN ({marks}) AND s.status IN ({decided}) "
                      f"ORDER BY s.run_id DESC", [target, *rules, *DECIDED]).fetchall()
    counts: dict[str, int] = {}
    ended: set[str] = set()
    for rule, status in rows:
        if rule in ended:
            continue
        if status == "fail":
            counts[rule] = counts.get(rule, 0) + 1
        else:
            ended.add(rule)
    return counts


def changes(path: str | Path, target: str, report: dict[str, Any], *, trend_runs: int = TREND_RUNS) -> dict[str, Any]:
    """report.json's `history`: what `report` changes against the runs of `target` recorded before it.

    `new`: failing now, and not failing the last time a run decided the rule (every failure, without one);
    `fixed`: failing then, passing now; `still_failing`: failing then and now, with `runs`, the consecutive
    deciding runs that found it failing, this one included; `trend`: the last runs' time, score and verdict,
    this one last."""
    before = last_decided(path, target)
    earlier = previous(path, target)
    now = {rule["id"]: rule for rule in report["rules"]}
    failing = [rule_id for rule_id, rule in now.items() if rule["status"] == "fail"]
    with opened(path) as db:
        streaks = _streaks(db, target, [rule_id for rule_id in failing if before.get(rule_id) == "fail"])

    def entry(rule_id: str, **extra: Any) -> dict[str, Any]:
        rule = now[rule_id]
        return {"rule": rule_id, "level": rule["level"], "title": rule["title"], **extra}

    kept = runs(path, target, limit=max(trend_runs - 1, 0), create=True) if trend_runs > 1 else []
    trend = [{"time": run.finished, "score": run.score, "verdict": run.verdict} for run in kept]
    trend.append({"time": report["suite"]["finished"], "score": overall_score(report),
                  "verdict": report["summary"]["verdict"]})
    return {
        "target": target,
        "previous": earlier.to_json() if earlier else None,
        "new": [entry(rule_id, was=before.get(rule_id)) for rule_id in failing if before.get(rule_id) != "fail"],
        "fixed": [entry(rule_id) for rule_id, rule in now.items()
                  if rule["status"] == "pass" and before.get(rule_id) == "fail"],
        "still_failing": [entry(rule_id, runs=streaks.get(rule_id, 0) + 1) for rule_id in failing
                          if before.get(rule_id) == "fail"],
        "trend": trend[-trend_runs:],
    }


def record(path: str | Path, target: str, report: dict[str, Any]) -> int:
    """Keeps `report` as the newest run of `target`, in one transaction; returns its id."""
    suite, summary = report["suite"], report["summary"]
    statuses = [(rule["id"], rule["status"]) for rule in report["rules"] if rule["status"] != "not selected"]
    with opened(path) as db:
        db.execute("BEGIN IMMEDIATE")
        try:
            cursor = db.execute(
                "INSERT INTO runs (target, started, finished, verdict, exit_code, score, tests, apis, versions, "
                "suite_version, contract, profile) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (target, suite["started"], suite["finished"], summary["verdict"], summary["exit_code"],
                 overall_score(report), summary["tests"], json.dumps(report["target"]["apis"]),
                 json.dumps(report["target"].get("versions") or {}, sort_keys=True),
                 suite.get("version", __version__), contract_digest(report), suite["profile"]))
            run_id = int(cursor.lastrowid or 0)
            db.executemany("INSERT INTO rule_status (run_id, rule, status) VALUES (?, ?, ?)",
                           [(run_id, rule, status) for rule, status in statuses])
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return run_id


@dataclass(frozen=True)
class RunChanges:
    """A kept run with what it changed against the runs of its target before it."""

    run: Run
    failing: int
    new: tuple[str, ...]
    fixed: tuple[str, ...]


def replay(path: str | Path, target: str | None = None) -> list[RunChanges]:
    """Every kept run (of `target`, or of all), oldest first per target, with its new and fixed rules as they
    were when it was recorded."""
    kept = runs(path, target)
    marks = ",".join("?" * len(DECIDED))
    with opened(path, create=False) as db:
        where, args = ("AND r.target = ?", [target]) if target is not None else ("", [])
        rows = db.execute(f"SELECT s.run_id, s.rule, s.status FROM rule_status s JOIN runs r ON r.id = s.run_id "
                          f"WHERE s.status IN ({marks}) {where}", [*DECIDED, *args]).fetchall()
    decided: dict[int, dict[str, str]] = {}
    for run_id, rule, status in rows:
        decided.setdefault(run_id, {})[rule] = status
    last: dict[str, dict[str, str]] = {}
    out = []
    for run in kept:
        before = last.setdefault(run.target, {})
        now = decided.get(run.id, {})
        out.append(RunChanges(
            run, sum(status == "fail" for status in now.values()),
            tuple(sorted(rule for rule, status in now.items() if status == "fail" and before.get(rule) != "fail")),
            tuple(sorted(rule for rule, status in now.items() if status == "pass" and before.get(rule) == "fail"))))
        before.update(now)
    return out
