"""Runs each target of a fleet as its own `conformance run`, all at once, under one bound on tests in flight.

A target is a child process with its settings in its environment (CONFORMANCE_<NAME>, its API key as
CONFORMANCE_API_KEY: never on a command line another user of the machine could read), its report folder and its
share of the fleet's tests in flight on its command line. Each child keeps its own rate limit and request budget,
as a run of its own would. A signal to the fleet goes to every child, and the fleet waits for them: each writes
its reports as an interrupted run does.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from conformance import config, signals
from conformance.errors import EXIT_INCOMPLETE
from conformance.fleet.answers import RECORD_VARIABLE
from conformance.fleet.file import FleetTarget, environment_value

LOG_FOLDER = "fleet-logs"
#: Seconds a run has, once told to stop, to write its reports before it is killed: the fleet leaves no process.
STOP_GRACE = 60.0


@dataclass
class Child:
    target: FleetTarget
    report_dir: Path
    concurrency: int
    process: subprocess.Popen[bytes] | None = None
    log: IO[bytes] | None = None
    exit_code: int | None = None
    started: float = 0.0
    finished: float = 0.0


def shares(count: int, max_in_flight: int) -> tuple[int, int]:
    """(tests in flight per target, targets running at once): every target runs at once when the bound allows
    one test each; a bound below the number of targets runs that many targets at a time."""
    per_target = max(1, max_in_flight // count)
    return per_target, min(count, max(1, max_in_flight // per_target))


def child_environment(target: FleetTarget, overrides: dict[str, Any], base: dict[str, str]) -> dict[str, str]:
    """The parent's environment without any setting of its own, then the target's settings, then those the fleet's
    command line gives every target."""
    env = {key: value for key, value in base.items()
           if not (key.startswith(config.ENV_PREFIX) and key[len(config.ENV_PREFIX):].lower() in config.SETTING)}
    for key, value in {**target.settings, **overrides}.items():
        if value is None or key in ("name", "report_dir", "concurrency"):
            continue
        if key == "har":
            value = str(har_of(Path(str(value)), target.name))
        env[config.SETTING[key].env] = environment_value(key, value)
    if target.api_key:
        env[config.SETTING["api_key"].env] = target.api_key
    env["PYTHONUNBUFFERED"] = "1"
    env[RECORD_VARIABLE] = "1"
    return env


def har_of(path: Path, name: str) -> Path:
    """Each target's own archive: several runs writing one file would interleave their entries."""
    return path.with_name(f"{path.stem}-{name}{path.suffix or '.har'}")


def command(child: Child) -> list[str]:
    return [sys.executable, "-m", "conformance", "run", "--name", child.target.name,
            "--report-dir", str(child.report_dir), "--concurrency", str(child.concurrency)]


class Launcher:
    """Starts the children, at most `parallel` at once, forwards signals, and waits for every one."""

    def __init__(self, children: list[Child], parallel: int, log_dir: Path, overrides: dict[str, Any]) -> None:
        self.children = children
        self.parallel = parallel
        self.log_dir = log_dir
        self.overrides = overrides
        self.stopping: int | None = None
        self.stopped_at = 0.0
        self._lock = threading.Lock()

    def _start(self, child: Child) -> None:
        child.report_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        child.log = open(self.log_dir / f"{child.target.name}.log", "wb")  # closed when the child ends
        env = child_environment(child.target, self.overrides, dict(os.environ))
        child.started = time.monotonic()
        # A session of its own: a terminal's Ctrl-C reaches the fleet, which passes it on once.
        argv = command(child)
        child.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=child.log, stderr=subprocess.STDOUT,
                                         env=env, start_new_session=True)

    def _forward(self, number: int) -> None:
        with self._lock:
            self.stopping = number
            self.stopped_at = self.stopped_at or time.monotonic()
            for child in self.children:
                if child.process is not None and child.process.poll() is None:
                    try:
                        child.process.send_signal(number)
                    except ProcessLookupError:
                        pass

    def run(self) -> list[Child]:
        with signals.forwarding(self._forward):
            return self._run()

    def _run(self) -> list[Child]:
        try:
            waiting = list(self.children)
            running: list[Child] = []
            while waiting or running:
                with self._lock:
                    while waiting and len(running) < self.parallel and self.stopping is None:
                        child = waiting.pop(0)
                        self._start(child)
                        running.append(child)
                    if self.stopping is not None:
                        for child in waiting:   # never started: what it would have decided is unknown
                            child.exit_code = EXIT_INCOMPLETE
                        waiting = []
                for child in list(running):
                    assert child.process is not None
                    code = child.process.poll()
                    if code is None:
                        continue
                    running.remove(child)
                    child.finished = time.monotonic()
                    child.exit_code = code if code >= 0 else EXIT_INCOMPLETE
                    if child.log is not None:
                        child.log.close()
                    print(f"conformance: fleet: {child.target.name} finished in "
                          f"{child.finished - child.started:.0f} s, exit {child.exit_code} "
                          f"(reports in {child.report_dir}/)", flush=True)
                if running and self.stopping is not None and time.monotonic() - self.stopped_at > STOP_GRACE:
                    for child in running:
                        assert child.process is not None
                        print(f"conformance: fleet: {child.target.name} did not stop within {STOP_GRACE:.0f} s of "
                              "the signal: killed", flush=True)
                        child.process.kill()
                        child.process.wait()
                    self.stopped_at = time.monotonic()
                if running:
                    time.sleep(0.05)
        finally:
            for child in self.children:
                if child.process is not None and child.process.poll() is None:
                    # Only reached when the fleet itself fails: the children must not outlive it.
                    child.process.terminate()
                    child.process.wait()
        return self.children
