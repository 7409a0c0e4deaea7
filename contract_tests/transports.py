"""httpx transport wrappers the suites put between a client and the target.

Wrapping a transport (never monkeypatching httpx) works the same on the
in-process fake and on a real server, so a request snapshot recorded through
:class:`RecordingTransport` holds on both, and latency or outages can be
simulated for any backend that accepts a transport.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = [
    "FailingTransport",
    "RecordedRequest",
    "RecordingTransport",
    "SlowTransport",
]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as it went on the wire (no headers: they carry the api key)."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int | None = None
    origin: str = ""
    """``scheme://host[:port]`` the request went to (not in :meth:`as_dict`: snapshots
    hold on any target)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON form for snapshots; empty query and absent body are left out."""
        data: dict[str, Any] = {"method": self.method, "path": self.path}
        if self.query:
            data["query"] = self.query
        if self.body is not None:
            data["body"] = self.body
        if self.status is not None:
            data["status"] = self.status
        return data


def _decode_body(request: httpx.Request) -> Any:
    raw = request.content
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _record(request: httpx.Request, status: int | None) -> RecordedRequest:
    query: dict[str, list[str]] = {}
    for key, value in request.url.params.multi_items():
        query.setdefault(key, []).append(value)
    return RecordedRequest(
        method=request.method,
        path=request.url.path,
        query=query,
        body=_decode_body(request),
        status=status,
        origin=f"{request.url.scheme}://{request.url.netloc.decode('ascii')}",
    )


class RecordingTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Delegates to ``inner`` and keeps every request (and its status) in order.

    Thread-safe: backends often offload sync calls with ``asyncio.to_thread``.
    A request that failed before a response (connect error) is recorded with
    ``status=None``.
    """

    def __init__(self, inner: httpx.BaseTransport | httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def _append(self, entry: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(entry)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(self.inner, httpx.BaseTransport):
            raise TypeError("the wrapped transport is async-only")
        try:
            response = self.inner.handle_request(request)
        except httpx.TransportError:
            self._append(_record(request, None))
            raise
        self._append(_record(request, response.status_code))
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(self.inner, httpx.AsyncBaseTransport):
            raise TypeError("the wrapped transport is sync-only")
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError:
            self._append(_record(request, None))
            raise
        self._append(_record(request, response.status_code))
        return response

    def close(self) -> None:
        if isinstance(self.inner, httpx.BaseTransport):
            self.inner.close()

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx.AsyncBaseTransport):
            await self.inner.aclose()


class SlowTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Adds ``delay`` seconds before every request: a slow remote, on any target.

    The sync path sleeps the calling thread (exactly what a blocking client does
    to an event loop it runs on); the async path awaits ``asyncio.sleep``.
    """

    def __init__(self, inner: httpx.BaseTransport | httpx.AsyncBaseTransport, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(self.inner, httpx.BaseTransport):
            raise TypeError("the wrapped transport is async-only")
        time.sleep(self.delay)
        return self.inner.handle_request(request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(self.inner, httpx.AsyncBaseTransport):
            raise TypeError("the wrapped transport is sync-only")
        await asyncio.sleep(self.delay)
        return await self.inner.handle_async_request(request)

    def close(self) -> None:
        if isinstance(self.inner, httpx.BaseTransport):
            self.inner.close()


@dataclass
class FailingTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """A remote that is down: every request fails without reaching the target.

    ``mode="http_503"`` answers a Honcho-shaped 503; ``"connect_error"`` raises
    ``httpx.ConnectError``; ``"non_json"`` answers a 200 HTML page.
    """

    mode: str = "http_503"
    attempts: list[str] = field(default_factory=list)

    MODES = ("http_503", "connect_error", "non_json")

    def __post_init__(self) -> None:
        if self.mode not in self.MODES:
            raise ValueError(f"unknown failure mode {self.mode!r}; choose one of {self.MODES}")

    def _fail(self, request: httpx.Request) -> httpx.Response:
        self.attempts.append(f"{request.method} {request.url.path}")
        if self.mode == "connect_error":
            raise httpx.ConnectError("simulated outage: connection refused", request=request)
        if self.mode == "non_json":
            return httpx.Response(200, text="<html>gateway</html>", request=request)
        return httpx.Response(
            503,
            json={"detail": "Service Unavailable"},
            headers={"Retry-After": "0"},
            request=request,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._fail(request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._fail(request)
