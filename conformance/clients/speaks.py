"""Whether a target speaks any API of the documents at all: one light, read-only request per selected API, before
the run. A static file server, a proxy's error page or a service that is not HTTP answers none of them with JSON;
such a run would send thousands of requests to learn only that, and pass the rules that hold of any 404 page."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from conformance.clients.http import HttpSession, Limits
from conformance.config import Target


@dataclass(frozen=True)
class Probe:
    api: str
    method: str
    url: str
    body: dict[str, Any] | None = None
    #: Whether an answer that is not the API's says the target is not it: not for a path the probe guessed (the
    #: C-Chain's, where the run's EVM chain is not known yet), which a node may rightly not serve.
    decides: bool = True

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
        # Without the chain, the one discovery asks first, by the alias document 1's index paths use: an answer
        # there says the node speaks; none says nothing (a node serves only the chains it runs).
        url = target.evm_rpc_url or f"{target.node_url}/ext/bc/{target.evm_chain or 'C'}/rpc"
        found.append(Probe("evm", "POST", url, rpc("eth_chainId", []),
                           decides=bool(target.evm_rpc_url or target.evm_chain)))
    if target.data_url and "data" in target.apis:
        found.append(Probe("data", "GET", f"{target.data_url}/v1/networks/mainnet/blockchains?pageSize=1"))
    if target.metrics_url and "metrics" in target.apis:
        found.append(Probe("metrics", "GET", f"{target.metrics_url}/v2/chains/total/metrics/txCount?pageSize=1"))
    return found


#: The most of a probe's body read: an answer longer than this may well be JSON, and is left to the run.
MOST_READ = 65536


def answer_of(probe: Probe, target: Target, timeout: float) -> str | None:
    """What a probe's answer shows the target is not, in a few words; None when it is JSON of its API (any JSON
    object for a REST API, whose error bodies are JSON too; a JSON-RPC response object for the node's) or when
    the answer cannot say: no whole answer within the timeout, a redirect, a 429, 502, 503 or 504 (the run waits
    those out),
    a body longer than MOST_READ, JSON nested too deeply to read. Only a whole, short answer that is not JSON of
    the API says the target is not the API. It is sent once, through a session of the run's own kind (its
    deadline on the whole answer, its cap on the body), which waits nothing out."""
    secret = {target.api_key_header: target.api_key} if probe.api == "data" and target.api_key else {}
    limits = Limits(connect_timeout=timeout, read_timeout=timeout, total_timeout=timeout, max_body_bytes=MOST_READ,
                    retries_on_429=0, retries_on_unavailable=0, max_redirects=0)
    session = HttpSession(limits, secret_headers=secret)
    try:
        exchange = session.request(probe.method, probe.url, secret=bool(secret),
                                   headers={"accept": "application/json",
                                            **({"content-type": "application/json"} if probe.body else {})},
                                   body=json.dumps(probe.body).encode() if probe.body is not None else None)
    except Exception:   # whatever went wrong on the way, the run's own requests meet it and report it
        return None
    finally:
        session.close()
    status = exchange.status or 0
    if 300 <= status < 400 or status in (429, 502, 503, 504):
        return None   # followed or waited out by the run, which reports what comes of it
    kind = exchange.response_headers.get("content-type", "no content type").split(";")[0].strip()
    try:
        value = json.loads(exchange.body)
    except RecursionError:
        return None
    except ValueError:
        excerpt = " ".join(exchange.body[:60].decode("utf-8", "replace").split())
        return f"HTTP {status} {kind}, not JSON ({excerpt!r})"
    if probe.body is None:
        return None if isinstance(value, dict) else f"HTTP {status} JSON that is not an object"
    if isinstance(value, dict) and value.get("jsonrpc") == "2.0" and ("result" in value or "error" in value):
        return None
    return f"HTTP {status} JSON that is not a JSON-RPC response"


def unspoken(target: Target, timeout: float) -> str | None:
    """None when some selected API answers its probe as the documents say, or no probe can decide; else one line
    saying what each answered. A target that speaks one API and not another is tested: that API's own rules report
    it. The validators API is not probed: its path needs the EVM chain, which a run may still have to find."""
    checked = probes(target)
    if not any(probe.decides for probe in checked):
        return None   # only guesses (an EVM chain not found yet) or nothing to ask: the run finds out
    answers = []
    started = time.monotonic()
    try:
        for number, probe in enumerate(checked):
            if target.rate_limit and number:
                time.sleep(1 / target.rate_limit)
            answer = answer_of(probe, target, timeout)
            if answer is None:
                return None   # this API answers as one, or cannot say: the run goes on
            answers.append((probe, answer))
    finally:
        if target.rate_limit:
            # the run's own requests, under their own limiter, start when no second holds a probe and them both
            time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
    return "no API of the documents answered: " + "; ".join(f"{probe.what()} answered {answer}"
                                                          for probe, answer in answers)
