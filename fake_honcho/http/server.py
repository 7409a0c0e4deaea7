"""Serving the fake over real HTTP with uvicorn: in a thread (tests) or the foreground (CLI).

The listening socket is bound (and listening) before uvicorn starts, so the
URL, including a port picked by the OS for port 0, is known up front and clients
that connect early simply wait in the backlog. Responses stream: SSE chunks reach
the client as the app sends them.

At shutdown uvicorn waits :data:`SHUTDOWN_GRACE_SECONDS` for requests in flight and
then cancels them, which it would answer with a 500 and a logged traceback; a
cancelled request here gets a 503 ``{"detail": "fake-honcho is shutting down"}``
instead, or, when its response had already started, a closed connection.
"""

from __future__ import annotations

import asyncio
import errno
import json
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "DROP_EXTENSION",
    "LOG_LEVELS",
    "answer_at_shutdown",
    "bind",
    "close_connection",
    "listen_problem",
    "make_server",
    "run_until_signalled",
    "serve_in_thread",
    "url_of",
]

LOG_LEVELS = {"critical": 50, "error": 40, "warning": 30, "info": 20, "debug": 10, "trace": 5}
STARTUP_TIMEOUT = 30.0
SHUTDOWN_GRACE_SECONDS = 5
SHUTTING_DOWN = json.dumps({"detail": "fake-honcho is shutting down"}).encode()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on accepted sockets whose proto
    # says TCP, and without it every response waits ~40 ms on Nagle + delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


DROP_EXTENSION = "fake_honcho.drop_connection"
"""``scope["extensions"]`` key of an async callable that closes the client's socket."""


async def close_connection(cycle: Any) -> None:
    """Close the socket of uvicorn's request ``cycle`` and wait until uvicorn has noticed.

    uvicorn learns of the closed connection on a later loop iteration; until it does,
    returning without a complete response would make it answer 500 or log an error.
    """
    cycle.transport.close()
    for _ in range(100):
        if getattr(cycle, "disconnected", True):
            return
        await asyncio.sleep(0)


def answer_at_shutdown(app: ASGIApp) -> ASGIApp:
    """``app``, answering a request that shutdown cancels with a 503 or a closed connection.

    It passes uvicorn's own ``send`` inward untouched (``send.__self__`` is the request
    cycle, which tells whether the response started, and which the ``drop`` fault uses).
    """

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await app(scope, receive, send)
        except asyncio.CancelledError:
            cycle: Any = getattr(send, "__self__", None)
            if scope["type"] != "http" or not hasattr(cycle, "response_started"):
                raise
            if cycle.response_started:
                await close_connection(cycle)
                return
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(SHUTTING_DOWN)).encode()),
                (b"connection", b"close"),
            ]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": SHUTTING_DOWN})

    return wrapped


def make_server(
    app: ASGIApp,
    *,
    log_level: str = "warning",
    shutdown_grace: int = SHUTDOWN_GRACE_SECONDS,
    **config: Any,
) -> uvicorn.Server:
    """A uvicorn server for ``app`` (no lifespan: the fake needs no start-up hooks).

    At shutdown, requests in flight get ``shutdown_grace`` seconds to finish.
    """
    return uvicorn.Server(
        uvicorn.Config(
            answer_at_shutdown(app),
            lifespan="off",
            log_level=log_level,
            timeout_graceful_shutdown=shutdown_grace,
            **config,
        )
    )


@contextmanager
def serve_in_thread(app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Run ``app`` on uvicorn in a daemon thread; yield its base URL; stop it on exit.

    Logging is left to the host application (``log_config=None``), so pytest's log
    capture and the caller's handlers are not reconfigured.
    """
    sock = bind(host, port)
    server = make_server(app, log_config=None, access_log=False)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="fake-honcho-serve", daemon=True
    )
    thread.start()
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the fake Honcho server did not start")
            time.sleep(0.002)
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def listen_problem(host: str, port: int, problem: OSError) -> str:
    """Why the socket could not be bound, with the way out when the port is taken."""
    if problem.errno == errno.EADDRINUSE:
        return (
            f"cannot listen on {host}:{port}: the port is in use; "
            "pick another with --port N, or --port 0 for a free one"
        )
    return f"cannot listen on {host}:{port}: {problem.strerror or problem}"


def run_until_signalled(
    server: uvicorn.Server, sock: socket.socket, announce: Callable[[], None]
) -> None:
    """Serve until SIGINT or SIGTERM, then return normally so the caller can clean up.

    uvicorn re-raises the signal that stopped it once it has shut down, which would
    kill the process before the state file is compacted; handlers installed here are
    the ones it restores and re-raises into. They ask the server to stop, so a signal
    that comes between ``announce()`` (which prints the URL a script waits for) and
    uvicorn installing its own handlers stops the server too, instead of being lost.
    """

    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, stop) for sig in signals}
    try:
        announce()
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
