"""Runs the conformance suite in-process against a reference target and reports what each test did."""
from __future__ import annotations

import contextlib
import gc
import io
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

import pytest

from conformance.discovery import Discovery
from conformance.engine import pytest_internals
from conformance.plugin import rule_ids
from conformance.reporting.outcomes import Findings
from conformance.reference import ReferenceServer
from conformance.reference.middleware import Fault
from conformance.session import reference_credentials

BASE_ARGS = ["-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", "-q", "--no-header", "--suite-tracebacks",
             "--conformance-profile", "quick", "-W", "ignore::pytest.PytestAssertRewriteWarning",
             # reports only where a self-test asks for them (with its own --report-dir)
             "--report-dir", "",
             # the reference answers alike every time: a failing test run again would only cost time
             "--recheck", "0",
             # pytest's watch for unraisable exceptions and exceptions of threads collects the garbage of the whole
             # heap at every session's end, twice (a twentieth of each short run); `conformance run` leaves them out
             # too. What a run leaves behind is collected by `run_apart` instead.
             "-p", "no:unraisableexception", "-p", "no:threadexception",
             # as `conformance run` starts its session (conformance/runner.py): without the plugins it leaves out
             "-p", "no:logging", "-p", "no:schemathesis", "-p", "no:anyio", "--assert=plain"]


class Target(Protocol):
    """What a run needs of a reference: the URL the suite sends to, and the reference's description."""

    @property
    def url(self) -> str: ...

    def info(self) -> dict[str, Any]: ...


@dataclass
class Behind:
    """The reference as the suite sees it through a proxy: the proxy's address, the reference's description."""

    url: str
    server: ReferenceServer

    def info(self) -> dict[str, Any]:
        return self.server.info()


@dataclass
class Outcome:
    nodeid: str
    rules: list[str]
    outcome: str = "passed"      # passed | failed | skipped | error
    kind: str | None = None      # violation | suite-error, for failures
    message: str = ""            # why it failed, or why it skipped
    evidence: dict[str, list[int]] = field(default_factory=dict)   # rule -> [checks held, checks broken]
    broken: list[str] = field(default_factory=list)               # rules of its violations, headline first


@dataclass
class SuiteRun:
    exit_code: int
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    output: str = ""

    def failed_rules(self) -> set[str]:
        return {rule for o in self.outcomes.values() if o.outcome in ("failed", "error") for rule in o.rules}

    def broken_rules(self) -> set[str]:
        """Rules some check found broken: the verdict of the evidence, not of the marks."""
        return {rule for o in self.outcomes.values() for rule, (_, broke) in o.evidence.items() if broke} | {
            rule for o in self.outcomes.values() for rule in o.broken}

    def held_rules(self) -> set[str]:
        """Rules some check of which held."""
        return {rule for o in self.outcomes.values() for rule, (held, _) in o.evidence.items() if held}

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes.values() if o.outcome in ("failed", "error")]


class _Recorder:
    def __init__(self) -> None:
        self.outcomes: dict[str, Outcome] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            self.outcomes[item.nodeid] = Outcome(item.nodeid, rule_ids(item))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.setdefault(report.nodeid, Outcome(report.nodeid, []))
        found = Findings.on(report) or Findings()
        for rule, (held, broke) in found.evidence.items():
            pair = outcome.evidence.setdefault(rule, [0, 0])
            pair[0] += held
            pair[1] += broke
        outcome.broken += [v["rule"] for v in found.violations if v["rule"] not in outcome.broken]
        if report.failed:
            outcome.kind = found.failure
            outcome.outcome = "failed" if report.when == "call" or outcome.kind == "violation" else "error"
            outcome.message = str(report.longrepr)[-3000:]
        elif report.skipped and outcome.outcome == "passed":
            outcome.outcome = "skipped"
            # a skip's longrepr is (path, line, "Skipped: reason")
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            outcome.message = reason.removeprefix("Skipped: ")


def run_suite(server: Target | None, selection: list[str], *extra: str,
              allow_mutations: bool = True, evm_chain: bool = True,
              identifiers: KnownIdentifiers | None = None) -> SuiteRun:
    """Runs the selected suite tests (node IDs or paths) against `server`; `extra` are more pytest arguments.
    With `identifiers`, the run takes the identifiers an earlier run discovered instead of crawling again."""
    recorder = _Recorder()
    args = list(BASE_ARGS)
    if server is not None:
        url = server.url
        info = server.info()
        # Each run has its own fresh reference, so state-changing tests are harmless there and must be proven.
        args += ["--allow-mutations"] if allow_mutations else []
        args += ["--node-url", url, "--data-url", url, "--metrics-url", url]
        # The EVM chain is given, as to a node that may not serve it (a fault can make it answer 404); every
        # other identifier comes from discovery, as against a real target, and only the key the reference
        # accepts, a credential, is taken from it. tests/test_discovery.py runs the suite without the chain too.
        args += ["--evm-chain", str(info["evm_blockchain_id"])] if evm_chain else []
        for name, value in reference_credentials(info).items():
            args += ["--sample", f"{name}={value}"]
    out = io.StringIO()
    with run_apart():
        with contextlib.redirect_stdout(out):
            code = pytest.main(args + list(extra) + selection,
                               plugins=[recorder] + ([identifiers] if identifiers else []))
    return SuiteRun(int(code), recorder.outcomes, out.getvalue())


