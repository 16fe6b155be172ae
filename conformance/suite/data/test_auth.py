"""Authentication: the API key travels in the documented header and is never printed."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks
from conformance.clients.rest import RestClient
from conformance.config import Target
from conformance.suite.data.conftest import DataApi


@pytest.mark.rule("DATA-AUTH-001")
def test_request_with_the_key_is_served(data: DataApi, target: Target) -> None:
    """A request carrying the configured key in the key header is served."""
    if target.api_key:
        client = data.rest
    else:  # no key configured: use one the target advertises, kept secret like a configured one
        client = RestClient(data.rest.http, data.rest.base_url,
                            send_key={target.api_key_header: data.need("api_key")})
    exchange = client.get(data.path("listBlockchains"), {"pageSize": 1})
    assert target.api_key_header.lower() in {k.lower() for k in exchange.request_headers}
    checks.served(exchange, "DATA-AUTH-001", f"a request with the key in {target.api_key_header}")


@pytest.mark.rule("DATA-AUTH-002")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_request_without_a_key_is_recorded(data: DataApi, observe: Callable[[str, Any], None]) -> None:
    """Whether a request without a key is served is recorded."""
    client = RestClient(data.rest.http, data.rest.base_url, send_key=False)
    exchange = client.get(data.path("listBlockchains"), {"pageSize": 1})
    observe("DATA-AUTH-002", {"status": exchange.status})


@pytest.mark.rule("DATA-AUTH-003")
@pytest.mark.exhaustive   # an observation that needs requests of its own
def test_request_with_a_malformed_key_is_recorded(data: DataApi, target: Target,
                                                  observe: Callable[[str, Any], None]) -> None:
    """What a request with a malformed key answers is recorded."""
    exchange = data.rest.http.request("GET", data.rest.url(data.path("listBlockchains")), params={"pageSize": 1},
                                      headers={target.api_key_header: "not a key"})
    observe("DATA-AUTH-003", {"status": exchange.status})
