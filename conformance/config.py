"""The settings of a run, resolved once: command line, then environment, then config file, then the defaults
(and the embedded reference target when no URL is given).

Each setting is one row of SETTINGS: its name, how a given value is read and checked (bounds included), its default
and its help. The options of `conformance run` and `conformance compare`, the pytest plugin's options, the settings
of a fleet file and `resolve` are all made from the rows."""
from __future__ import annotations

import argparse
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import urlsplit

from conformance.errors import ConfigError
from conformance.profiles import PROFILES
from conformance.specs import ALL_APIS, RPC_APIS

ENV_PREFIX = "CONFORMANCE_"

# How a given value (a string from a command line or the environment, any TOML value from a config file) becomes
# the value a run uses. A ValueError says what is wrong with the value; the row it came from names the setting.
Parser = Callable[[Any], Any]


def parse_text(value: Any) -> str | None:
    return str(value) or None


def parse_url(value: Any) -> str:
    """A base URL: http(s), a host, no query; trailing slash removed."""
    parts = urlsplit(str(value))
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"{value!r} is not an http(s) base URL")
    try:
        _ = parts.port   # reading it is the check: urllib raises for a port out of range
    except ValueError:
        raise ValueError(f"{value!r} has an invalid port") from None
    return str(value).rstrip("/")


def parse_apis(value: Any) -> tuple[str, ...]:
    names = value.split(",") if isinstance(value, str) else [str(name) for name in value]
    chosen = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
    unknown = [api for api in chosen if api not in ALL_APIS]
    if unknown or not chosen:
        raise ValueError(f"unknown API {', '.join(unknown) or '(none)'}; choose from {','.join(ALL_APIS)}")
    return chosen


def parse_profile(value: Any) -> str:
    if str(value) not in PROFILES:
        raise ValueError(f"unknown profile {value!r}; choose from {', '.join(PROFILES)}")
    return str(value)


def parse_rate(value: Any) -> float:
    try:
        per_second = float(str(value).strip().removesuffix("/s"))
    except ValueError:
        raise ValueError(f"{value!r} is not a rate such as 20/s") from None
    if per_second <= 0:
        raise ValueError("the rate must be positive")
    return per_second


def parse_number(kind: type[int] | type[float], at_least: float, at_most: float | None = None) -> Parser:
    """A whole or decimal number, at least `at_least` (and at most `at_most`): a zero is checked, never read as "no
    limit", and a value no run can meet is refused before the run, not after it."""
    def parse(value: Any) -> int | float:
        if isinstance(value, bool):
            raise ValueError(f"{value!r} is not a number")
        try:
            parsed = kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not a number") from None
        if parsed != parsed:   # NaN compares false with every bound
            raise ValueError(f"{value!r} is not a number")
        if parsed < at_least:
            raise ValueError(f"must be at least {at_least}")
        if at_most is not None and parsed > at_most:
            raise ValueError(f"must be at most {at_most}")
        return parsed
    return parse


def parse_choice(*choices: str) -> Parser:
    def parse(value: Any) -> str:
        if str(value) not in choices:
            raise ValueError(f"{value!r} is not one of {', '.join(choices)}")
        return str(value)
    return parse


def parse_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def parse_samples(value: Any) -> tuple[tuple[str, str], ...]:
    """NAME=VALUE pairs from a list, a comma-separated string, or a table of a config file."""
    if isinstance(value, dict):
        return tuple((str(k), str(v)) for k, v in value.items())
    items = value.split(",") if isinstance(value, str) else list(value)
    pairs = []
    for item in items:
        name, sep, sample = str(item).partition("=")
        if not sep or not name.strip() or not sample.strip():
            raise ValueError(f"{item!r} is not NAME=VALUE")
        pairs.append((name.strip(), sample.strip()))
    return tuple(pairs)


def parse_list(value: Any) -> tuple[str, ...]:
    """Values from a list or a comma-separated string."""
    given = value.split(",") if isinstance(value, str) else [str(item) for item in value]
    return tuple(item.strip() for item in given if item.strip())