class KnownIdentifiers:
    """The identifiers of a world, crawled by the first run that needs them and handed to every later run, as a
    `--sample` for each would be. A fault's run asks only the tests of its rules: it need not crawl the whole
    target first (the crawl cost as much as those tests), and a fault of a route the crawl reads then changes
    what those tests are asked about, not which sample they ask for."""

    def __init__(self) -> None:
        self.discovery: Discovery | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> Iterator[Any]:
        value: Any = yield
        if fixturedef.argname == "endpoints":
            if self.discovery is None:
                self.discovery = value.identifiers.run()
            else:
                value.identifiers.load(self.discovery)
        return value


#: Whether a `run_apart` block is open, and how many have closed since the last full collection.
_APART = {"open": False, "closed": 0}
#: Blocks between two full collections of the process's garbage (what died frozen: see `run_apart`).
FULL_COLLECTION_EVERY = 100


@contextlib.contextmanager
def run_apart() -> Iterator[None]:
    """Lets go of what the block made (an in-process run of the suite, the world it ran against) as it ends:
    hundreds of runs share one self-test worker, and each would otherwise stay in it.

    What the process holds as the block starts is frozen (`gc.freeze`), so the collection made as it ends walks only
    what the block made, and frees the run: its session and config and all they reach (items, fixtures, caches,
    coverage, the HTTP session) are cycles only the collector frees. Whatever still holds the run then would keep it
    past the next block's freeze, in the permanent generation, until a full collection: so it is let go of first.
    That is pytest's copy of the root conftest.py (its loader, pytest's import hook, holds the session), the engine's
    cache of hook callers (the plugin manager of each of the last 64 sessions), and the last failing test's exception
    pytest keeps for a debugger in `sys.last_*` (its traceback's frames hold the session). What still dies frozen
    (an object made before the block, let go of inside it, such as the clean app a reference served between two
    runs) is freed by a full collection every `FULL_COLLECTION_EVERY` blocks. Nested blocks are one block."""
    if _APART["open"]:
        yield
        return
    _APART["open"] = True
    gc.freeze()
    try:
        yield
    finally:
        # The root conftest.py is no package's module: pytest imports it afresh for each session, and the copy left
        # in sys.modules (through its loader, pytest's import hook) holds the session that imported it.
        sys.modules.pop("conftest", None)
        # The engine's cache of hook callers holds the plugin manager, that is the whole session, of the last 64.
        pytest_internals._subset.cache_clear()
        # pytest keeps the last failing test's exception for a debugger in sys.last_*: its traceback's frames hold
        # the session until the next failing test (of the next run, frozen by then).
        for name in ("last_exc", "last_type", "last_value", "last_traceback"):
            if hasattr(sys, name):
                delattr(sys, name)
        gc.collect()
        gc.unfreeze()
        _APART["open"] = False
        _APART["closed"] += 1
        if _APART["closed"] % FULL_COLLECTION_EVERY == 0:
            gc.collect()


class serving:
    """`reference` serving a fresh world through `faults` for the block (a run), then a fresh clean one: one server
    for many runs, each against a target of its own. The block is apart (`run_apart`), and the world the run
    changed is let go of before the run's garbage is collected: the faults too, as a fault may keep the world it
    was attached to."""

    def __init__(self, reference: ReferenceServer, faults: Iterable[Fault] = ()) -> None:
        self.reference = reference
        self.faults: list[Fault] = list(faults)
        self._apart = run_apart()

    def __enter__(self) -> ReferenceServer:
        self._apart.__enter__()
        return self.reference.reset(self.faults)

    def __exit__(self, *exc_info: Any) -> None:
        self.faults = []
        self.reference.reset()
        self._apart.__exit__(*exc_info)


@cache
def rule_map() -> dict[str, tuple[str, ...]]:
    """Rule ID -> node IDs of the suite tests that carry it (one collection, reused)."""
    run = run_suite(None, ["--pyargs", "conformance.suite"], "--collect-only", "--api",
                    "admin,index,evm,validators,data,metrics")
    by_rule: dict[str, list[str]] = {}
    for outcome in run.outcomes.values():
        for rule in outcome.rules:
            by_rule.setdefault(rule, []).append(outcome.nodeid)
    return {rule: tuple(ids) for rule, ids in by_rule.items()}
