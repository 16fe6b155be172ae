"""What one target answers to the read-only requests every node of its chain can be asked, kept in answers.json.

A run with a `chain` setting records them before its tests, so that the targets of a fleet that serve the same
chain can be compared afterwards, whether they ran together or in separate jobs (`conformance merge`). The
requests are those of `conformance compare` (its plan, each anchored request following from this target's own
answers), plus a fixed grid of positions of each index and of the EVM chain: positions every node of the chain
holds once it has reached them, the same for every target, so that two nodes are asked the very same thing.
"""
from __future__ import annotations

import datetime as dt
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from conformance import config
from conformance.checks.index import position
from conformance.clients.http import Exchange, HttpSession, Limits, redacted
from conformance.clients.jsonrpc import OMIT, JsonRpcClient
from conformance.clients.rest import RestClient
from conformance.compare import planner, requests_plan
from conformance.compare.normalize import Outcome, rest_outcome, rpc_outcome
from conformance.errors import BudgetExhausted, SuiteError
from conformance.reporting.write import json_text
from conformance.specs import RPC_APIS

FILE_NAME = "answers.json"
#: Set by a fleet for each of its runs: answers are recorded even without a `chain`, so that targets serving the
#: same chain are found by what they serve (their first containers and blocks) when the file does not say.
RECORD_VARIABLE = "CONFORMANCE_FLEET_ANSWERS"
SCHEMA = "conformance-answers/1"
#: Requests a recording sends at most: the plan of a comparison with every API, and the grid, fit well under it.
MAX_REQUESTS = 400
#: The newest positions of each index and of the EVM chain asked besides the grid: what a node behind lacks.
HEAD_WINDOW = 3
#: Requests of a recording in flight at once (never more than the run's own tests in flight).
PARALLEL = 8


@dataclass(frozen=True)
class Head:
    """Where a sequence of the chain ends on this target: an index's last container, the EVM chain's last block."""

    key: str        # the request that reads it
    height: int
    pointer: str    # where the height is in that request's answer


def grid(height: int) -> list[int]:
    """Positions asked of a sequence that ends at `height`: 0, 1, 2, the powers of two, and the newest few.

    The same positions for every node that has reached them, so that nodes at different heights share most of
    their requests; the newest ones are those a node behind does not serve yet."""
    positions = {0, 1, 2}
    step = 4
    while step <= height:
        positions.add(step)
        step *= 2
    positions.update(range(max(0, height - HEAD_WINDOW + 1), height + 1))
    return sorted(p for p in positions if p <= height)


def _grid_requests(request: requests_plan.Request, outcome: Outcome) -> tuple[Head | None, list[requests_plan.Request]]:
    """The head a head request read, and the positions of the grid below it."""
    if not outcome.ok:
        return None, []
    key = request.describe()
    if request.operation == "index.getLastAccepted":
        height = position(outcome.value)
        if height is None:
            return None, []
        return Head(key, height, "/result/index"), [
            requests_plan.rpc("index", request.path, "index.getContainerByIndex", {"index": p, "encoding": "hex"})
            for p in grid(height)]
    if request.operation == "eth_blockNumber":
        value = outcome.value
        try:
            height = int(value, 16) if isinstance(value, str) else -1
        except ValueError:
            height = -1
        if height < 0:
            return None, []
        blocks = [replace(requests_plan.rpc("evm", request.path, "eth_getBlockByNumber", [hex(p), False]),
                          then=partial(_transactions_of, request.path)) for p in grid(height)]
        return Head(key, height, "/result"), [
            requests_plan.rpc("evm", request.path, method, []) for method in ("eth_chainId", "net_version")] + blocks
    return None, []


def _transactions_of(path: str, outcome: Outcome, _: Outcome) -> list[requests_plan.Request]:
    """A block of the grid read again by its hash, and its miner's balance as of that block: answers as final
    as the block itself."""
    block = outcome.value if outcome.ok and isinstance(outcome.value, dict) else {}
    out = []
    if isinstance(block.get("hash"), str):
        out.append(requests_plan.rpc("evm", path, "eth_getBlockByHash", [block["hash"], False]))
    if isinstance(block.get("miner"), str) and isinstance(block.get("number"), str):
        out.append(requests_plan.rpc("evm", path, "eth_getBalance", [block["miner"], block["number"]]))
    return out


class Sender:
    """Sends plan requests to the base URL of each API of one target, over a session of its own limits."""

    def __init__(self, target: config.Target, urls: dict[str, str | None], api_key: str | None) -> None:
        self.urls = urls
        limits = Limits(read_timeout=target.timeout, rate_limit=target.rate_limit)
        self.http = HttpSession(limits, secret_headers={target.api_key_header: api_key} if api_key else {})
        self.api_key = api_key

    def base(self, api: str) -> str | None:
        return self.urls["node" if api in RPC_APIS else api]

    def send(self, request: requests_plan.Request, page_token: str | None) -> Exchange:
        base = self.base(request.api)
        assert base is not None  # requests of APIs without a URL are never planned
        if request.rpc:
            return JsonRpcClient(self.http, base + request.path).call(
                request.operation, OMIT if request.params is None else request.params)
        query = dict(request.params or {})
        if page_token is not None:
            query["pageToken"] = page_token
        client = RestClient(self.http, base, send_key=bool(self.api_key) and request.api == "data")
        return client.post(request.path, query, request.body) if request.method == "POST" \
            else client.get(request.path, query)

    def close(self) -> None:
        self.http.close()


