"""`conformance compare`: the same read-only requests to two endpoints, and where their answers differ."""
from __future__ import annotations

import argparse
import sys
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Mapping

from conformance import config
from conformance.clients.deadline import why_silent
from conformance.clients.http import Exchange, HttpSession, Limits, redacted
from conformance.clients.jsonrpc import OMIT, JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.compare import requests_plan
from conformance.compare.differ import compare_outcomes
from conformance.compare.normalize import (Outcome, PathRules, latest_pages, open_ended, rest_outcome,
                                          rpc_outcome)
from conformance.compare.report import Compared, Comparison, render_text, write_json
from conformance.errors import (EXIT_CONFORMANT, EXIT_UNTESTABLE, EXIT_VIOLATION, BudgetExhausted, ConfigError,
                                SuiteError, TargetUnreachable)
from conformance.specs import ALL_APIS

ROLES = ("baseline", "candidate")


@dataclass(frozen=True)
class Options:
    """The command line, checked: bad input is a ConfigError (one line, exit 2)."""

    urls: dict[str, str]
    apis: tuple[str, ...]
    evm_chain: str | None
    api_key: str | None = field(repr=False)
    api_key_header: str
    rate_limit: float | None
    max_requests: int | None
    timeout: float
    report_dir: Path | None
    seed: int
    samples: dict[str, str]


