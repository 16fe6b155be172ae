"""The settings of a run, resolved once: command line, then environment, then config file, then the defaults
(and the embedded reference target when no URL is given)."""
from __future__ import annotations

import argparse
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from conformance.errors import ConfigError
from conformance.profiles import PROFILES
from conformance.specs import ALL_APIS, RPC_APIS

ENV_PREFIX = "CONFORMANCE_"
DEFAULT_KEY_HEADER = "x-data-api-key"
DEFAULT_REPORT_DIR = "reports/latest"
#: Tests in flight: enough that a run against a target tens of milliseconds away waits little more than its
#: slowest answers; the run uses fewer when the target answers faster than the suite checks (on loopback, one).
DEFAULT_CONCURRENCY = 16
#: Reruns of a failing test before its deviation is called a failure: three that all see it again leave a few in a
#: thousand odd answers (a gateway's, a node behind a load balancer on another version) reported as failures.
DEFAULT_RECHECKS = 3
#: Megabytes the run's resident memory stays under: a run against well-behaved targets needs a few hundred.
DEFAULT_MAX_MEMORY_MB = 1024
#: Seconds a fault on the way to the target is ridden through, and an outage after which the run gives up: a node's
#: restart, a load balancer's failover.
DEFAULT_OUTAGE_WINDOW = 30.0
GATES = ("must", "standard")


@dataclass(frozen=True)
class Target:
    """Everything a run needs to know: what it tests, how hard, and what it writes; frozen, resolved once."""

    node_url: str | None = None
    data_url: str | None = None
    metrics_url: str | None = None
    apis: tuple[str, ...] = ALL_APIS
    profile: str = "standard"
    evm_chain: str | None = None
    evm_rpc_url: str | None = None  # the EVM chain's JSON-RPC endpoint itself, instead of {node_url}/ext/bc/<chain>/rpc
    api_key: str | None = field(default=None, repr=False)
    api_key_header: str = DEFAULT_KEY_HEADER
    allow_mutations: bool = False
    seed: int | None = None
    timeout: float = 30.0
    outage_window: float = DEFAULT_OUTAGE_WINDOW
    rate_limit: float | None = None
    max_requests: int | None = None
    max_duration: float | None = None
    samples: tuple[tuple[str, str], ...] = ()  # identifiers given by the operator: --sample NAME=VALUE
    rules: tuple[str, ...] = ()                # only tests carrying these rule IDs or prefixes
    report_dir: str | None = DEFAULT_REPORT_DIR  # None: no reports written
    expectations: str | None = None
    gate: str = "standard"
    concurrency: int = DEFAULT_CONCURRENCY
    draw_ahead: bool = True
    recheck: int = DEFAULT_RECHECKS
    flaky: str = "report"
    max_memory: int = DEFAULT_MAX_MEMORY_MB
    name: str | None = None    # what reports and the history call this target (default: its URLs)
    chain: str | None = None   # a name shared by the targets of a fleet that serve the same chain
    history: str | None = None   # SQLite file that keeps every run, to tell what is new since the last one
    fail_on: str = "any"          # "new": the gate fails only on failures the previous run did not have
    min_coverage: float | None = None   # percent below which any coverage dimension of a tested API fails the gate
    har: str | None = None       # file that receives every exchange of the run as a HAR 1.2 archive
    reference: bool = False  # the embedded reference target is started for this run

    def sample(self, name: str) -> str | None:
        return dict(self.samples).get(name)

    def describe(self) -> str:
        where = "the embedded reference target" if self.reference else ", ".join(
            f"{name}={url}" for name, url in (("node", self.node_url), ("evm-rpc", self.evm_rpc_url),
                                              ("data", self.data_url), ("metrics", self.metrics_url)) if url)
        return f"{where}; APIs {','.join(self.apis)}; profile {self.profile}"


@dataclass(frozen=True)
class Setting:
    """One setting of a run: the same name on the command line (--name-with-dashes), as CONFORMANCE_<NAME> and in
    conformance.toml or [tool.conformance]; one default wherever the suite runs."""

    name: str
    help: str
    default: Any = None
    #: "value", "flag" (true when given), "negatable" (--no-<name> turns it off), or "list" (repeatable)
    kind: str = "value"
    metavar: str | None = None
    #: the flag under pytest where it differs from --<name> (pytest has its own -p, --seed is a plugin's, …)
    pytest_flag: str | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


