"""The `conformance` command: run the suite, serve the reference target, compare reports."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn
from collections.abc import Sequence

from conformance import __version__, config, signals
from conformance.errors import EXIT_INCOMPLETE, EXIT_USAGE, ConfigError, SuiteError


class _Parser(argparse.ArgumentParser):
    """Reports bad usage as one line and exit code 2, never a usage dump or a traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


#: What a setting of `run` does under `compare`, where the words of its row are about a run of the suite.
COMPARE_HELP = {
    "api": f"comma-separated subset of {','.join(config.ALL_APIS)} (default: every API both endpoints have a URL "
           "for)",
    "evm_chain": "blockchain ID or alias of the EVM chain (and its validators), for both endpoints (found by "
                 "discovery when not given)",
    "sample": "an identifier for the requests, used instead of the one discovery finds (repeatable)",
    "rate_limit": "at most N requests a second to each endpoint, e.g. 20/s",
    "max_requests": "request budget for each endpoint, discovery included",
    "max_duration": "seconds after which no new request starts, to either endpoint",
    "outage_window": "seconds a request refused, reset or cut mid-body is sent again for, and after which an "
                     "endpoint that gave nothing else (or 5XX) is down: the comparison stops, exit 3 (0: neither)",
    "report_dir": "where compare.json goes ('' for none)",
    "seed": "seed of the positions sampled below both chain heights (0 unless given)",
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="conformance", description=__doc__)
    parser.add_argument("--version", action="version", version=f"conformance {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="run the conformance suite against a target",
                              description="Every setting is also read from CONFORMANCE_<NAME> and from "
                                          "conformance.toml or [tool.conformance] in pyproject.toml (the command "
                                          "line wins, then the environment); without a URL the embedded reference "
                                          "target is tested.")
    for setting in config.SETTINGS:
        config.add_option(run.add_argument, setting)
    run.add_argument("--fleet", metavar="FILE", help="test every target of a fleet file ([[targets]] of TOML) in one "
                                                     "run: each target's reports in REPORT_DIR/<name>/, the fleet's "
                                                     "in REPORT_DIR/fleet.*")
    run.add_argument("--fleet-index", type=int, metavar="N",
                     help="with --fleet: run only the Nth target of the file (from 0; a Kubernetes Indexed Job's "
                          "JOB_COMPLETION_INDEX), its reports in REPORT_DIR/<name>/ for `conformance merge`")
    run.add_argument("-n", dest="workers", help=argparse.SUPPRESS)   # refused: see conformance.plugin.options
    run.add_argument("pytest_args", nargs="*", help="extra arguments for pytest, after --")

    serve = commands.add_parser("serve-reference", help="serve the embedded reference target in the foreground")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--seed", type=int, default=0)
    serve.add_argument("--fault", action="append", default=[], help="enable a named fault (repeatable)")
    serve.add_argument("--list-faults", action="store_true", help="list the faults and the rules they break")
    serve.add_argument("--advance-every", type=float, help="grow the chain every SECONDS (a live target)")

    seed = commands.add_parser("seed-dev-chain", help="give a fresh development chain (anvil, hardhat, ganache) a few "
                                                      "transfers and a contract that logs, so a run has blocks, "
                                                      "transactions and logs to read (writes to the chain)")
    seed.add_argument("url", help="the node's JSON-RPC URL, e.g. http://127.0.0.1:8545")

    diff = commands.add_parser("diff", help="compare two report.json files; exit 1 when NEW regressed")
    diff.add_argument("old", help="report.json before (the baseline)")
    diff.add_argument("new", help="report.json after (the candidate)")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    diff.add_argument("--slower-factor", type=float, default=2.0,
                      help="an operation is slower when its median grew by this factor (default 2) …")
    diff.add_argument("--slower-ms", type=float, default=100.0, help="… and by this many milliseconds (default 100)")
    diff.add_argument("--allow-narrower", action="store_true",
                      help="a new run that decided less (an API or rules not selected, a smaller profile, lower "
                           "coverage) is still shown, but is not a regression")

    from conformance.compare import sides
    compare = commands.add_parser("compare", help="send the same read-only requests to two endpoints and "
                                                  "report where their answers differ; exit 1 when they do",
                                  description="Each endpoint has the URL settings of a run of its own: --baseline-url "
                                              "(one base URL for all its APIs), --baseline-node-url, "
                                              "--baseline-data-url, --baseline-metrics-url, --baseline-evm-rpc-url, "
                                              "and the same for the candidate. Every other option is a setting of "
                                              "`conformance run`, with its defaults and bounds, also read from "
                                              "CONFORMANCE_<NAME> and from conformance.toml or [tool.conformance] "
                                              "in pyproject.toml; each holds for both endpoints. As a run does, "
                                              "compare discovers on each endpoint the identifiers not given (the EVM "
                                              "chain, the samples); where the two find different ones, the "
                                              "baseline's are asked of both.")
    sides.add_options(compare)
    for name in config.COMPARE_OPTIONS:
        config.add_option(compare.add_argument, config.SETTING[name], help=COMPARE_HELP.get(name))

    merge = commands.add_parser("merge", help="build the fleet report from the report folders of separate runs")
    merge.add_argument("folders", nargs="+", metavar="DIR", help="report folders, one per target")
    merge.add_argument("--report-dir", default=config.DEFAULT_REPORT_DIR, metavar="DIR",
                       help=f"where fleet.json, fleet.html and fleet.md go (default {config.DEFAULT_REPORT_DIR})")
    merge.add_argument("--chain", action="append", default=[], metavar="NAME=TARGET,...",
                       help="targets that serve the same chain, when their reports do not say so (repeatable)")

    history = commands.add_parser("history", help="print the trend of the runs kept in a history file")
    history.add_argument("file", metavar="FILE", help="the SQLite file given to run --history")
    history.add_argument("--target", metavar="NAME", help="only this target")
    history.add_argument("--limit", type=int, default=20, help="the last N runs of each target (default 20)")

    expectations = commands.add_parser("expectations", help="write a starting expectations file from a report")
    expectations.add_argument("--from", dest="source", required=True, metavar="REPORT", help="a report.json")
    expectations.add_argument("--output", "-o", help="file to write (default: standard output)")
    expectations.add_argument("--days", type=int, default=90, help="entries expire after this many days (default 90)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command != "run" and signals.restore() is not None:
        print("conformance: interrupted", file=sys.stderr)
        return EXIT_INCOMPLETE
    try:
        if args.command == "run" and getattr(args, "fleet_index", None) is not None and not args.fleet:
            raise ConfigError("--fleet-index: only with --fleet FILE")
        if args.command == "run" and args.fleet:
            from conformance.fleet.command import run_fleet
            return run_fleet(args)
        if args.command == "run":
            from conformance.runner import run
            return run(args)
        if args.command == "merge":
            from conformance.fleet.command import merge
            return merge(args)
        if args.command == "history":
            from conformance.history.command import main as history
            return history(args)
        if args.command == "serve-reference":
            return serve_reference(args)
        if args.command == "seed-dev-chain":
            from conformance.devchain import main as seed
            return seed(args.url)
        if args.command == "expectations":
            return write_expectations(args)
        if args.command == "compare":
            from conformance.compare.command import main as compare
            return compare(args)
        return diff_reports(args)
    except ConfigError as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except SuiteError as exc:
        print(f"conformance: cannot test the target: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return EXIT_INCOMPLETE


def serve_reference(args: argparse.Namespace) -> int:
    from conformance.reference.faults import REGISTRY
    from conformance.reference.server import ReferenceServer, serve_foreground

    if args.list_faults:
        for name, fault in sorted(REGISTRY.items()):
            print(f"{name:48} {','.join(fault.breaks):28} {fault.summary()}")
        return 0
    unknown = [name for name in args.fault if name not in REGISTRY]
    if unknown:
        raise ConfigError(f"--fault: unknown fault {', '.join(unknown)} (see --list-faults)")
    if args.port < 0 or args.port > 65535:
        raise ConfigError(f"--port: {args.port} is not a TCP port")
    if args.advance_every is not None and args.advance_every <= 0:
        raise ConfigError("--advance-every: must be a positive number of seconds")
    try:
        server = ReferenceServer(host=args.host, port=args.port, seed=args.seed, faults=args.fault,
                                 advance_every=args.advance_every)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    return serve_foreground(server)


def diff_reports(args: argparse.Namespace) -> int:
    from conformance.reporting import diff

    old, new = diff.load_report(args.old), diff.load_report(args.new)
    if args.slower_factor < 1 or args.slower_ms < 0:
        raise ConfigError("--slower-factor must be at least 1 and --slower-ms at least 0")
    result = diff.compare_reports(old, new, slower_factor=args.slower_factor, slower_ms=args.slower_ms,
                                  allow_narrower=args.allow_narrower)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=1))
    elif args.format == "markdown":
        print(diff.render_markdown(result, args.old, args.new), end="")
    else:
        print(diff.render_text(result, args.old, args.new))
    return 1 if result.regressed else 0


def write_expectations(args: argparse.Namespace) -> int:
    from conformance.reporting import diff, expectations

    if args.days < 1:
        raise ConfigError("--days must be at least 1")
    text = expectations.from_report(diff.load_report(args.source), days=args.days)
    if not args.output:
        print(text, end="")
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--output: cannot write {args.output} ({exc.strerror or exc})") from None
    print(f"conformance: wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
