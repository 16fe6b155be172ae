"""Profiling: lockProfile, memoryProfile, and the CPU profiler's stopped -> profiling -> stopped cycle."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks.admin import empty_object
from conformance.checks.envelope import is_error, result_of
from conformance.clients.jsonrpc import JsonRpcClient

pytestmark = pytest.mark.mutating


@pytest.mark.rule("RPC-ADM-024")
def test_lock_profile_returns_empty_object(admin_api: JsonRpcClient) -> None:
    """admin.lockProfile returns an empty object."""
    empty_object(admin_api.call("admin.lockProfile", {}), "RPC-ADM-024", "admin.lockProfile")


@pytest.mark.rule("RPC-ADM-025")
def test_memory_profile_returns_empty_object(admin_api: JsonRpcClient) -> None:
    """admin.memoryProfile returns an empty object."""
    empty_object(admin_api.call("admin.memoryProfile", {}), "RPC-ADM-025", "admin.memoryProfile")


@pytest.mark.rule("RPC-ADM-026", "RPC-ADM-027", "RPC-ADM-028", "RPC-ADM-029")
def test_cpu_profiler_cycle(admin_api: JsonRpcClient, observe: Callable[[str, Any], None]) -> None:
    """admin.startCPUProfiler from stopped and admin.stopCPUProfiler while profiling each return {}."""
    admin_api.call("admin.stopCPUProfiler", {})  # from an unknown state to stopped; the answer decides nothing
    empty_object(admin_api.call("admin.startCPUProfiler", {}), "RPC-ADM-026", "admin.startCPUProfiler")
    observe("RPC-ADM-028", {"refused": is_error(admin_api.call("admin.startCPUProfiler", {}))})
    empty_object(admin_api.call("admin.stopCPUProfiler", {}), "RPC-ADM-027", "admin.stopCPUProfiler")
    observe("RPC-ADM-029", {"refused": is_error(admin_api.call("admin.stopCPUProfiler", {}))})


@pytest.mark.rule("RPC-ENV-014")
@pytest.mark.parametrize("method", ["admin.lockProfile", "admin.memoryProfile", "admin.loadVMs", "profiler"])
def test_methods_without_parameters_answer_omitted_params(admin_api: JsonRpcClient, method: str) -> None:
    """An Admin method without parameters answers a request that omits params."""
    if method == "profiler":
        admin_api.call("admin.stopCPUProfiler")
        result_of(admin_api.call("admin.startCPUProfiler"), "RPC-ENV-014", "admin.startCPUProfiler without params")
        result_of(admin_api.call("admin.stopCPUProfiler"), "RPC-ENV-014", "admin.stopCPUProfiler without params")
    else:  # answered with a result; that the result is {} is each method's own rule
        result_of(admin_api.call(method), "RPC-ENV-014", f"{method} without params")
