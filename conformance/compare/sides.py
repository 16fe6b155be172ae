"""The two endpoints of a comparison, as the command line names them: each has the URL settings of a run of its own.

`--baseline-url` is the baseline's `--target-url` (one base URL for all its APIs, also spelled
`--baseline-target-url`); `--baseline-node-url`, `--baseline-data-url`, `--baseline-metrics-url` and
`--baseline-evm-rpc-url` are its `--node-url`, … over it, and the same for the candidate. Every other setting holds
for both endpoints. Kept apart from `command.py` so that the command line is built without importing the comparison.
"""
from __future__ import annotations

import argparse
from typing import Any

from conformance import config

ROLES = ("baseline", "candidate")
#: The settings of a run that say where its target is: under `compare`, each endpoint has its own.
URL_SETTINGS = ("target_url", "node_url", "data_url", "metrics_url", "evm_rpc_url")
#: Who each endpoint is, in --help.
WHO = {"baseline": "the endpoint compared against (the node before an upgrade, the reference node)",
       "candidate": "the endpoint compared with it (the node after an upgrade, the vendor's)"}


def dest(role: str, name: str) -> str:
    """The argparse destination of `role`'s URL setting `name` (`baseline_url` for its target URL, as before)."""
    return f"{role}_url" if name == "target_url" else f"{role}_{name}"


def flag(role: str, name: str) -> str:
    """`--baseline-url`, `--candidate-evm-rpc-url`, …"""
    return "--" + dest(role, name).replace("_", "-")


def add_options(parser: argparse.ArgumentParser) -> None:
    """One group of URL options per endpoint, worded after the rows of the settings they stand for."""
    for role in ROLES:
        group = parser.add_argument_group(f"the {role}", f"{WHO[role]}: at least one URL")
        for name in URL_SETTINGS:
            setting = config.SETTING[name]
            flags = [flag(role, name)] + ([f"--{role}-target-url"] if name == "target_url" else [])
            words = "one base URL for all its APIs (run's --target-url)" if name == "target_url" \
                else f"{setting.help}; over {flag(role, 'target_url')}"
            group.add_argument(*flags, dest=dest(role, name), metavar=setting.metavar, help=words)


def given(args: argparse.Namespace, role: str) -> dict[str, Any]:
    """`role`'s URL settings given on the command line, under the names of a run's settings."""
    return {name: value for name in URL_SETTINGS if (value := getattr(args, dest(role, name), None)) is not None}
