"""REST over HTTP GET/POST against one base URL, every call an Exchange."""
from __future__ import annotations

import json
from typing import Any
from collections.abc import Mapping

from conformance.clients.http import Exchange, HttpSession


class RestClient:
    """Sends requests to one REST API; the API key header goes only where the API documents one."""

    def __init__(self, http: HttpSession, base_url: str, *, send_key: bool | Mapping[str, str] = False) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.send_key = send_key

    def __repr__(self) -> str:
        return f"RestClient({self.base_url!r})"

    def url(self, path: str) -> str:
        return self.base_url + path

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Exchange:
        return self.http.request("GET", self.url(path), params=_wire(params), secret=self.send_key)

    def post(self, path: str, params: Mapping[str, Any] | None = None, json_body: Any = None) -> Exchange:
        body = None if json_body is None else json.dumps(json_body).encode()
        return self.http.request("POST", self.url(path), params=_wire(params),
                                 headers={"content-type": "application/json"}, body=body, secret=self.send_key)


def _wire(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Query values as they travel: booleans lower-case, None left out."""
    if params is None:
        return None
    wired: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        wired[name] = ("true" if value else "false") if isinstance(value, bool) else value
    return wired
