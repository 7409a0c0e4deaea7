"""httpx transports that run an ASGI app in-process, with no sockets and no per-request threads.

The sync transport runs each request on the calling thread. Most requests never
wait on anything, so the app's coroutine is stepped directly, with the thread's own
event loop (one per thread, created on first use, kept for the thread's life)
installed as the running loop. The first time the coroutine really suspends (a
sleep, a worker thread, an event), it is handed, mid-flight, to a task on that loop,
which runs it to the end. A request thus costs no loop iteration unless it needs
one, and never a hop to another thread. A caller that is already inside a running
loop (a sync client used from async code) cannot lend its thread, so those calls go
to one persistent background loop thread instead. The fake's state holds no asyncio
objects, so which loop runs a request does not matter.

The direct step runs without a current task; code that needs one (anyio cancel
scopes, task groups) must first await a checkpoint, as anyio's own ``to_thread``
does, so that it runs after the hand-off. A task the app spawns without awaiting
runs only when that thread's loop next runs. Each request runs in a copy of the
caller's context, so context variables the app sets do not leak out.

Both transports buffer the response body: a streamed (SSE) response arrives whole,
after the app has finished it. Use ``FakeHoncho.serve()`` to see chunks as they are sent.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import types
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

import httpx
from starlette.types import ASGIApp, Message, Scope

__all__ = ["AsyncASGITransport", "SyncASGITransport"]

T = TypeVar("T")

# ASGI 2.4 lets responses skip the disconnect-listening task group: the app never
# needs a second ``receive`` while it streams, which keeps the common path free of tasks.
_ASGI = {"version": "3.0", "spec_version": "2.4"}
_CLIENT = ("127.0.0.1", 50000)


def _scope(request: httpx.Request) -> Scope:
    url = request.url
    port = url.port or (443 if url.scheme == "https" else 80)
    raw_path, _, query = url.raw_path.partition(b"?")
    return {
        "type": "http",
        "asgi": _ASGI,
        "http_version": "1.1",
        "method": request.method,
        "scheme": url.scheme,
        # url.path is the raw path unquoted, which leaves one without "%" as it is
        "path": url.path if b"%" in raw_path else raw_path.decode("ascii"),
        "raw_path": raw_path,
        "query_string": query,
        "root_path": "",
        "headers": _lowered(request.headers),
        "client": _CLIENT,
        "server": (url.host, port),
        "extensions": {},
    }


def _lowered(headers: httpx.Headers) -> list[tuple[bytes, bytes]]:
    """The headers as ASGI lists them, names lowercased. httpx keeps each header as (raw
    name, lowercased name, value), so they are taken from there rather than lowercased
    again (any other layout: from the public ``raw``)."""
    try:
        return [(name, value) for _, name, value in headers._list]
    except (AttributeError, ValueError):  # pragma: no cover - an httpx that keeps them otherwise
        return [(name.lower(), value) for name, value in headers.raw]


class _Exchange:
    """One request through the app: feeds the body in, collects the response."""

    __slots__ = ("_body", "_body_sent", "_done", "chunks", "headers", "status")

    def __init__(self, body: bytes) -> None:
        self._body = body
        self._body_sent = False
        self._done: asyncio.Event | None = None
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: list[bytes] = []

    async def receive(self) -> Message:
        if not self._body_sent:
            self._body_sent = True
            return {"type": "http.request", "body": self._body, "more_body": False}
        # The client stays connected until the response is complete, as over a socket.
        if self._done is None:
            self._done = asyncio.Event()
        await self._done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", ()))
        elif kind == "http.response.body":
            self.chunks.append(message.get("body", b""))
            if not message.get("more_body", False) and self._done is not None:
                self._done.set()

    async def run(self, app: ASGIApp, scope: Scope, raise_app_exceptions: bool) -> None:
        try:
            await app(scope, self.receive, self.send)
        except Exception:
            if raise_app_exceptions or self.status is None:
                raise
        finally:
            if self._done is not None:
                self._done.set()

    def response(self, request: httpx.Request) -> httpx.Response:
        if self.status is None:  # pragma: no cover - only an app that never answers
            raise RuntimeError("the ASGI app returned without sending a response")
        return httpx.Response(
            self.status,
            headers=self.headers,
            stream=httpx.ByteStream(b"".join(self.chunks)),
            request=request,
        )


class _LoopHolder:
    """Owns one thread's private event loop and closes it when the thread's locals die."""

    __slots__ = ("loop",)

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __del__(self) -> None:
        if not self.loop.is_running():
            self.loop.close()


_thread_loops = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    holder: _LoopHolder | None = getattr(_thread_loops, "holder", None)
    if holder is None or holder.loop.is_closed():
        holder = _thread_loops.holder = _LoopHolder()
    return holder.loop


def _step_on_this_thread(coro: Coroutine[Any, Any, None], loop: asyncio.AbstractEventLoop) -> None:
    """Run ``coro`` here; if it suspends, finish it as a task on ``loop`` (idle, this thread's)."""
    context = contextvars.copy_context()
    asyncio.events._set_running_loop(loop)
    try:
        awaited = context.run(coro.send, None)
    except StopIteration:
        return
    finally:
        asyncio.events._set_running_loop(None)
    loop.run_until_complete(loop.create_task(_finish(coro, awaited), context=context))


async def _finish(coro: Coroutine[Any, Any, None], awaited: Any) -> None:
    await _resume(coro, awaited)


@types.coroutine
def _resume(coro: Coroutine[Any, Any, None], awaited: Any) -> Generator[Any, None, None]:
    """Continue a suspended coroutine inside a task: re-yield what it waits on, then delegate."""
    try:
        yield awaited
    except BaseException as error:  # delivered while it waited, e.g. cancellation
        try:
            awaited = coro.throw(error)
        except StopIteration:
            return
        yield from _resume(coro, awaited)
        return
    yield from coro  # type: ignore[misc]


class _BackgroundLoop:
    """A persistent event loop on a daemon thread, for callers already inside a loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="fake-honcho-transport", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class SyncASGITransport(httpx.BaseTransport):
    """Run ``app`` for a sync ``httpx.Client``; responses are buffered (see module doc).

    ``raise_app_exceptions`` re-raises an exception that escapes the app (a fake bug)
    in the caller instead of returning the 500 that Starlette sends for it.
    """

    def __init__(self, app: ASGIApp, *, raise_app_exceptions: bool = True) -> None:
        self.app = app
        self.raise_app_exceptions = raise_app_exceptions
        self._background: _BackgroundLoop | None = None
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange = _Exchange(request.read())
        self._run(exchange.run(self.app, _scope(request), self.raise_app_exceptions))
        return exchange.response(request)

    def _run(self, coro: Coroutine[Any, Any, None]) -> None:
        # _get_running_loop: get_running_loop() without raising (and catching) an error.
        if asyncio.events._get_running_loop() is None:
            _step_on_this_thread(coro, _thread_loop())
            return
        self._background_loop().run(coro)

    def _background_loop(self) -> _BackgroundLoop:
        with self._lock:
            if self._background is None:
                self._background = _BackgroundLoop()
            return self._background

    def close(self) -> None:
        with self._lock:
            background, self._background = self._background, None
        if background is not None:
            background.close()


class AsyncASGITransport(httpx.AsyncBaseTransport):
    """Run ``app`` on the caller's event loop for an ``httpx.AsyncClient``; buffered."""

    def __init__(self, app: ASGIApp, *, raise_app_exceptions: bool = True) -> None:
        self.app = app
        self.raise_app_exceptions = raise_app_exceptions

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        exchange = _Exchange(await request.aread())
        await exchange.run(self.app, _scope(request), self.raise_app_exceptions)
        return exchange.response(request)