#: Every setting of `conformance run` (and of the pytest plugin), in the order the README's table lists them.
SETTINGS = (
    Setting("target_url", "one base URL for all three APIs", metavar="URL"),
    Setting("node_url", "base URL of the node (JSON-RPC under /ext/...)", metavar="URL"),
    Setting("data_url", "base URL of the Data API", metavar="URL"),
    Setting("metrics_url", "base URL of the Metrics API", metavar="URL"),
    Setting("evm_rpc_url", "the EVM chain's JSON-RPC URL itself (any Ethereum RPC endpoint), instead of "
            "{node_url}/ext/bc/<chain>/rpc", metavar="URL"),
    Setting("api", f"comma-separated subset of {','.join(ALL_APIS)} (default: every API with a URL)",
            metavar="LIST"),
    Setting("profile", "quick | standard | thorough: examples per property test and pages per walk", "standard",
            metavar="NAME", pytest_flag="--conformance-profile"),
    Setting("evm_chain", "blockchain ID or alias of the EVM chain (and its validators)", metavar="ID"),
    Setting("sample", "an identifier for the tests, used instead of the one discovery finds (repeatable)",
            kind="list", metavar="NAME=VALUE"),
    Setting("api_key", "Data API key (never printed)", metavar="KEY"),
    Setting("api_key_header", "header carrying the API key", DEFAULT_KEY_HEADER, metavar="NAME"),
    Setting("allow_mutations", "also run tests that change node state (they restore what they can)", False,
            kind="flag"),
    Setting("rate_limit", "at most N requests a second, e.g. 20/s", metavar="RATE"),
    Setting("max_requests", "request budget of the run", metavar="N"),
    Setting("max_duration", "seconds after which no new request starts", metavar="S"),
    Setting("timeout", "seconds within which each answer must arrive whole", 30.0, metavar="S",
            pytest_flag="--request-timeout"),
    Setting("outage_window", "seconds a read-only request refused, reset or cut mid-body is sent again for, and "
            "after which a target that gave nothing else (or 5XX) is down: the run stops, exit 3 (0: neither)",
            DEFAULT_OUTAGE_WINDOW, metavar="S"),
    Setting("concurrency", "at most N tests with requests in flight at once, over one rate limit and budget",
            DEFAULT_CONCURRENCY, metavar="N"),
    Setting("draw_ahead", "draw the cases of property tests in a helper process on another core", True,
            kind="negatable"),
    Setting("recheck", "times a failing read-only test runs again before its deviation is reported (0: never)",
            DEFAULT_RECHECKS, metavar="N"),
    Setting("flaky", "what a deviation that did not reproduce does to the gate: report, or fail", "report",
            metavar="WHAT"),
    Setting("max_memory", "megabytes of memory the run keeps itself under, whatever the target sends",
            DEFAULT_MAX_MEMORY_MB, metavar="MB"),
    Setting("rule", "only tests carrying this rule ID or prefix (repeatable)", kind="list", metavar="ID"),
    Setting("report_dir", "where report.json, junit.xml, summary.md and report.html go ('' for none)",
            DEFAULT_REPORT_DIR, metavar="DIR"),
    Setting("expectations", "YAML file of known deviations: [{rule, test?, reason, expires}]", metavar="FILE"),
    Setting("gate", "lowest rule level whose failures fail the run: must, or standard", "standard",
            metavar="LEVEL"),
    Setting("seed", "seed of the embedded reference target and of generated data", metavar="N",
            pytest_flag="--conformance-seed"),
    Setting("name", "what reports and the history call this target (default: its URLs)", metavar="NAME"),
    Setting("chain", "name of the chain this target serves: targets of a fleet with the same chain are compared",
            metavar="NAME"),
    Setting("history", "SQLite file that keeps every run: reports then say what is new, fixed or still failing",
            metavar="FILE"),
    Setting("fail_on", "which failures fail the gate: any, or new (not failing in the previous run of the target)",
            "any", metavar="WHICH"),
    Setting("min_coverage", "coverage in percent below which any dimension of a tested API fails the gate",
            metavar="PERCENT"),
    Setting("har", "write every exchange of the run (API key redacted) to FILE as a HAR 1.2 archive", metavar="FILE"),
)
SETTING = {setting.name: setting for setting in SETTINGS}
#: The names a config file and the command line share.
OPTIONS = tuple(SETTING)


