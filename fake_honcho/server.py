"""Serving the fake over real HTTP with uvicorn: in a thread (tests) or the foreground (CLI).

The listening socket is bound (and listening) before uvicorn starts, so the
URL, including a port picked by the OS for port 0, is known up front and clients
that connect early simply wait in the backlog. Responses stream: SSE chunks reach
the client as the app sends them.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp

__all__ = ["bind", "make_server", "serve_in_thread", "url_of"]

STARTUP_TIMEOUT = 30.0
SHUTDOWN_GRACE_SECONDS = 5


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


def make_server(app: ASGIApp, *, log_level: str = "warning", **config: Any) -> uvicorn.Server:
    """A uvicorn server for ``app`` (no lifespan: the fake needs no start-up hooks)."""
    return uvicorn.Server(
        uvicorn.Config(
            app,
            lifespan="off",
            log_level=log_level,
            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
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
