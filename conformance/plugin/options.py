"""The plugin's options (one per setting of the table in conformance.config) and what a run installs at its start."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from conformance import config as conf
from conformance.discovery.session import discovery_run
from conformance.engine import loop
from conformance.engine.store import CaseStore
from conformance.engine.cases import shrinks_in_its_call
from conformance.plugin import state
from conformance.profiles import PROFILES
from conformance.reporting.terminal import ProgressLine

SUITE_DIR = Path(__file__).resolve().parents[1] / "suite"
#: Why a run of the suite refuses pytest-xdist's -n.
NO_WORKERS = ("-n: the suite keeps up to --concurrency tests' requests in flight in one process; worker processes "
              "would add their start-up and memory without sending more at once (use --concurrency)")


_HANDED = pytest.StashKey[conf.Target]()


class HandedTarget:
    """A target resolved before the session started (`conformance run` resolves it, and opens its endpoints),
    handed to the plugin as it is: a plugin object of the session, instead of options the plugin would resolve
    again. Without one, the session's options resolve through the same settings (plain `pytest --pyargs`)."""

    def __init__(self, target: conf.Target) -> None:
        self.target = target

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[_HANDED] = self.target


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "API contract conformance")
    for setting in conf.SETTINGS:
        conf.add_option(group.addoption, setting, setting.pytest_flag)
    add = group.addoption
    add("--conformance-progress", action="store_true", default=False,
        help="one progress line instead of pytest's per-test letters")
    add("--suite-tracebacks", action="store_true", default=False,
        help="show the traceback of a defect of the suite itself (by default one line says what and where)")
    add("--reference-target", action="store_true", default=False, help=argparse.SUPPRESS)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the catalogue rules this test proves")
    config.addinivalue_line("markers", "mutating: changes node state; runs only with --allow-mutations")
    config.addinivalue_line("markers", "serial: runs alone, never while another test's requests are in flight")
    config.addinivalue_line("markers", "exhaustive: a further variant of a decided rule; left out of profiles "
                                       "that are not exhaustive (quick)")
    if config.getoption("numprocesses", None) and runs_the_suite(config):
        raise pytest.UsageError(NO_WORKERS)
    run = state.start(config)
    handed = config.stash.get(_HANDED, None)
    if handed is not None:
        given = [setting.pytest_flag or setting.flag for setting in conf.SETTINGS
                 if config.getoption(setting.name, None) not in (None, [])]
        if given:
            # The run's settings are resolved already: one given among pytest's arguments would be dropped.
            raise pytest.UsageError(f"{', '.join(given)}: give the settings of `conformance run` before --, "
                                    "under their own names")
        run.target = handed
    try:
        resolved: conf.Target | None = state.resolved_target(config)
    except pytest.UsageError:
        resolved = None   # reported at collection, where a run that collected tests stops on it
    if resolved is not None:
        profile = PROFILES[resolved.profile]
        loop.install(config, resolved.concurrency, serial=lambda item: shrinks_in_its_call(item, profile),
                     pressed=run.memory.pressed)
        run.seed = run.seed_of(resolved, config)
        run.cases = CaseStore(None, run.seed, profile.name)
    discovery_run(config)
    if config.getoption("conformance_progress", False):
        config.pluginmanager.register(ProgressLine(config, lambda: state.started_state(config)),
                                    "conformance-progress")


def runs_the_suite(config: pytest.Config) -> bool:
    """Whether the session's arguments name the suite (its package, or a path inside it)."""
    for argument in config.args:
        name = str(argument).split("::")[0]
        if name.startswith("conformance.suite"):
            return True
        path = Path(name)
        if path.exists() and (path.resolve() == SUITE_DIR or SUITE_DIR in path.resolve().parents):
            return True
    return False
