"""What wraps the reference's handlers like middleware (a fault, a variant), and how the wrappers chain.

Every hook receives the call and `proceed`, the next handler, and may change the call before it, the answer after
it, or answer itself.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar
from collections.abc import Callable

from conformance.reference.calls import HttpReply, RestCall, RpcCall, RpcHttp

if TYPE_CHECKING:
    from conformance.reference.world import World

RpcProceed = Callable[[RpcCall], "dict | None"]
RpcHttpProceed = Callable[[RpcHttp], HttpReply]
RestProceed = Callable[[RestCall], HttpReply]


class Fault:
    """A deviation from the documents; subclasses set `breaks` and override one hook."""

    breaks: ClassVar[tuple[str, ...]] = ()
    #: Rule IDs whose tests may also fail as a side effect (kept apart from `breaks`, which must fail).
    also: ClassVar[tuple[str, ...]] = ()
    #: A form real implementations answer that contradicts the documents: it must fail `breaks` and leave every
    #: other rule's verdict as it is on the clean reference (tests/test_real_forms.py proves it).
    real: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return type(self).__name__

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0]

    def attach(self, world: World) -> None:
        """Called once with the world the reference serves, before any request: a fault whose deviation depends on
        the world's identifiers (the two spellings of one chain) keeps what it needs."""

    def rpc_http(self, request: RpcHttp, proceed: RpcHttpProceed) -> HttpReply:
        """A whole JSON-RPC HTTP exchange (raw body in, HTTP reply out)."""
        return proceed(request)

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        """One JSON-RPC call: returns the response object (None for a notification)."""
        return proceed(call)

    def rest(self, call: RestCall, proceed: RestProceed) -> HttpReply:
        """One REST request."""
        return proceed(call)


def chain(faults: list[Fault], hook: str, handler: Callable) -> Callable:
    """`handler` wrapped by each fault's `hook`, the first fault outermost."""
    proceed = handler
    for fault in reversed(faults):
        method = getattr(fault, hook)
        if getattr(type(fault), hook) is getattr(Fault, hook):
            continue  # the fault does not touch this hook: skip a needless frame on the hot path
        proceed = _bind(method, proceed)
    return proceed


def _bind(method: Callable, proceed: Callable) -> Callable:
    return lambda call: method(call, proceed)