@dataclass(frozen=True)
class Setting:
    """One setting: the same name on the command line (--name-with-dashes), as CONFORMANCE_<NAME> and in
    conformance.toml or [tool.conformance]; read by one parser, with one default wherever the suite runs."""

    name: str
    help: str
    parse: Parser = parse_text
    default: Any = None
    #: "value", "flag" (true when given), "negatable" (--no-<name> turns it off), or "list" (repeatable)
    kind: str = "value"
    metavar: str | None = None
    #: the flag under pytest where it differs from --<name> (pytest has its own -p, --seed is a plugin's, …)
    pytest_flag: str | None = None
    #: the field of Target it sets, where that is not its name ("": none, the value is spread over others)
    target_field: str | None = None
    #: an empty value is a value of its own, not "not given" (--report-dir '': no reports)
    empty_is_a_value: bool = False
    #: `conformance compare` takes it too, meaning the same for each of its two endpoints
    compare: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def field_name(self) -> str:
        return self.name if self.target_field is None else self.target_field

    def read(self, given: Any, source: str | None = None) -> Any:
        """The value given, parsed and checked; the default when none was (None, an empty list, or an empty
        string unless that is a value of its own). A bad value names where it came from (`source`: the
        environment variable or the config file's key; the option itself when None)."""
        if given is None or given == [] or (given == "" and not self.empty_is_a_value):
            return self.default
        try:
            return self.parse(given)
        except ValueError as exc:
            raise ConfigError(f"{source or self.flag}: {exc}") from None