def add_option(add: Callable[..., Any], setting: Setting, flag: str | None = None) -> None:
    """One setting of the table as an option of an argument parser (`add`: argparse's add_argument, or a pytest
    option group's addoption); not given, it is None, so that the environment and the config file still apply."""
    flag = flag or setting.flag
    if setting.kind == "flag":
        add(flag, dest=setting.name, action="store_true", default=None, help=setting.help)
    elif setting.kind == "negatable":
        add(flag, dest=setting.name, action=argparse.BooleanOptionalAction, default=None,
            help=f"{setting.help} (default: on)" if setting.default else setting.help)
    elif setting.kind == "list":
        add(flag, dest=setting.name, action="append", default=None, metavar=setting.metavar, help=setting.help)
    else:
        default = f" (default {setting.default})" if setting.default is not None else ""
        add(flag, dest=setting.name, default=None, metavar=setting.metavar, help=setting.help + default)


def check_url(value: str, option: str) -> str:
    """A base URL: http(s), a host, no query; trailing slash removed."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ConfigError(f"--{option.replace('_', '-')}: {value!r} is not an http(s) base URL")
    try:
        _ = parts.port   # reading it is the check: urllib raises for a port out of range
    except ValueError:
        raise ConfigError(f"--{option.replace('_', '-')}: {value!r} has an invalid port") from None
    return value.rstrip("/")


def parse_apis(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    names = value.split(",") if isinstance(value, str) else list(value)
    apis = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
    unknown = [api for api in apis if api not in ALL_APIS]
    if unknown or not apis:
        raise ConfigError(f"--api: unknown API {', '.join(unknown) or '(none)'}; choose from {','.join(ALL_APIS)}")
    return apis


def parse_rate(value: str | float) -> float:
    text = str(value).strip().removesuffix("/s")
    try:
        rate = float(text)
    except ValueError:
        raise ConfigError(f"--rate-limit: {value!r} is not a rate such as 20/s") from None
    if rate <= 0:
        raise ConfigError("--rate-limit: the rate must be positive")
    return rate


def _number(kind: type, option: str, value: Any, minimum: float = 0) -> Any:
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{option.replace('_', '-')}: {value!r} is not a number") from None
    if number < minimum:
        raise ConfigError(f"--{option.replace('_', '-')}: must be at least {minimum}")
    return number


def parse_samples(value: Any) -> tuple[tuple[str, str], ...]:
    """NAME=VALUE pairs from a list, a comma-separated string, or a table of a config file."""
    if isinstance(value, dict):
        return tuple((str(k), str(v)) for k, v in value.items())
    items = value.split(",") if isinstance(value, str) else list(value)
    pairs = []
    for item in items:
        name, sep, sample = str(item).partition("=")
        if not sep or not name.strip() or not sample.strip():
            raise ConfigError(f"--sample: {item!r} is not NAME=VALUE")
        pairs.append((name.strip(), sample.strip()))
    return tuple(pairs)


def parse_list(value: Any) -> tuple[str, ...]:
    """Values from a list or a comma-separated string."""
    items = value.split(",") if isinstance(value, str) else [str(item) for item in value]
    return tuple(item.strip() for item in items if item.strip())


def parse_choice(option: str, value: Any, choices: tuple[str, ...]) -> str:
    if str(value) not in choices:
        raise ConfigError(f"--{option.replace('_', '-')}: {value!r} is not one of {', '.join(choices)}")
    return str(value)


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def file_settings(cwd: Path) -> dict[str, Any]:
    """Settings from ./conformance.toml, else the [tool.conformance] table of ./pyproject.toml."""
    for name, table in (("conformance.toml", None), ("pyproject.toml", ("tool", "conformance"))):
        path = cwd / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot be read as TOML ({exc})") from None
        for key in table or ():
            data = data.get(key, {})
        if data:
            return {key.replace("-", "_"): value for key, value in data.items()}
    return {}


def gather(cli: Mapping[str, Any], env: Mapping[str, str] | None = None,
           cwd: Path | None = None) -> dict[str, Any]:
    """Raw option values with their precedence applied: command line > environment > config file."""
    env = os.environ if env is None else env
    merged = file_settings(cwd or Path.cwd())
    unknown = sorted(set(merged) - set(OPTIONS))
    if unknown:
        raise ConfigError(f"config file: unknown setting {', '.join(unknown)}")
    for option in OPTIONS:
        if (value := env.get(ENV_PREFIX + option.upper())) is not None and (value != "" or option == "report_dir"):
            merged[option] = value
        # Identity, not equality: 0 == False, and a zero given on the command line is a value to check. A flag
        # that was not given is None; a negatable one given as --no-<name> is False.
        given = cli.get(option)
        if given is not None and given != [] and (given is not False or SETTING[option].kind == "negatable"):
            merged[option] = given
    return merged


def resolve(cli: Mapping[str, Any], env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Target:
    """The frozen Target for these options; raises ConfigError on bad input."""
    raw = gather(cli, env, cwd)
    urls: dict[str, str | None] = {"node_url": None, "data_url": None, "metrics_url": None}
    if raw.get("target_url"):
        base = check_url(str(raw["target_url"]), "target_url")
        urls = dict.fromkeys(urls, base)
    for key in urls:
        if raw.get(key):
            urls[key] = check_url(str(raw[key]), key)
    evm_rpc_url = check_url(str(raw["evm_rpc_url"]), "evm_rpc_url") if raw.get("evm_rpc_url") else None
    reference = not any(urls.values()) and not evm_rpc_url
    configured = [api for api in ALL_APIS
                  if reference or urls["node_url" if api in RPC_APIS else f"{api}_url"]
                  or (api == "evm" and evm_rpc_url)]
    apis = parse_apis(raw["api"]) if raw.get("api") else tuple(configured)
    missing = [api for api in apis if api not in configured]
    if missing:
        raise ConfigError(f"--api {','.join(missing)}: no URL is configured for "
                          f"{'it' if len(missing) == 1 else 'them'} "
                          "(use --target-url or --node-url/--data-url/--metrics-url)")
    profile = str(raw.get("profile", "standard"))
    if profile not in PROFILES:
        raise ConfigError(f"--profile: unknown profile {profile!r}; choose from {', '.join(PROFILES)}")
    return Target(
        **urls,
        apis=apis,
        profile=profile,
        evm_chain=str(raw["evm_chain"]) if raw.get("evm_chain") else None,
        evm_rpc_url=evm_rpc_url,
        api_key=str(raw["api_key"]) if raw.get("api_key") else None,
        api_key_header=str(raw.get("api_key_header") or DEFAULT_KEY_HEADER),
        allow_mutations=_boolean(raw.get("allow_mutations", False)),
        seed=_number(int, "seed", raw["seed"]) if raw.get("seed") not in (None, "") else None,
        timeout=_number(float, "timeout", raw.get("timeout", 30.0), minimum=0.1),
        outage_window=_number(float, "outage_window", raw.get("outage_window", DEFAULT_OUTAGE_WINDOW)),
        rate_limit=parse_rate(raw["rate_limit"]) if raw.get("rate_limit") else None,
        # A zero is checked, not read as "no limit": --max-duration 0 must not run without one.
        max_requests=_number(int, "max_requests", raw["max_requests"], 1)
        if raw.get("max_requests") not in (None, "") else None,
        max_duration=_number(float, "max_duration", raw["max_duration"], 1)
        if raw.get("max_duration") not in (None, "") else None,
        samples=parse_samples(raw["sample"]) if raw.get("sample") else (),
        rules=parse_list(raw["rule"]) if raw.get("rule") else (),
        report_dir=str(raw.get("report_dir", DEFAULT_REPORT_DIR)) or None,
        expectations=str(raw["expectations"]) if raw.get("expectations") else None,
        gate=parse_choice("gate", raw.get("gate", "standard"), GATES),
        concurrency=_number(int, "concurrency", raw.get("concurrency", DEFAULT_CONCURRENCY), 1),
        draw_ahead=_boolean(raw.get("draw_ahead", True)),
        recheck=_number(int, "recheck", raw.get("recheck", DEFAULT_RECHECKS), 0),
        flaky=parse_choice("flaky", raw.get("flaky", "report"), ("report", "fail")),
        max_memory=_number(int, "max_memory", raw.get("max_memory", DEFAULT_MAX_MEMORY_MB), 64),
        name=str(raw["name"]) if raw.get("name") else None,
        chain=str(raw["chain"]) if raw.get("chain") else None,
        history=str(raw["history"]) if raw.get("history") else None,
        fail_on=parse_choice("fail_on", raw.get("fail_on", "any"), ("any", "new")),
        min_coverage=_number(float, "min_coverage", raw["min_coverage"])
        if raw.get("min_coverage") not in (None, "") else None,
        har=str(raw["har"]) if raw.get("har") else None,
        reference=reference,
    )


