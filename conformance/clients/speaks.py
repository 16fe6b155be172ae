"""Whether a target speaks any API of the documents at all: one light, read-only request per selected API, before
the run. A static file server, a proxy's error page or a service that is not HTTP answers none of them with JSON;
such a run would send thousands of requests to learn only that, and pass the rules that hold of any 404 page."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import requests

from conformance.clients.deadline import deadline_session, watching
from conformance.config import Target


@dataclass(frozen=True)
class Probe:
    api: str
    method: str
    url: str
    body: dict[str, Any] | None = None

    def what(self) -> str:
        call = f" {self.body['method']}" if self.body else ""
        return f"{self.api}: {self.method} {self.url}{call}"


def probes(target: Target) -> list[Probe]:
    """One documented, read-only request of each selected API that has a URL."""
    def rpc(method: str, params: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    found = []
    if target.node_url and "index" in target.apis:
        found.append(Probe("index", "POST", f"{target.node_url}/ext/index/C/block",
                           rpc("index.getLastAccepted", {"encoding": "hex"})))
    if target.node_url and "admin" in target.apis:
        found.append(Probe("admin", "POST", f"{target.node_url}/ext/admin", rpc("admin.getLoggerLevel", {})))
    if "evm" in target.apis and (target.evm_rpc_url or target.node_url):
        # Without a chain, the one discovery asks first: the C-Chain, by the alias document 1's index paths use.
        url = target.evm_rpc_url or f"{target.node_url}/ext/bc/{target.evm_chain or 'C'}/rpc"
        found.append(Probe("evm", "POST", url, rpc("eth_chainId", [])))
    if target.data_url and "data" in target.apis:
        found.append(Probe("data", "GET", f"{target.data_url}/v1/networks/mainnet/blockchains?pageSize=1"))
    if target.metrics_url and "metrics" in target.apis:
        found.append(Probe("metrics", "GET", f"{target.metrics_url}/v2/chains/total/metrics/txCount?pageSize=1"))
    return found


def answer_of(probe: Probe, target: Target, timeout: float) -> str | None:
    """None when the probe's answer is JSON of its API (any JSON object for a REST API, whose error bodies are JSON
    too; a JSON-RPC response object for the node's); else what it answered, in a few words."""
    headers = {"accept": "application/json"}
    if probe.body is not None:
        headers["content-type"] = "application/json"
    if probe.api == "data" and target.api_key:
        headers[target.api_key_header] = target.api_key
    with deadline_session() as session:
        session.proxies = requests.utils.get_environ_proxies(probe.url)
        try:
            with watching(time.monotonic() + timeout):
                response = session.request(probe.method, probe.url, headers=headers, timeout=(timeout, timeout),
                                           data=json.dumps(probe.body) if probe.body is not None else None,
                                           allow_redirects=False)
                body = response.content[:65536]
        except requests.exceptions.RequestException as exc:
            return f"no answer ({type(exc).__name__})"
    if 300 <= response.status_code < 400:
        return None   # a redirect the run follows (same origin) or reports: not this probe's to judge
    kind = response.headers.get("content-type", "no content type").split(";")[0].strip()
    try:
        value = json.loads(body)
    except ValueError:
        excerpt = " ".join(body[:60].decode("utf-8", "replace").split())
        return f"HTTP {response.status_code} {kind}, not JSON ({excerpt!r})"
    if probe.body is None:
        return None if isinstance(value, dict) else f"HTTP {response.status_code} JSON that is not an object"
    if isinstance(value, dict) and value.get("jsonrpc") == "2.0" and ("result" in value or "error" in value):
        return None
    return f"HTTP {response.status_code} JSON that is not a JSON-RPC response"


def unspoken(target: Target, timeout: float) -> str | None:
    """None when some selected API answers its probe as the documents say; else one line saying what each
    answered. A target that speaks one API and not another is tested: that API's own rules report it."""
    checked = probes(target)
    answers = [(probe, answer_of(probe, target, timeout)) for probe in checked]
    if not checked or any(answer is None for _, answer in answers):
        return None
    return "no API of the documents answered: " + "; ".join(f"{probe.what()} answered {answer}"
                                                          for probe, answer in answers)