#: Every setting of `conformance run` (and of the pytest plugin), in the order the README's table lists them.
SETTINGS = (
    Setting("target_url", "one base URL for all three APIs", parse_url, metavar="URL", target_field=""),
    Setting("node_url", "base URL of the node (JSON-RPC under /ext/...)", parse_url, metavar="URL"),
    Setting("data_url", "base URL of the Data API", parse_url, metavar="URL"),
    Setting("metrics_url", "base URL of the Metrics API", parse_url, metavar="URL"),
    Setting("evm_rpc_url", "the EVM chain's JSON-RPC URL itself (any Ethereum RPC endpoint), instead of "
            "{node_url}/ext/bc/<chain>/rpc", parse_url, metavar="URL"),
    # No default: every API with a URL (resolve); under `compare`, whose endpoints serve them all, every API.
    Setting("api", f"comma-separated subset of {','.join(ALL_APIS)} (default: every API with a URL)",
            parse_apis, metavar="LIST", target_field="apis", compare=True),
    Setting("profile", "quick | standard | thorough: examples per property test and pages per walk",
            parse_profile, "standard", metavar="NAME", pytest_flag="--conformance-profile"),
    Setting("evm_chain", "blockchain ID or alias of the EVM chain (and its validators)", metavar="ID",
            compare=True),
    Setting("sample", "an identifier for the tests, used instead of the one discovery finds (repeatable)",
            parse_samples, (), kind="list", metavar="NAME=VALUE", target_field="samples", compare=True),
    Setting("api_key", "Data API key (never printed)", metavar="KEY", compare=True),
    Setting("api_key_header", "header carrying the API key", parse_text, "x-data-api-key", metavar="NAME",
            compare=True),
    Setting("allow_mutations", "also run tests that change node state (they restore what they can)",
            parse_boolean, False, kind="flag"),
    Setting("rate_limit", "at most N requests a second, e.g. 20/s", parse_rate, metavar="RATE", compare=True),
    Setting("max_requests", "request budget of the run", parse_number(int, 1), metavar="N", compare=True),
    Setting("max_duration", "seconds after which no new request starts", parse_number(float, 1), metavar="S"),
    Setting("timeout", "seconds within which each answer must arrive whole", parse_number(float, 0.1), 30.0,
            metavar="S", pytest_flag="--request-timeout", compare=True),
    # A node's restart, a load balancer's failover: ridden through; an outage longer than that gives up.
    Setting("outage_window", "seconds a read-only request refused, reset or cut mid-body is sent again for, and "
            "after which a target that gave nothing else (or 5XX) is down: the run stops, exit 3 (0: neither)",
            parse_number(float, 0), 30.0, metavar="S"),
    # Enough that a run against a target tens of milliseconds away waits little more than its slowest answers;
    # the run uses fewer when the target answers faster than the suite checks (on loopback, one).
    Setting("concurrency", "at most N tests with requests in flight at once, over one rate limit and budget",
            parse_number(int, 1), 16, metavar="N"),
    # Cases were drawn ahead by a helper process until drawn cases were kept between runs; the setting stays so
    # that existing commands and config files still run.
    Setting("draw_ahead", "no effect (drawn cases are kept between runs instead); accepted so existing commands run",
            parse_boolean, True, kind="negatable"),
    # Three reruns that all see the deviation again leave a few in a thousand odd answers (a gateway's, a node
    # behind a load balancer on another version) reported as failures.
    Setting("recheck", "times a failing read-only test runs again before its deviation is reported (0: never)",
            parse_number(int, 0), 3, metavar="N"),
    Setting("flaky", "what a deviation that did not reproduce does to the gate: report, or fail",
            parse_choice("report", "fail"), "report", metavar="WHAT"),
    # A run against well-behaved targets needs a few hundred megabytes.
    Setting("max_memory", "megabytes of memory the run keeps itself under, whatever the target sends",
            parse_number(int, 64), 1024, metavar="MB"),
    Setting("rule", "only tests carrying this rule ID or prefix (repeatable)", parse_list, (), kind="list",
            metavar="ID", target_field="rules"),
    Setting("report_dir", "where report.json, junit.xml, summary.md and report.html go ('' for none)",
            parse_text, "reports/latest", metavar="DIR", empty_is_a_value=True, compare=True),
    Setting("expectations", "YAML file of known deviations: [{rule, test?, reason, expires}]; stock-ethereum: the "
            "file shipped for a plain Ethereum node (its three chain-specific extras excused, all else gated)",
            metavar="FILE"),
    Setting("gate", "lowest rule level whose failures fail the run: must, or standard",
            parse_choice("must", "standard"), "standard", metavar="LEVEL"),
    Setting("seed", "seed of the embedded reference target and of generated data", parse_number(int, 0),
            metavar="N", pytest_flag="--conformance-seed", compare=True),
    Setting("name", "what reports and the history call this target (default: its URLs)", metavar="NAME"),
    Setting("chain", "name of the chain this target serves: targets of a fleet with the same chain are compared",
            metavar="NAME"),
    Setting("history", "SQLite file that keeps every run: reports then say what is new, fixed or still failing",
            metavar="FILE"),
    Setting("fail_on", "which failures fail the gate: any, or new (not failing in the previous run of the target)",
            parse_choice("any", "new"), "any", metavar="WHICH"),
    Setting("min_coverage", "coverage in percent below which any dimension of a tested API fails the gate",
            parse_number(float, 0, 100), metavar="PERCENT"),
    Setting("har", "write every exchange of the run (API key redacted) to FILE as a HAR 1.2 archive", metavar="FILE"),
)
SETTING = {setting.name: setting for setting in SETTINGS}
#: The names a config file and the command line share.
OPTIONS = tuple(SETTING)
#: The settings `conformance compare` takes, each holding for both its endpoints (their URLs are each endpoint's
#: own: conformance.compare.sides): the rows marked for it, and the bounds of a run's time and of its outages.
COMPARE_OPTIONS = tuple(setting.name for setting in SETTINGS
                        if setting.compare or setting.name in ("max_duration", "outage_window"))
#: Defaults other modules name.
DEFAULT_CONCURRENCY: int = SETTING["concurrency"].default
DEFAULT_MAX_MEMORY_MB: int = SETTING["max_memory"].default
DEFAULT_REPORT_DIR: str = SETTING["report_dir"].default


def default(name: str) -> Any:
    """The default of a setting, as its row states it."""
    return SETTING[name].default


