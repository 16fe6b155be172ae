"""The name a target's runs are kept under in a history file."""
from __future__ import annotations

from conformance.config import Target
from conformance.reporting.build import redact_url

REFERENCE = "reference"


def history_name(target: Target, reference: bool = False) -> str:
    """`name` when the target was given one; the embedded reference is "reference" (its port changes every run);
    else its base URLs, without user, password, query or API key, so the same target keeps the same name."""
    if target.name:
        return target.name
    if reference or target.reference:
        return REFERENCE
    urls = [redact_url(url) for url in (target.node_url, target.evm_rpc_url, target.data_url, target.metrics_url)
            if url]
    name = " ".join(dict.fromkeys(url for url in urls if url))
    if target.api_key:
        name = name.replace(target.api_key, "***")
    return name or REFERENCE