def _ask(sender: Sender, request: requests_plan.Request) -> Outcome | SuiteError:
    """The outcome of one request, or the suite error that kept it from one."""
    token = request.page_tokens[0] if request.page_tokens else None
    try:
        exchange = sender.send(request, token)
    except SuiteError as exc:
        return exc
    return rpc_outcome(exchange) if request.rpc else rest_outcome(exchange)


def record(target: config.Target, urls: dict[str, str | None], samples: dict[str, str],
           evm_chain: str | None, api_key: str | None) -> dict[str, Any]:
    """answers.json's content: this target's answer to each request of the plan, and its heads."""
    apis = tuple(api for api in target.apis if urls["node" if api in RPC_APIS else api])
    context = requests_plan.PlanContext(apis, evm_chain, samples, target.seed or 0)
    plan = planner.build(context)
    sender = Sender(target, urls, api_key)
    answers: dict[str, dict[str, Any]] = {}
    heads: list[Head] = []
    stopped = None
    wave = list(plan.requests)
    started = dt.datetime.now(dt.UTC)
    # The requests go out a wave at a time, as many at once as the run's own tests would be: each wave holds what
    # the answers of the one before anchored (the grid below a head, the next page of a list).
    pool = ThreadPoolExecutor(max_workers=max(1, min(PARALLEL, target.concurrency)),
                              thread_name_prefix="fleet-answers")
    try:
        while wave and stopped is None:
            unique: dict[str, requests_plan.Request] = {}
            for request in wave:
                key = request.describe()
                if key not in answers and key not in unique and len(answers) + len(unique) < MAX_REQUESTS:
                    unique[key] = request
            wave = []
            for key, request, result in zip(unique, unique.values(),
                                            pool.map(lambda r: _ask(sender, r), unique.values())):
                if isinstance(result, BudgetExhausted):
                    stopped = str(result)
                    continue
                if isinstance(result, SuiteError):
                    answers[key] = {**_describe(request), "outcome": "no answer", "why": str(result)}
                    continue
                outcome = result
                answers[key] = {**_describe(request), "outcome": outcome.code, "ok": outcome.ok,
                                "unavailable": outcome.unavailable,
                                **({"value": outcome.value} if outcome.ok else {})}
                if request.head:
                    head, below = _grid_requests(request, outcome)
                    if head is not None:
                        heads.append(head)
                    wave.extend(below)
                if request.then is not None:
                    # One target is both sides of the anchoring: what follows is what it can answer itself.
                    wave.extend(request.then(outcome, outcome))
    finally:
        pool.shutdown(wait=True)
        sender.close()
    content = {"schema": SCHEMA, "name": target.name, "chain": target.chain, "recorded": started.isoformat(),
               "fingerprint": fingerprint(answers.values()),
               "apis": list(apis), "evm_chain": evm_chain, "notes": list(plan.notes),
               "heads": {h.key: {"height": h.height, "pointer": h.pointer} for h in heads},
               "answers": list(answers.values())}
    if stopped:
        content["stopped"] = stopped
    return content


#: Answers that only one chain gives: an index's first container, the EVM chain's genesis block.
_FIRST = {"index.getContainerByIndex": ({"index": 0, "encoding": "hex"}, "id"),
          "eth_getBlockByNumber": (["0x0", False], "hash")}


def fingerprint(recorded: Any) -> str | None:
    """What the chain a target serves is known by: the identities of its first containers and genesis block."""
    import hashlib
    import json

    found = []
    for answer in recorded:
        first = _FIRST.get(answer.get("operation"))
        value = answer.get("value")
        if first and answer.get("ok") and isinstance(value, dict) and answer["key"].endswith(
                json.dumps(first[0], separators=(",", ":"))) and isinstance(value.get(first[1]), str):
            found.append(f"{answer['key']} {value[first[1]]}")
    if not found:
        return None
    return hashlib.sha256("\n".join(sorted(found)).encode()).hexdigest()


def wanted(target: config.Target) -> bool:
    """Whether a run records its answers: it names its chain, or a fleet runs it."""
    return bool(target.chain) or os.environ.get(RECORD_VARIABLE) == "1"


def _describe(request: requests_plan.Request) -> dict[str, Any]:
    return {"key": request.describe(), "api": request.api, "operation": request.operation, "head": request.head,
            "open_end": request.open_end, "next_page": bool(request.page_tokens)}


def write(content: dict[str, Any], report_dir: Path, secrets: tuple[str, ...]) -> Path:
    """answers.json in `report_dir`, written whole or not at all; a key a target echoed never reaches it."""
    path = report_dir / FILE_NAME
    temporary = path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
    temporary.write_text(json_text(redacted(content, secrets)), encoding="utf-8")
    os.replace(temporary, path)
    return path


def record_for_run(target: config.Target, urls: dict[str, str | None], samples: dict[str, str],
                   evm_chain: str | None, report_dir: Path) -> None:
    """Records and writes answers.json for a run with a chain; a recording that fails leaves a note, not a run
    that fails: the run's own verdicts never depend on it."""
    api_key = target.api_key or samples.get("data_api_key")
    try:
        content = record(target, urls, samples, evm_chain, api_key)
    except SuiteError as exc:
        content = {"schema": SCHEMA, "name": target.name, "chain": target.chain, "heads": {}, "answers": [],
                   "stopped": str(exc)}
    write(content, report_dir, (api_key,) if api_key else ())


def load(report_dir: Path) -> dict[str, Any] | None:
    """A folder's answers.json, or None when it has none (its run had no chain) or it cannot be read."""
    import json

    path = report_dir / FILE_NAME
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return content if isinstance(content, dict) and content.get("schema") == SCHEMA else None