@dataclass(frozen=True)
class Target:
    """Everything a run needs to know: what it tests, how hard, and what it writes; frozen, resolved once."""

    node_url: str | None = default("node_url")
    data_url: str | None = default("data_url")
    metrics_url: str | None = default("metrics_url")
    apis: tuple[str, ...] = ALL_APIS   # every API: those of the embedded reference, which a Target without a URL tests
    profile: str = default("profile")
    evm_chain: str | None = default("evm_chain")
    # the EVM chain's JSON-RPC endpoint itself, instead of {node_url}/ext/bc/<chain>/rpc
    evm_rpc_url: str | None = default("evm_rpc_url")
    api_key: str | None = field(default=default("api_key"), repr=False)
    api_key_header: str = default("api_key_header")
    allow_mutations: bool = default("allow_mutations")
    seed: int | None = default("seed")
    timeout: float = default("timeout")
    outage_window: float = default("outage_window")
    rate_limit: float | None = default("rate_limit")
    max_requests: int | None = default("max_requests")
    max_duration: float | None = default("max_duration")
    samples: tuple[tuple[str, str], ...] = default("sample")  # identifiers given by the operator: --sample NAME=VALUE
    rules: tuple[str, ...] = default("rule")                  # only tests carrying these rule IDs or prefixes
    report_dir: str | None = default("report_dir")  # None: no reports written
    expectations: str | None = default("expectations")
    gate: str = default("gate")
    concurrency: int = default("concurrency")
    draw_ahead: bool = default("draw_ahead")
    recheck: int = default("recheck")
    flaky: str = default("flaky")
    max_memory: int = default("max_memory")
    name: str | None = default("name")    # what reports and the history call this target (default: its URLs)
    chain: str | None = default("chain")  # a name shared by the targets of a fleet that serve the same chain
    history: str | None = default("history")   # SQLite file that keeps every run, to tell what is new since the last
    fail_on: str = default("fail_on")          # "new": the gate fails only on failures the previous run did not have
    min_coverage: float | None = default("min_coverage")  # percent below which a coverage dimension fails the gate
    har: str | None = default("har")       # file that receives every exchange of the run as a HAR 1.2 archive
    reference: bool = False  # the embedded reference target is started for this run

    def sample(self, name: str) -> str | None:
        return dict(self.samples).get(name)

    def describe(self) -> str:
        where = "the embedded reference target" if self.reference else ", ".join(
            f"{name}={url}" for name, url in (("node", self.node_url), ("evm-rpc", self.evm_rpc_url),
                                              ("data", self.data_url), ("metrics", self.metrics_url)) if url)
        return f"{where}; APIs {','.join(self.apis)}; profile {self.profile}"


def add_option(add: Callable[..., Any], setting: Setting, flag: str | None = None, help: str | None = None) -> None:
    """One setting of the table as an option of an argument parser (`add`: argparse's add_argument, or a pytest
    option group's addoption); not given, it is None, so that the environment and the config file still apply.
    `help` words it for a command other than `run`."""
    flag = flag or setting.flag
    words = help or setting.help
    if setting.kind == "flag":
        add(flag, dest=setting.name, action="store_true", default=None, help=words)
    elif setting.kind == "negatable":
        add(flag, dest=setting.name, action=argparse.BooleanOptionalAction, default=None,
            help=f"{words} (default: on)" if setting.default else words)
    elif setting.kind == "list":
        add(flag, dest=setting.name, action="append", default=None, metavar=setting.metavar, help=words)
    else:
        shown = f" (default {setting.default})" if setting.default is not None else ""
        add(flag, dest=setting.name, default=None, metavar=setting.metavar, help=words + shown)


def check_url(value: str, option: str) -> str:
    """A base URL given as `--<option>`, checked as the URL settings are."""
    try:
        return parse_url(value)
    except ValueError as exc:
        raise ConfigError(f"--{option.replace('_', '-')}: {exc}") from None


#: CONFORMANCE_* variables that are not settings: where drawn cases are kept, a fleet's answers, the self-tests' own.
OTHER_VARIABLES = frozenset({"CONFORMANCE_CASES_DIR", "CONFORMANCE_FLEET_ANSWERS", "CONFORMANCE_BIN",
                             "CONFORMANCE_DOCS_DIR", "CONFORMANCE_CHROMIUM", "CONFORMANCE_ANVIL",
                             "CONFORMANCE_OPENRPC_META_SCHEMA", "CONFORMANCE_REQUIRE_CHROMIUM",
                             "CONFORMANCE_REQUIRE_INDEX", "CONFORMANCE_REQUIRE_NPM"})


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """ " (did you mean X?)" when a known name is close to `name`, else nothing."""
    import difflib
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _unknown_variables(env: Mapping[str, str]) -> None:
    """A CONFORMANCE_* variable that names no setting is a typo that would leave a run with the default: refused."""
    known = {setting.env for setting in SETTINGS} | OTHER_VARIABLES
    unknown = sorted(name for name in env if name.startswith(ENV_PREFIX) and name not in known)
    if unknown:
        raise ConfigError(f"{unknown[0]}: not a setting{did_you_mean(unknown[0], sorted(known))}")


