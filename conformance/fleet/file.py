"""The fleet file: a TOML `[[targets]]` array, each target named and set with the settings of conformance.toml.

Top-level settings (a `chain` most often) apply to every target that does not set its own; `max_in_flight` bounds
the tests in flight over the whole fleet. A target's API key is never in the file: `api_key_env` names the
environment variable that holds it.
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from conformance import config
from conformance.errors import ConfigError

#: A target's name is the folder of its reports: letters, digits, '.', '_' and '-', not starting with a dot.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: Names that would be the fleet's own files or folders of the report directory.
RESERVED = frozenset({"fleet.json", "fleet.md", "fleet.html", "fleet-logs"})
#: Settings that belong to the fleet, not to one target: the fleet decides where each target's reports go.
FLEET_ONLY = ("report_dir",)
#: Settings never written in the file.
REFUSED = {"api_key": "write api_key_env = \"VARIABLE\" (the environment variable that holds the key) instead"}
TARGET_KEYS = frozenset(config.OPTIONS) - set(FLEET_ONLY) - set(REFUSED) | {"api_key_env"}
TOP_LEVEL_KEYS = TARGET_KEYS - {"name"} | {"targets", "max_in_flight"}
URLS = ("target_url", "node_url", "data_url", "metrics_url")
#: Tests in flight over the whole fleet when neither the file nor the command line bounds them.
DEFAULT_MAX_IN_FLIGHT = 64


@dataclass(frozen=True)
class FleetTarget:
    """One target: its name, its settings (as conformance.toml takes them) and its API key, kept out of both."""

    name: str
    settings: dict[str, Any]
    api_key: str | None = field(default=None, repr=False)

    @property
    def chain(self) -> str | None:
        chain = self.settings.get("chain")
        return str(chain) if chain else None

    def resolve(self, overrides: Mapping[str, Any]) -> config.Target:
        """The target as its run resolves it: its settings as a config file holds them, under `overrides` as a
        command line (the fleet's, given for every target); no other environment, no other config file."""
        return config.resolve(overrides, env={}, file=self.settings)


@dataclass(frozen=True)
class Fleet:
    path: Path
    targets: tuple[FleetTarget, ...]
    max_in_flight: int | None = None


def load(path: str | Path, environ: Mapping[str, str] | None = None) -> Fleet:
    """The fleet of `path`, checked: every problem is a ConfigError naming the file and the target."""
    environ = os.environ if environ is None else environ
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"--fleet: cannot read {path} ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--fleet: {path} is not TOML ({exc})") from None
    return parse(data, path, environ)


def parse(data: dict[str, Any], path: Path, environ: Mapping[str, str]) -> Fleet:
    where = f"fleet file {path}"
    data = {str(key).replace("-", "_"): value for key, value in data.items()}
    unknown = sorted(set(data) - TOP_LEVEL_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown top-level setting {', '.join(unknown)}"
                          + _refusal(unknown))
    entries = data.pop("targets", None)
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where}: no [[targets]]: name each target in a [[targets]] table")
    max_in_flight = data.pop("max_in_flight", None)
    if max_in_flight is not None and (not isinstance(max_in_flight, int) or isinstance(max_in_flight, bool)
                                      or max_in_flight < 1):
        raise ConfigError(f"{where}: max_in_flight must be a whole number of at least 1")
    shared = data
    targets: list[FleetTarget] = []
    seen: dict[str, str] = {}
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: targets entry {n} is not a table")
        entry = {str(key).replace("-", "_"): value for key, value in entry.items()}
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}: targets entry {n} has no name")
        if not NAME.fullmatch(name) or name.lower() in RESERVED:
            raise ConfigError(f"{where}: target {name!r}: a name is a folder of the reports: up to 64 letters, "
                              "digits, '.', '_' or '-', not starting with '.' or '-', and not fleet.*")
        if name.lower() in seen:
            raise ConfigError(f"{where}: target {name!r} is named twice (as {seen[name.lower()]!r} before)")
        seen[name.lower()] = name
        unknown = sorted(set(entry) - TARGET_KEYS)
        if unknown:
            raise ConfigError(f"{where}: target {name!r}: unknown setting {', '.join(unknown)}" + _refusal(unknown))
        settings = {**shared, **entry}
        targets.append(_target(where, name, settings, environ))
    return Fleet(path, tuple(targets), max_in_flight)


def _refusal(keys: list[str]) -> str:
    reasons = [REFUSED[key] for key in keys if key in REFUSED]
    if "report_dir" in keys:
        reasons.append("each target's reports go to <report-dir>/<name>/")
    return f" ({'; '.join(reasons)})" if reasons else ""


def _target(where: str, name: str, settings: dict[str, Any], environ: Mapping[str, str]) -> FleetTarget:
    if not any(settings.get(url) for url in URLS):
        raise ConfigError(f"{where}: target {name!r} has no URL: set target_url, or node_url, data_url or "
                          "metrics_url")
    api_key = None
    variable = settings.pop("api_key_env", None)
    if variable is not None:
        if not isinstance(variable, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable):
            raise ConfigError(f"{where}: target {name!r}: api_key_env must name an environment variable")
        api_key = environ.get(variable) or None
        if api_key is None:
            raise ConfigError(f"{where}: target {name!r}: the environment variable {variable} (api_key_env) "
                              "is not set")
    # The settings as a run of this target would resolve them, checked now: one bad value stops the fleet
    # before any target starts, as it would stop a single run.
    target = FleetTarget(name, settings, api_key)
    try:
        target.resolve({})
    except ConfigError as exc:
        raise ConfigError(f"{where}: target {name!r}: {exc}") from None
    return target


def environment_value(key: str, value: Any) -> str:
    """A setting's value as its CONFORMANCE_<NAME> environment variable carries it."""
    setting = config.SETTING[key]
    if isinstance(value, bool):
        return "true" if value else "false"
    if setting.kind == "list" or isinstance(value, (list, dict)):
        items = [f"{k}={v}" for k, v in value.items()] if isinstance(value, dict) else \
            [str(item) for item in value] if isinstance(value, list) else [str(value)]
        return ",".join(items)
    return str(value)
