"""`conformance run`: resolve the target, start the reference when needed, and run the suite through pytest."""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

import pytest
import requests

from conformance import config
from conformance.errors import EXIT_UNTESTABLE, EXIT_USAGE, ConfigError, TargetUnreachable
from conformance.session import Endpoints, open_endpoints

#: pytest's own exit codes mapped onto the suite's: usage errors and empty selections are usage errors (2).
_PYTEST_EXIT = {int(pytest.ExitCode.USAGE_ERROR): EXIT_USAGE, int(pytest.ExitCode.NO_TESTS_COLLECTED): EXIT_USAGE,
                int(pytest.ExitCode.INTERRUPTED): EXIT_USAGE, int(pytest.ExitCode.INTERNAL_ERROR): EXIT_UNTESTABLE}


def run(args: argparse.Namespace) -> int:
    cli = {name: getattr(args, name, None) for name in config.OPTIONS}
    target = config.resolve(cli)
    report_dir = Path(args.report_dir)
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--report-dir: cannot create {report_dir} ({exc.strerror})") from None
    if args.expectations and not Path(args.expectations).is_file():
        raise ConfigError(f"--expectations: {args.expectations}: no such file")
    with open_endpoints(target) as endpoints:
        if target.reference:
            print(f"conformance: started the embedded reference target at {endpoints.node_url}", flush=True)
        else:
            preflight(endpoints, timeout=min(target.timeout, 10.0))
        pytest_args = _pytest_args(args, target, endpoints, report_dir)
        with contextlib.redirect_stdout(sys.stdout):
            code = int(pytest.main(pytest_args))
    code = _PYTEST_EXIT.get(code, code)
    print(f"conformance: tested {target.describe()}; reports in {report_dir}/ ; exit {code}", flush=True)
    return code


def preflight(endpoints: Endpoints, *, timeout: float) -> None:
    """Fails fast, as one line and exit 3, when a configured base URL does not answer at all."""
    for url in dict.fromkeys(u for u in (endpoints.node_url, endpoints.data_url, endpoints.metrics_url) if u):
        try:
            requests.get(url, timeout=(timeout, timeout), allow_redirects=False, stream=True).close()
        except requests.exceptions.RequestException as exc:
            reason = type(exc).__name__.replace("Error", " error").replace("Timeout", "timeout")
            raise TargetUnreachable(f"{url} does not answer ({reason})") from None


def _pytest_args(args: argparse.Namespace, target: config.Target, endpoints: Endpoints,
                 report_dir: Path) -> list[str]:
    out = ["--pyargs", "conformance.suite", "-p", "conformance.plugin", "-p", "no:cacheprovider",
           "-o", "addopts=", "-o", "testpaths=", "-q", "-rfE", "-W", "ignore::pytest.PytestAssertRewriteWarning",
           f"--junitxml={report_dir / 'junit.xml'}", "-o", "junit_family=xunit1",
           "--api", ",".join(target.apis), "--conformance-profile", target.profile]
    for option, value in (("--node-url", endpoints.node_url), ("--data-url", endpoints.data_url),
                          ("--metrics-url", endpoints.metrics_url), ("--evm-chain", endpoints.evm_chain),
                          ("--api-key-header", target.api_key_header), ("--conformance-seed", target.seed),
                          ("--request-timeout", target.timeout), ("--rate-limit", target.rate_limit),
                          ("--max-requests", target.max_requests), ("--max-duration", target.max_duration)):
        if value is not None:
            out += [option, str(value)]
    if target.api_key:
        out += ["--api-key", target.api_key]
    if target.allow_mutations:
        out.append("--allow-mutations")
    for rule in args.rule:
        out += ["--rule", rule]
    for name, value in endpoints.samples.items():
        out += ["--sample", f"{name}={value}"]
    if args.workers:
        out += ["-n", str(args.workers)]
    return out + list(args.pytest_args)