def file_settings(cwd: Path) -> tuple[dict[str, Any], str]:
    """Settings from ./conformance.toml, else the [tool.conformance] table of ./pyproject.toml, and which of them
    it was (for the messages about a bad value)."""
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
            return ({key.replace("-", "_"): value for key, value in data.items()},
                    name if table is None else f"{name} [tool.conformance]")
    return {}, "config file"


def gather(cli: Mapping[str, Any], env: Mapping[str, str] | None = None, cwd: Path | None = None,
           file: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Raw option values with their precedence applied: command line > environment > config file (`file`, else
    the one found in `cwd`)."""
    return _gather(cli, env, cwd, file)[0]


def _gather(cli: Mapping[str, Any], env: Mapping[str, str] | None = None, cwd: Path | None = None,
            file: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """`gather`, and where each value came from: the environment variable or the config file's key (absent: the
    command line)."""
    env = os.environ if env is None else env
    # Settings handed over as a mapping (a fleet file's target) are named by the caller, with their options.
    found, where = file_settings(cwd or Path.cwd()) if file is None else (dict(file), "")
    merged = dict(found)
    unknown = sorted(set(merged) - set(OPTIONS))
    if unknown:
        raise ConfigError(f"{where or 'config file'}: unknown setting {unknown[0]}{did_you_mean(unknown[0], OPTIONS)}")
    _unknown_variables(env)
    sources = {name: f"{where}: {name}" for name in merged} if where else {}
    for setting in SETTINGS:
        option = setting.name
        if (value := env.get(setting.env)) is not None and (value != "" or setting.empty_is_a_value):
            merged[option], sources[option] = value, setting.env
        # Identity, not equality: 0 == False, and a zero given on the command line is a value to check. A flag
        # that was not given is None; a negatable one given as --no-<name> is False.
        given = cli.get(option)
        if given is not None and given != [] and (given is not False or setting.kind == "negatable"):
            merged[option] = given
            sources.pop(option, None)
    return merged, sources


def read(names: Iterable[str], cli: Mapping[str, Any], env: Mapping[str, str] | None = None,
         cwd: Path | None = None, file: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The named settings, each as given (command line > environment > config file) or its default, checked by
    its row; raises ConfigError on bad input."""
    given, sources = _gather(cli, env, cwd, file)
    return {name: SETTING[name].read(given.get(name), sources.get(name)) for name in names}


def resolve(cli: Mapping[str, Any], env: Mapping[str, str] | None = None, cwd: Path | None = None,
            file: Mapping[str, Any] | None = None) -> Target:
    """The frozen Target for these options; raises ConfigError on bad input."""
    values = read(OPTIONS, cli, env, cwd, file)
    base = values.pop("target_url")   # the URL of every API that has none of its own
    urls = {key: values[key] or base for key in ("node_url", "data_url", "metrics_url")}
    values.update(urls)
    reference = not any(urls.values()) and not values["evm_rpc_url"]
    configured = [api for api in ALL_APIS
                  if reference or urls["node_url" if api in RPC_APIS else f"{api}_url"]
                  or (api == "evm" and values["evm_rpc_url"])]
    chosen = values["api"] = values["api"] or tuple(configured)
    missing = [api for api in chosen if api not in configured]
    if missing:
        raise ConfigError(f"--api {','.join(missing)}: no URL is configured for "
                          f"{'it' if len(missing) == 1 else 'them'} "
                          "(use --target-url or --node-url/--data-url/--metrics-url)")
    return Target(**{SETTING[name].field_name: value for name, value in values.items()}, reference=reference)