def options(args: argparse.Namespace, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Options:
    """The two URLs, and the settings `compare` shares with `run`, resolved as a run resolves them: command line,
    environment, config file, defaults."""
    urls = {role: config.check_url(str(getattr(args, f"{role}_url")), f"{role}_url") for role in ROLES}
    values = config.read(config.COMPARE_OPTIONS, {name: getattr(args, name, None) for name in config.COMPARE_OPTIONS},
                         env, cwd)
    # Both endpoints serve every API: "every API with a URL" is every API.
    apis = values["api"] or ALL_APIS
    if values["api"] and not values["evm_chain"] and (wanted := [a for a in apis if a in ("evm", "validators")]):
        raise ConfigError(f"--api {','.join(wanted)}: needs --evm-chain BLOCKCHAIN_ID_OR_ALIAS")
    report_dir = Path(values["report_dir"]) if values["report_dir"] else None
    if report_dir is not None:
        try:
            report_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--report-dir: cannot create {report_dir} ({exc.strerror})") from None
    return Options(
        urls=urls, apis=apis, evm_chain=values["evm_chain"], api_key=values["api_key"],
        api_key_header=values["api_key_header"], rate_limit=values["rate_limit"],
        max_requests=values["max_requests"], timeout=values["timeout"], report_dir=report_dir,
        # as for a run's generated data: 0 unless given
        seed=values["seed"] if values["seed"] is not None else 0, samples=dict(values["sample"]),
    )


class Endpoint:
    """One side of the comparison: its base URL for every API and its own HTTP session (limits, key)."""

    def __init__(self, role: str, url: str, opts: Options) -> None:
        self.role = role
        self.url = url
        limits = Limits(read_timeout=opts.timeout, rate_limit=opts.rate_limit, max_requests=opts.max_requests)
        secrets = {opts.api_key_header: opts.api_key} if opts.api_key else {}
        self.http = HttpSession(limits, secret_headers=secrets)
        # The key goes to the Data API only: the Metrics API documents no authentication, the node none.
        self.rest = {"data": RestClient(self.http, url, send_key=bool(opts.api_key)),
                     "metrics": RestClient(self.http, url)}

    def send(self, request: requests_plan.Request, page_token: str | None = None) -> Exchange:
        if request.rpc:
            rpc_client = JsonRpcClient(self.http, self.url + request.path)
            return rpc_client.call(request.operation, OMIT if request.params is None else request.params)
        query = dict(request.params or {})
        if page_token is not None:
            query["pageToken"] = page_token
        client = self.rest[request.api]
        if request.method == "POST":
            return client.post(request.path, query, request.body)
        return client.get(request.path, query)

    def close(self) -> None:
        self.http.close()


def preflight(role: str, url: str, timeout: float) -> None:
    """Fails fast, as one line and exit 3, when an endpoint does not answer at all."""
    reason = why_silent(url, min(timeout, 10.0))
    if reason is not None:
        raise TargetUnreachable(f"the {role} {url} does not answer ({reason})")


def run(opts: Options, plan: requests_plan.Plan, endpoints: dict[str, Endpoint]) -> Comparison:
    """Sends the plan to both endpoints in turn, request by request, and compares each pair of answers."""
    comparison = Comparison(opts.urls["baseline"], opts.urls["candidate"], opts.apis, notes=list(plan.notes))
    queue = deque(plan.requests)
    while queue:
        request = queue.popleft()
        try:
            compared = compare_one(request, endpoints)
        except BudgetExhausted as exc:
            comparison.stopped = str(exc)
            break
        comparison.results.append(compared)
        if request.then is not None and compared.skipped is None:
            # Anchored requests go next, close in time to the answers that anchored them.
            queue.extendleft(reversed(request.then(compared.baseline, compared.candidate)))
    return comparison


def compare_one(request: requests_plan.Request, endpoints: dict[str, Endpoint]) -> Compared:
    outcomes: dict[str, Outcome] = {}
    reproduce: dict[str, str] = {}
    for n, role in enumerate(ROLES):
        token = request.page_tokens[n] if request.page_tokens else None
        try:
            exchange = endpoints[role].send(request, token)
        except TargetUnreachable as exc:
            raise TargetUnreachable(f"the {role} stopped answering: {exc}") from None
        except BudgetExhausted:
            raise
        except SuiteError as exc:
            return Compared(request, Outcome("no answer"), Outcome("no answer"), skipped=f"the {role}: {exc}")
        outcomes[role] = rpc_outcome(exchange) if request.rpc else rest_outcome(exchange)
        reproduce[role] = exchange.curl()
    baseline, candidate = outcomes["baseline"], outcomes["candidate"]
    if baseline.unavailable or candidate.unavailable:
        busy = [role for role in ROLES if outcomes[role].unavailable]
        return Compared(request, baseline, candidate, skipped=f"{' and '.join(busy)} could not answer now "
                                                               f"({', '.join(outcomes[r].code for r in busy)})",
                        reproduce=reproduce)
    if (request.open_end or request.head) and baseline.ok and candidate.ok:
        values = open_ended(baseline.value, candidate.value, request.open_end) if request.open_end \
            else latest_pages(baseline.value, candidate.value)
        baseline, candidate = replace(baseline, value=values[0]), replace(candidate, value=values[1])
    rules = PathRules(request.operation, everything_volatile=request.head)
    differences = compare_outcomes(baseline, candidate, rules, root=("result",) if request.rpc else ())
    return Compared(request, baseline, candidate, differences, reproduce=reproduce)


def main(args: argparse.Namespace) -> int:
    opts = options(args)
    plan = requests_plan.build(requests_plan.PlanContext(opts.apis, opts.evm_chain, opts.samples, opts.seed))
    try:
        for role in ROLES:
            preflight(role, opts.urls[role], opts.timeout)
    except TargetUnreachable as exc:
        print(f"conformance compare: {exc}; nothing compared", file=sys.stderr)
        return EXIT_UNTESTABLE
    endpoints = {role: Endpoint(role, opts.urls[role], opts) for role in ROLES}
    try:
        comparison = run(opts, plan, endpoints)
    except TargetUnreachable as exc:
        print(f"conformance compare: {exc}", file=sys.stderr)
        return EXIT_UNTESTABLE
    finally:
        for endpoint in endpoints.values():
            endpoint.close()
    code = exit_code(comparison)
    secrets = (opts.api_key,) if opts.api_key else ()  # an endpoint may echo the key it was sent
    print(redacted(render_text(comparison, code), secrets), flush=True)
    if opts.report_dir is not None:
        print(f"conformance compare: report in {write_json(comparison, opts.report_dir, secrets)}", flush=True)
    return code


def exit_code(comparison: Comparison) -> int:
    """1 for any difference; else 3 when part of the plan could not be compared (a clean 0 would claim too much)."""
    if comparison.differing:
        return EXIT_VIOLATION
    incomplete = comparison.stopped or any(r.skipped for r in comparison.results)
    return EXIT_UNTESTABLE if incomplete else EXIT_CONFORMANT

