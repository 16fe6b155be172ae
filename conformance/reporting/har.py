"""`--har FILE`: every exchange of a run, written as it completes to a HAR 1.2 archive, the API key never in it.

A run can send tens of thousands of requests: each entry is written to the file when its exchange completes and
nothing of it is kept, so the archive's size never shows in the run's memory. The archive is valid JSON once the
run ends, however it ends (the closing brackets are written when the run's HTTP session closes, and again, at most
once, when the session ends). Each entry's `_id` is the exchange's number in the run: what report.json's
evidence names.
"""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import http
import json
import re
import threading
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from conformance.clients.http import (KEEP_WHOLE, KEPT_HEAD, KEPT_TAIL, SECRET_PLACEHOLDER, Exchange, FailedAttempt,
                                      redacted)

HAR_VERSION = "1.2"
#: Query parameters that carry credentials on some services: their values never reach the archive.
_SECRET_PARAMETER = re.compile(r"^(x-)?(api[-_]?key|apikey|key|access[-_]?token|auth|token|secret|password)$", re.I)


class HarWriter:
    """Streams the exchanges of one run to a HAR file; a listener of the run's HttpSession, safe across threads."""

    def __init__(self, path: str | Path, *, secrets: tuple[str, ...] = (), creator_version: str = "") -> None:
        self.path = Path(path)
        self.secrets = tuple(secret for secret in secrets if secret)
        self.entries = 0
        self._lock = threading.Lock()
        self._closed = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = self.path.open("w", encoding="utf-8")
        creator = {"name": "conformance", "version": creator_version}
        head = json.dumps({"version": HAR_VERSION, "creator": creator})
        # The log object is opened, its entries array written one entry at a time, and closed by close().
        self._file.write('{"log": ' + head[:-1] + ', "entries": [\n')

    def __call__(self, exchange: Exchange) -> None:
        """Writes one completed exchange (the HttpSession listener)."""
        text = json.dumps(self.entry(exchange), ensure_ascii=False)
        with self._lock:
            if self._closed:
                return
            self._file.write((",\n" if self.entries else "") + text)
            self.entries += 1

    def close(self, comment: str | None = None) -> None:
        """Ends the archive: the entries array and the log object are closed; later exchanges are not written."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            tail = f', "comment": {json.dumps(comment)}' if comment else ""
            self._file.write(f"\n]{tail}}}}}\n")
            self._file.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def entry(self, exchange: Exchange) -> dict[str, Any]:
        """One HAR 1.2 entry for `exchange`, the API key replaced by its placeholder wherever it shows."""
        elapsed_ms = round(exchange.elapsed * 1000, 3)
        url = self._url(exchange.url)
        request_body = exchange.request_body
        request: dict[str, Any] = {
            "method": exchange.method, "url": url, "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": _headers(exchange.request_headers),
            "queryString": [{"name": name, "value": value} for name, value in _query(url)],
            "headersSize": -1, "bodySize": len(request_body) if request_body is not None else 0}
        if request_body is not None:
            request["postData"] = {"mimeType": _header(exchange.request_headers, "content-type") or "",
                                   "text": request_body.decode("utf-8", "replace")}
        content, comment = _content(exchange)
        status = exchange.status or 0
        response: dict[str, Any] = {
            "status": status, "statusText": _status_text(status), "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": _headers(exchange.response_headers), "content": content,
            "redirectURL": exchange.response_headers.get("location", "") if 300 <= status < 400 else "",
            "headersSize": -1, "bodySize": content["size"]}
        if comment:
            response["comment"] = comment
        if isinstance(exchange, FailedAttempt):
            # HAR's way for a request that got no answer: status 0, and why in `_error`
            response["_error"] = exchange.fault
        entry = {
            "_id": exchange.number,
            "startedDateTime": dt.datetime.fromtimestamp(exchange.sent_at or 0, dt.UTC).isoformat(
                timespec="milliseconds"),
            "time": elapsed_ms, "request": request, "response": response, "cache": {},
            # The session measures an exchange whole: its time is all waiting for the answer.
            "timings": {"send": 0, "wait": elapsed_ms, "receive": 0}}
        result: dict[str, Any] = redacted(entry, self.secrets)
        return result

    def _url(self, url: str) -> str:
        """The URL without user or password, a credential-like query parameter's value replaced."""
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        query = parts.query
        if query and any(_SECRET_PARAMETER.match(name) for name, _ in parse_qsl(query, keep_blank_values=True)):
            query = "&".join(_hide_parameter(pair) for pair in query.split("&"))
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _hide_parameter(pair: str) -> str:
    name, sep, _ = pair.partition("=")
    return f"{name}{sep}{SECRET_PLACEHOLDER}" if sep and _SECRET_PARAMETER.match(name) else pair


def _query(url: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(url).query, keep_blank_values=True)


def _headers(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers.items()]


def _header(headers: dict[str, str], name: str) -> str | None:
    return next((value for key, value in headers.items() if key.lower() == name), None)


def _status_text(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


def _content(exchange: Exchange) -> tuple[dict[str, Any], str | None]:
    """The response's content object, and a comment when the body written is not the whole body."""
    body = exchange.body
    size = exchange.body_size if exchange.trimmed else len(body)
    digest = exchange.body_digest
    if not exchange.trimmed and len(body) > KEEP_WHOLE:
        # The same bound as the run keeps in memory: the archive holds a large body's first and last bytes.
        digest = hashlib.blake2b(body, digest_size=16).hexdigest()
        body = body[:KEPT_HEAD] + body[-KEPT_TAIL:]
    comment = (f"body of {size} bytes (blake2b-128 {digest}); only its first {KEPT_HEAD} and last {KEPT_TAIL} bytes "
               f"are written") if digest is not None else None
    content: dict[str, Any] = {"size": size, "mimeType": exchange.content_type or ""}
    try:
        # A cut body may end inside a character: what is kept is text all the same.
        content["text"] = body.decode("utf-8", "replace" if comment else "strict")
    except UnicodeDecodeError:
        content["text"] = base64.b64encode(body).decode("ascii")
        content["encoding"] = "base64"
    if comment:
        content["comment"] = comment
    return content, comment
