"""admin.loadVMs: newVMs maps VM IDs to names; failedVMs maps VM IDs to messages and appears only on failure."""
from __future__ import annotations

import pytest

from conformance.checks import check, independently
from conformance.checks.envelope import result_of
from conformance.checks.members import check_member, properties
from conformance.clients.jsonrpc import JsonRpcClient

RESULT = properties("admin", "LoadVMsResult")


@pytest.mark.mutating
@pytest.mark.rule("RPC-ADM-021", "RPC-ADM-022", "RPC-ADM-023")
@pytest.mark.parametrize("attempt", [1, 2])
def test_load_vms_result(admin_api: JsonRpcClient, attempt: int) -> None:
    """admin.loadVMs gives newVMs, and failedVMs only when a VM failed (never present and empty)."""
    exchange = admin_api.call("admin.loadVMs", {})
    result = result_of(exchange, "RPC-ADM-021", "admin.loadVMs")
    with independently():  # newVMs and failedVMs are decided each whatever the other holds
        check_member("RPC-ADM-021", result, "newVMs", RESULT["newVMs"], api="admin", what="admin.loadVMs result",
                     exchange=exchange)
    failed = result.get("failedVMs") if isinstance(result, dict) else None
    if failed is None:
        return  # absent (or null): no VM failed
    check_member("RPC-ADM-022", result, "failedVMs", RESULT["failedVMs"], api="admin", what="admin.loadVMs result",
                 exchange=exchange)
    check(bool(failed),
          "RPC-ADM-023", "admin.loadVMs carries failedVMs although no VM failed", expected="failedVMs absent "
          "when nothing failed", received=result, exchange=exchange)
