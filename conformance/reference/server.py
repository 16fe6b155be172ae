"""The reference target's HTTP server: one WSGI app for every API, on werkzeug, in a thread or in the foreground."""
from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

import logging

from waitress.server import create_server
from werkzeug.wrappers import Request, Response

from conformance.reference.calls import HttpReply, RestCall, RpcHttp
from conformance.reference.faults import fault_named
from conformance.reference.middleware import Fault, chain
from conformance.reference.node import _request as node_request
from conformance.reference.rest import RestService
from conformance.reference.world import World

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

DATA_PREFIXES = ("/v1/networks/", "/v1/chains/")
METRICS_PREFIXES = ("/v2/chains/", "/v1/avg_tps/")


class ReferenceApp:
    """Routes every request to the node, Data API or Metrics API service, through the enabled faults."""

    def __init__(self, world: World, faults: Iterable[Fault] = ()) -> None:
        from conformance.reference.data_api import DataService
        from conformance.reference.metrics_api import MetricsService
        from conformance.reference.node import NodeService

        self.world = world
        self.faults = list(faults)
        for fault in self.faults:
            fault.attach(world)
        self.node = NodeService(world)
        self.data = DataService(world)
        self.metrics = MetricsService(world)
        self.seen: Counter[str] = Counter()  # RPC methods and REST routes served, for the safety self-tests
        # When requests arrived (time.monotonic()), for the rate-limit self-test; bounded for long-lived servers.
        self.arrivals: deque[float] = deque(maxlen=100_000)
        self._seen_lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        self.arrivals.append(time.monotonic())  # deque.append is atomic: no lock on the hot path
        request = Request(environ)
        reply = self.route(request)
        if reply.raw is not None:
            body = reply.raw
        elif reply.body is None:
            body = b""
        else:
            body = json.dumps(reply.body, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json"} if reply.raw is None and reply.body is not None else {}
        headers.update(reply.headers)
        return Response(body, status=reply.status, headers=headers)(environ, start_response)

    def route(self, request: Request) -> HttpReply:
        path = request.path
        if path.startswith("/ext/"):
            resolved = self.node.resolve(path[len("/ext/"):])
            if resolved is None:
                return HttpReply(404, raw=b"404 page not found\n", headers={"Content-Type": "text/plain"})
            if request.method != "POST":
                return HttpReply(405, raw=b"405 method not allowed\n", headers={"Content-Type": "text/plain"})
            endpoint, api = resolved
            self._count(self.node.method_names(request.get_data(cache=True)))
            return self.node.dispatcher.handle(RpcHttp(endpoint, api, request.get_data()), self.faults)
        if path.startswith(DATA_PREFIXES):
            return self.rest(self.data, request)
        if path.startswith(METRICS_PREFIXES):
            return self.rest(self.metrics, request)
        return HttpReply(404, {"message": f"no route {path}", "statusCode": 404, "error": "Not Found"})

    def rest(self, service: RestService, request: Request) -> HttpReply:
        body = None
        if request.method == "POST" and request.get_data():
            try:
                body = json.loads(request.get_data())
            except (ValueError, UnicodeDecodeError):
                return service.error(400, "the request body is not valid JSON")
        found = service.match(request.method, request.path)
        call = RestCall(api=service.api, method=request.method, route=found[0].template if found else request.path,
                        path=request.path, path_params=found[1] if found else {},
                        query=request.args.to_dict(flat=False),
                        headers={k.lower(): v for k, v in request.headers.items()}, body=body)
        self._count([f"{call.method} {call.route}"])
        return chain(self.faults, "rest", service.dispatch)(call)

    def _count(self, names: list[str]) -> None:
        with self._seen_lock:
            self.seen.update(names)


class ReferenceServer:
    """The reference target on a port (0 picks a free one), served by waitress from a background thread.

    waitress keeps HTTP/1.1 connections alive (werkzeug's development server closes every one).
    """

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, seed: int = 0,
                 faults: Iterable[str | Fault] = (), advance_every: float | None = None) -> None:
        self.seed = seed
        self.world = World(seed)
        self.app = ReferenceApp(self.world, [fault_named(f) if isinstance(f, str) else f for f in faults])
        self.advance_every = advance_every
        # Each request is served by the app of the moment (`reset` puts another in its place).
        self._server = create_server(self._answer, host=host, port=port, threads=8, ident="conformance-reference",
                                     channel_timeout=30, connection_limit=200, expose_tracebacks=False)
        self.host = host
        self.port = int(self._server.effective_port)
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []

    def _answer(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        try:
            return self.app(environ, start_response)
        finally:
            # The node notes the request it serves in a thread-local (faults that misroute read it): ended with the
            # request, so that no thread of the server keeps an app `reset` let go of (its world, its faults).
            vars(node_request).clear()

    def reset(self, faults: Iterable[str | Fault] = ()) -> ReferenceServer:
        """Serves a fresh world of the same seed through `faults` from the next request on, on the same port: one
        server for many runs, each against a target of its own (nothing the previous app was asked or changed
        stays). A request already being answered finishes with the app it started with."""
        world = World(self.seed)
        self.world, self.app = world, ReferenceApp(world, [fault_named(f) if isinstance(f, str) else f
                                                           for f in faults])
        return self

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def info(self) -> dict[str, object]:
        """What a run needs to test this target."""
        return {"url": self.url, "evm_blockchain_id": self.world.evm_blockchain_id,
                "evm_chain_id": str(self.world.evm_chain_id), "seed": self.world.seed,
                "faults": [fault.name for fault in self.app.faults], "samples": self.world.samples()}

    def start(self) -> ReferenceServer:
        self._threads.append(threading.Thread(target=self._serve, name="reference-http", daemon=True))
        if self.advance_every:
            self._threads.append(threading.Thread(target=self._advance, name="reference-clock", daemon=True))
        for thread in self._threads:
            thread.start()
        return self

    def _serve(self) -> None:
        try:
            self._server.run()
        except (OSError, ValueError):
            # Closing the channels under the running poll loop can end it with EBADF: expected on stop only.
            if not self._stopped.is_set():
                raise

    def _advance(self) -> None:
        while not self._stopped.wait(self.advance_every):
            self.world.advance()

    def stop(self) -> None:
        self._stopped.set()
        logging.getLogger("waitress").setLevel(logging.CRITICAL)
        # Close every open channel (kept-alive connections too), then the listener, so run() returns.
        while self._server._map:
            for channel in list(self._server._map.values()):
                channel.handle_close()
        self._server.task_dispatcher.shutdown()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> ReferenceServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve_foreground(server: ReferenceServer) -> int:
    """Serves until SIGTERM or Ctrl-C, after printing one JSON line with the target's details."""
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server.start()
    print(json.dumps(server.info()), flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    print("reference target stopped", file=sys.stderr)
    return 0
