"""`conformance run --fleet FILE` and `conformance merge DIR...`."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from conformance import config
from conformance.errors import EXIT_INCOMPLETE, ConfigError
from conformance.fleet import file as fleet_file
from conformance.fleet import report
from conformance.fleet.launch import LOG_FOLDER, Child, Launcher, shares

#: Settings of the command line that name one target: with --fleet, each target's are in the fleet file.
PER_TARGET = ("target_url", "node_url", "data_url", "metrics_url", "evm_rpc_url", "name", "api_key", "har")


def run_fleet(args: argparse.Namespace) -> int:
    if getattr(args, "workers", None):
        from conformance.plugin.options import NO_WORKERS
        raise ConfigError(NO_WORKERS)
    if getattr(args, "pytest_args", None):
        raise ConfigError("--fleet: extra pytest arguments are not passed to the fleet's runs")
    given = {name: getattr(args, name, None) for name in config.OPTIONS}
    refused = [name for name in PER_TARGET if given.get(name) not in (None, [], False)]
    if refused:
        flags = ", ".join(config.SETTING[name].flag for name in refused)
        raise ConfigError(f"{flags}: not with --fleet: each target's are in the fleet file")
    fleet = fleet_file.load(args.fleet)
    report_dir = Path(given.get("report_dir") or os.environ.get(config.SETTING["report_dir"].env)
                      or config.DEFAULT_REPORT_DIR)
    bound = config.SETTING["concurrency"].read(given["concurrency"]) if given.get("concurrency") is not None \
        else fleet.max_in_flight or fleet_file.DEFAULT_MAX_IN_FLIGHT
    # The command line's other settings hold for every target, over the file's (as a command line wins over
    # conformance.toml for a single run); checked now, against each target.
    overrides = {name: value for name, value in given.items()
                 if name not in ("report_dir", "concurrency") and value is not None and value != []}
    for target in fleet.targets:
        try:
            target.resolve(overrides)
        except ConfigError as exc:
            raise ConfigError(f"target {target.name!r}: {exc}") from None
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--report-dir: cannot create {report_dir} ({exc.strerror})") from None
    index = getattr(args, "fleet_index", None)
    if index is not None:
        return _run_one(fleet, index, report_dir, overrides, given.get("concurrency"))
    per_target, parallel = shares(len(fleet.targets), bound)
    # Runs that draw the same cases (the same profile and seed) draw them once between them: they share the
    # store of drawn cases (conformance.engine.store).
    children = [Child(target, report_dir / target.name,
                      min(per_target, int(target.settings.get("concurrency") or per_target)))
                for target in fleet.targets]
    print(f"conformance: fleet of {len(children)} targets from {args.fleet}: {parallel} at once, "
          f"{per_target} tests in flight each (at most {bound} in all); logs in {report_dir / LOG_FOLDER}/",
          flush=True)
    Launcher(children, parallel, report_dir / LOG_FOLDER, overrides).run()
    members = [report.load_member(child.report_dir, name=child.target.name, exit_code=child.exit_code)
               for child in children]
    declared = {t.name: t.chain for t in fleet.targets if t.chain}
    return _report(members, report_dir, declared)


def _run_one(fleet: fleet_file.Fleet, index: int, report_dir: Path, overrides: dict[str, Any],
             concurrency: Any) -> int:
    """One target of the fleet, run as the fleet runs it, on a machine of its own (a shard: a CI matrix job, an
    Indexed Job's pod): its folder is merged with the others' by `conformance merge`."""
    if not 0 <= index < len(fleet.targets):
        raise ConfigError(f"--fleet-index: {index} is not the index of a target of {fleet.path} "
                          f"(0 to {len(fleet.targets) - 1})")
    target = fleet.targets[index]
    own = config.SETTING["concurrency"].read(concurrency or target.settings.get("concurrency"))
    child = Child(target, report_dir / target.name, own)
    print(f"conformance: fleet: target {index} of {fleet.path} is {target.name}", flush=True)
    Launcher([child], 1, report_dir / LOG_FOLDER, overrides).run()
    return EXIT_INCOMPLETE if child.exit_code is None else child.exit_code


def merge(args: argparse.Namespace) -> int:
    folders = [Path(folder) for folder in args.folders]
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        raise ConfigError(f"merge: not a folder: {', '.join(missing)}")
    declared: dict[str, str] = {}
    for item in args.chain or []:
        chain, sep, names = str(item).partition("=")
        targets = [n.strip() for n in names.split(",") if n.strip()]
        if not sep or not chain.strip() or not targets:
            raise ConfigError(f"--chain: {item!r} is not NAME=TARGET,TARGET,...")
        declared.update(dict.fromkeys(targets, chain.strip()))
    members = [report.load_member(folder) for folder in folders]
    unknown = sorted(set(declared) - {m.name for m in members})
    if unknown:
        raise ConfigError(f"--chain: no report folder is the target {', '.join(unknown)}")
    report_dir = Path(args.report_dir)
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--report-dir: cannot create {report_dir} ({exc.strerror})") from None
    return _report(members, report_dir, declared)


def _report(members: list[report.Member], report_dir: Path, declared: dict[str, str]) -> int:
    fleet = report.build(members, report_dir, declared)
    report.write(fleet, report_dir)
    for target in fleet["targets"]:
        print(f"conformance: fleet: {target['name']}: {target['verdict']} (exit {target['exit_code']})", flush=True)
    for kind in ("differs", "behind"):
        named = sorted({d["target"] for d in fleet["differences"] if d["kind"] == kind})
        if named:
            print(f"conformance: fleet: {kind}: {', '.join(named)}", flush=True)
    print(f"conformance: fleet: {fleet['verdict']}; reports in {report_dir}/fleet.json, fleet.md, fleet.html ; "
          f"exit {fleet['exit_code']}", file=sys.stdout, flush=True)
    return int(fleet["exit_code"])
