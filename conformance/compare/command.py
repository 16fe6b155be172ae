"""`conformance compare`: the same read-only requests to two endpoints, and where their answers differ.

Each endpoint is a target as `conformance run` resolves one (`config.resolve`: its own URLs, every other setting
shared), opened as a run opens its target (`session.open_endpoints`) and crawled as a run crawls it (`discovery`)
for the identifiers not given. Both are then sent the same requests: where the two crawls found different
identifiers, the baseline's, and the comparison says so.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from conformance import config
from conformance.clients.http import Exchange, HttpSession, Limits, redacted
from conformance.clients.jsonrpc import OMIT, JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.compare import planner, requests_plan
from conformance.compare.differ import compare_outcomes
from conformance.compare.normalize import (Outcome, PathRules, latest_pages, open_ended, rest_outcome,
                                          rpc_outcome)
from conformance.compare.report import Compared, Comparison, render_text, write_json
from conformance.compare.sides import ROLES, URL_SETTINGS, dest, flag, given
from conformance.discovery import Discovery, listing
from conformance.discovery.record import LABELS, SECRET_NAMES
from conformance.discovery.session import crawl
from conformance.errors import (EXIT_CONFORMANT, EXIT_UNTESTABLE, EXIT_VIOLATION, BudgetExhausted, ConfigError,
                                SuiteError, TargetUnreachable)
from conformance.reporting.build import redact_url
from conformance.session import Endpoints, open_endpoints
from conformance.specs import ALL_APIS, RPC_APIS


@dataclass(frozen=True)
class Options:
    """The command line, checked: bad input is a ConfigError (one line, exit 2)."""

    sides: dict[str, config.Target]   # each endpoint as `run` resolves a target: its own URLs, the shared settings
    apis: tuple[str, ...]             # compared: --api, else every API both endpoints have a URL for
    selected: tuple[str, ...]         # the APIs --api named: one with nothing to ask leaves the comparison incomplete
    one_sided: dict[str, str]         # API -> why it is not compared (one endpoint alone has a URL for it)
    report_dir: Path | None

    @property
    def shared(self) -> config.Target:
        """The settings that hold for both endpoints (each endpoint's target carries the same)."""
        return self.sides["baseline"]

    @property
    def seed(self) -> int:
        return self.shared.seed or 0   # as for a run's generated data: 0 unless given


def options(args: argparse.Namespace, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Options:
    """Each endpoint's target, resolved as a run resolves its one target (command line, environment, config file,
    defaults), from its own URLs and the settings both share."""
    env = dict(os.environ if env is None else env)
    file, _ = config.file_settings(cwd or Path.cwd())
    cli = {name: getattr(args, name, None) for name in config.COMPARE_OPTIONS}
    chosen: tuple[str, ...] | None = config.read(("api",), cli, env, file=file)["api"]
    # A run's URLs in the environment or a config file name a run's one target, neither endpoint of a comparison;
    # the APIs are read apart (above), as each endpoint is resolved first for the APIs it has a URL for.
    aside = (*URL_SETTINGS, "api")
    env = {key: value for key, value in env.items() if key not in {config.SETTING[name].env for name in aside}}
    file = {key: value for key, value in file.items() if key not in aside}
    sides = {}
    for role in ROLES:
        urls = {name: config.check_url(str(value), dest(role, name)) for name, value in given(args, role).items()}
        if not urls:
            raise ConfigError(f"the {role} has no URL: give {flag(role, 'target_url')} (one base URL for all its "
                              f"APIs) or {', '.join(flag(role, name) for name in URL_SETTINGS[1:])}")
        sides[role] = config.resolve({**cli, **urls, "api": None}, env=env, file=file)
    served = {role: target.apis for role, target in sides.items()}
    one_sided: dict[str, str] = {}
    if chosen:
        for role in ROLES:
            if missing := [api for api in chosen if api not in served[role]]:
                raise ConfigError(f"--api {','.join(missing)}: the {role} has no URL for "
                                  f"{'it' if len(missing) == 1 else 'them'} (give {_hint(role, missing)})")
        apis = chosen
    else:
        apis = tuple(api for api in ALL_APIS if all(api in served[role] for role in ROLES))
        one_sided = {api: f"not compared: only the {role} has a URL for it" for api in ALL_APIS for role in ROLES
                     if api in served[role] and api not in apis}
        if not apis:
            raise ConfigError(f"the baseline ({','.join(served['baseline'])}) and the candidate "
                              f"({','.join(served['candidate'])}) have no API with a URL in common")
    report_dir = Path(sides["baseline"].report_dir) if sides["baseline"].report_dir else None
    if report_dir is not None:
        try:
            report_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--report-dir: cannot create {report_dir} ({exc.strerror})") from None
    return Options(sides={role: replace(target, apis=apis) for role, target in sides.items()}, apis=apis,
                   selected=chosen or (), one_sided=one_sided, report_dir=report_dir)


def _hint(role: str, apis: list[str]) -> str:
    """The options of `role` that would give it a URL for `apis`."""
    names = ["target_url"] + [name for name, wanted in (
        ("node_url", any(api in RPC_APIS for api in apis)), ("evm_rpc_url", apis == ["evm"]),
        ("data_url", "data" in apis), ("metrics_url", "metrics" in apis)) if wanted]
    return " or ".join(flag(role, name) for name in names)


class Endpoint:
    """One side of the comparison: its target, its URLs and identifiers as a run opens them, and its own HTTP
    session (limits, key)."""

    def __init__(self, role: str, target: config.Target, opened: Endpoints, deadline: float | None = None) -> None:
        self.role = role
        self.target = target
        self.opened = opened
        limits = Limits(read_timeout=target.timeout, rate_limit=target.rate_limit, max_requests=target.max_requests,
                        outage_window=target.outage_window, deadline=deadline)
        secrets = {target.api_key_header: target.api_key} if target.api_key else {}
        self.http = HttpSession(limits, secret_headers=secrets)
        # The key goes to the Data API only: the Metrics API documents no authentication, the node none.
        self.rest = {api: RestClient(self.http, url, send_key=api == "data" and bool(target.api_key))
                     for api, url in (("data", opened.data_url), ("metrics", opened.metrics_url)) if url}
        # The identifiers not given are found as a run finds them: one bounded crawl of this endpoint.
        opened.identifiers.bind(lambda: crawl(self.http, target, opened.node_url, opened.data_url, opened.evm_chain,
                                              opened.samples, opened.metrics_url))

    def discover(self) -> Discovery | None:
        return self.opened.identifiers.run()

    def rpc_url(self, request: requests_plan.Request) -> str:
        """Where a JSON-RPC request goes: the EVM RPC URL for the evm API when this endpoint has one (as a run's
        `evm` client), else the path under its node URL."""
        if request.api == "evm" and self.target.evm_rpc_url:
            return self.target.evm_rpc_url
        if not self.opened.node_url:   # the plan holds an API only when both endpoints have a URL for it
            raise SuiteError(f"the {self.role} has no node URL for {request.describe()}")
        return self.opened.node_url + request.path

    def send(self, request: requests_plan.Request, page_token: str | None = None) -> Exchange:
        if request.rpc:
            rpc_client = JsonRpcClient(self.http, self.rpc_url(request))
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


def preflight(role: str, target: config.Target, opened: Endpoints) -> None:
    """Fails fast, as one line and exit 3, when a URL of an endpoint does not answer at all."""
    from conformance.runner import preflight as run_preflight

    try:
        run_preflight(opened, timeout=min(target.timeout, 10.0), extra=(target.evm_rpc_url,))
    except TargetUnreachable as exc:
        raise TargetUnreachable(f"the {role}: {exc}") from None


@dataclass
class Agreement:
    """The identifiers both endpoints are asked about, where each came from, and where the two crawls disagreed."""

    values: dict[str, str] = field(default_factory=dict)
    sources: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def agree(opened: Mapping[str, Endpoints]) -> Agreement:
    """The given identifiers, else the baseline's found ones, else the candidate's: the same requests go to both
    endpoints, so where the two crawls found different identifiers the baseline's is asked of both."""
    given_ = opened["baseline"].identifiers.given   # one command line: the same for both
    out = Agreement(dict(given_), {name: {"value": value, "from": "given"} for name, value in given_.items()
                                   if name not in SECRET_NAMES})
    found = {role: (d.found if (d := side.identifiers.discovery) else {}) for role, side in opened.items()}
    for name in sorted(found["baseline"].keys() | found["candidate"].keys()):
        if name in given_ or name in SECRET_NAMES:
            continue
        mine, theirs = found["baseline"].get(name), found["candidate"].get(name)
        role, chosen = ("baseline", mine) if mine is not None else ("candidate", theirs)
        assert chosen is not None   # found by one of the two
        out.values[name] = chosen.value
        out.sources[name] = {"value": chosen.value, "from": role, "source": chosen.source}
        what = f"{LABELS.get(name, name)} ({name})"
        if mine is not None and theirs is not None and mine.value != theirs.value:
            out.sources[name]["candidate"] = theirs.value
            out.notes.append(f"{what}: the baseline found {mine.value} ({mine.source}), the candidate "
                             f"{theirs.value} ({theirs.source}); the baseline's is asked of both")
        elif mine is None or theirs is None:
            out.notes.append(f"{what}: only the {role} found one, {chosen.value} ({chosen.source}); "
                             "it is asked of both")
    return out


def where(target: config.Target) -> str:
    """An endpoint's URLs as one line: its one base URL, else each API's (without user, password or query)."""
    urls = {"node": target.node_url, "evm-rpc": target.evm_rpc_url, "data": target.data_url,
            "metrics": target.metrics_url}
    shown = {name: redact_url(url) for name, url in urls.items() if url}
    if not target.evm_rpc_url and len(shown) == 3 and len(set(shown.values())) == 1:
        return str(shown["node"])
    return ", ".join(f"{name} {url}" for name, url in shown.items())


def plan_for(opts: Options, endpoints: Mapping[str, Endpoint]) -> tuple[requests_plan.Plan, Agreement]:
    """Both endpoints crawled, their identifiers agreed on, and the plan built from them."""
    for endpoint in endpoints.values():
        endpoint.discover()
    agreed = agree({role: endpoint.opened for role, endpoint in endpoints.items()})
    context = requests_plan.PlanContext(
        opts.apis, agreed.values.get("evm_chain"), agreed.values, opts.seed,
        evm_rpc_urls=all(target.evm_rpc_url for target in opts.sides.values()),
        # what neither found, in the words of the baseline's crawl
        missing=endpoints["baseline"].opened.missing)
    return planner.build(context), agreed


def compare(opts: Options, endpoints: Mapping[str, Endpoint]) -> Comparison:
    plan, agreed = plan_for(opts, endpoints)
    shown = tuple(api for api in ALL_APIS if api in opts.apis or api in opts.one_sided)
    comparison = Comparison(
        where(opts.sides["baseline"]), where(opts.sides["candidate"]), shown,
        notes=[f"{api}: {why}" for api, why in opts.one_sided.items()] + list(plan.notes), required=opts.selected,
        identifiers=agreed.sources, identifier_notes=agreed.notes,
        discovery={role: listing(endpoint.opened.identifiers.given, endpoint.opened.identifiers.discovery)
                   for role, endpoint in endpoints.items()},
        urls={role: {name: redact_url(url) for name, url in (
            ("node", t.node_url), ("evm_rpc", t.evm_rpc_url), ("data", t.data_url), ("metrics", t.metrics_url))}
            for role, t in opts.sides.items()})
    return run(comparison, plan, endpoints)


def run(comparison: Comparison, plan: requests_plan.Plan, endpoints: Mapping[str, Endpoint]) -> Comparison:
    """Sends the plan to both endpoints in turn, request by request, and compares each pair of answers."""
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


def compare_one(request: requests_plan.Request, endpoints: Mapping[str, Endpoint]) -> Compared:
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
    with contextlib.ExitStack() as stack:
        opened = {role: stack.enter_context(open_endpoints(target)) for role, target in opts.sides.items()}
        try:
            for role in ROLES:
                preflight(role, opts.sides[role], opened[role])
        except TargetUnreachable as exc:
            print(f"conformance compare: {exc}; nothing compared", file=sys.stderr)
            return EXIT_UNTESTABLE
        # One moment for both endpoints: the maximum duration bounds the comparison, not each side of it.
        deadline = time.monotonic() + opts.shared.max_duration if opts.shared.max_duration else None
        endpoints = {role: stack.enter_context(contextlib.closing(Endpoint(role, target, opened[role], deadline)))
                     for role, target in opts.sides.items()}
        try:
            comparison = compare(opts, endpoints)
        except TargetUnreachable as exc:
            print(f"conformance compare: {exc}", file=sys.stderr)
            return EXIT_UNTESTABLE
    code = exit_code(comparison)
    key = opts.shared.api_key
    secrets = (key,) if key else ()  # an endpoint may echo the key it was sent
    print(redacted(render_text(comparison, code), secrets), flush=True)
    if opts.report_dir is not None:
        print(f"conformance compare: report in {write_json(comparison, opts.report_dir, secrets)}", flush=True)
    return code


def exit_code(comparison: Comparison) -> int:
    """1 for any difference; else 3 when part of the plan could not be compared, or an API --api named had nothing
    to ask (a clean 0 would claim too much)."""
    if comparison.differing:
        return EXIT_VIOLATION
    incomplete = comparison.stopped or any(r.skipped for r in comparison.results) or comparison.unasked
    return EXIT_UNTESTABLE if incomplete else EXIT_CONFORMANT

