"""``fake-honcho proxy --upstream URL --record DIR``: record a client's traffic with a Honcho.

A reverse proxy any client, in any language, points its base URL at. Every request goes
to the upstream unchanged (its headers, the ``Authorization`` one included, and its body
as sent); the client gets the upstream's answer unchanged, a chat's SSE stream passing
through chunk by chunk as it arrives. Each exchange is appended to ``DIR/exchanges.jsonl``
when it ends (the format: :mod:`fake_honcho.drift.traffic`), without any header but the
content types, so a key never reaches the disk; ``--redact`` replaces private text
(:mod:`fake_honcho.drift.redact`). What the upstream serves is probed once, at start
(with ``--api-key``, or the first key a client sends when the upstream asks for one), and
written to ``DIR/server.json`` for ``fake-honcho replay``.

At shutdown (SIGINT or SIGTERM) it prints how many exchanges it recorded and what it
added to each: the proxy's own time per request beside the server's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

import anyio
import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from fake_honcho.arguments import OneLineParser, port
from fake_honcho.drift.probe import probe_server
from fake_honcho.drift.redact import Redactor
from fake_honcho.drift.traffic import (
    EXCHANGES,
    Exchange,
    ServerInfo,
    append_exchange,
    decode_body,
    without_credentials,
    write_server,
)
from fake_honcho.http.server import bind, listen_problem, make_server, run_until_signalled, url_of

__all__ = ["Recorder", "build_app", "build_parser", "main"]

PROG = "fake-honcho proxy"
API_KEY_ENV = "HONCHO_API_KEY"
# RFC 9110's connection-specific headers: never forwarded, either way
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
    }
)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


@dataclass
class Recorder:
    """Where and how exchanges are written, and the timings kept for the summary."""

    directory: Path
    upstream: str
    redactor: Redactor | None = None
    info: ServerInfo | None = None
    count: int = 0
    """Requests so far (each exchange's ``seq``)."""
    proxy_ms: list[float] = field(default_factory=list)
    upstream_ms: list[float] = field(default_factory=list)
    _probe_lock: anyio.Lock = field(default_factory=anyio.Lock)
    _write_lock: threading.Lock = field(default_factory=threading.Lock)

    def next_seq(self) -> int:
        self.count += 1
        return self.count

    def write(self, exchange: Exchange) -> None:
        if self.redactor is not None:
            exchange = self.redactor.exchange(exchange)
        with self._write_lock:  # background tasks run on worker threads: one line at a time
            append_exchange(self.directory, exchange)
        if exchange.proxy_ms is not None and exchange.upstream_ms is not None:
            self.proxy_ms.append(exchange.proxy_ms)
            self.upstream_ms.append(exchange.upstream_ms)

    def probe(self, key: str | None) -> None:
        """What the upstream serves, into ``server.json`` (once it can be asked)."""
        listed = httpx.post(f"{self.upstream}/v3/workspaces/list", json={}, timeout=30)
        auth = listed.status_code == 401
        if auth and not key:  # asked again with the first key a client sends
            return
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        with httpx.Client(base_url=self.upstream, headers=headers, timeout=30) as client:
            served = probe_server(client)
        self.info = ServerInfo(
            without_credentials(self.upstream), served, auth, self.redactor is not None
        )
        write_server(self.directory, self.info)

    async def probe_once(self, authorization: str | None) -> None:
        if self.info is not None or authorization is None:
            return
        async with self._probe_lock:
            if self.info is None:
                key = authorization.removeprefix("Bearer ").strip()
                await anyio.to_thread.run_sync(self.probe, key)

    def summary(self) -> str:
        if not self.proxy_ms:
            return f"{PROG}: no exchange recorded in {self.directory}"
        return (
            f"{PROG}: {len(self.proxy_ms)} exchanges recorded in {self.directory / EXCHANGES}; "
            f"proxy overhead per request: median {_ms(statistics.median(self.proxy_ms))}, "
            f"p95 {_ms(_p95(self.proxy_ms))}; the server's own time: median "
            f"{_ms(statistics.median(self.upstream_ms))}, p95 {_ms(_p95(self.upstream_ms))}"
        )


def build_app(recorder: Recorder, client: httpx.AsyncClient) -> Starlette:
    """The proxy: every path and method forwarded to ``client``'s base URL."""

    async def forward(request: Request) -> Response:
        began = time.perf_counter()
        seq = recorder.next_seq()
        await recorder.probe_once(request.headers.get("authorization"))
        content = await request.body()
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        query = request.scope.get("query_string", b"")
        target = raw_path.decode("latin-1") + ("?" + query.decode("latin-1") if query else "")
        headers = [(k, v) for k, v in request.headers.raw if k.decode().lower() not in HOP_BY_HOP]
        upstream_request = client.build_request(
            request.method,
            client.base_url.copy_with(raw_path=target.encode("latin-1")),
            headers=headers,
            content=content,
        )
        sent = time.perf_counter()
        try:
            try:
                answer = await client.send(upstream_request, stream=True)
            except (httpx.ReadError, httpx.RemoteProtocolError):
                # a kept-alive connection the server closed (uvicorn does after an
                # unhandled 500) fails before any answer: once more, on a new connection
                answer = await client.send(upstream_request, stream=True)
        except httpx.HTTPError as error:
            detail = f"{PROG}: the upstream did not answer ({type(error).__name__})"
            print(detail, file=sys.stderr)
            return Response(detail, status_code=502)
        request_type = request.headers.get("content-type", "")
        response_type = answer.headers.get("content-type", "")
        passed = [(k, v) for k, v in answer.headers.raw if k.decode().lower() not in HOP_BY_HOP]

        def exchange(body: bytes, upstream_ms: float, proxy_ms: float) -> Exchange:
            return Exchange(
                seq,
                request.method,
                target,
                decode_body(content, request_type),
                answer.status_code,
                decode_body(body, response_type),
                request_type=request_type,
                response_type=response_type,
                upstream_ms=upstream_ms,
                proxy_ms=proxy_ms,
            )

        if response_type.startswith("text/event-stream"):
            return _streamed(answer, passed, began, sent, exchange, recorder)
        body = b"".join([chunk async for chunk in answer.aiter_raw()])  # as sent, encoded or not
        await answer.aclose()
        received = time.perf_counter()
        upstream_ms = (received - sent) * 1000
        proxy_ms = (sent - began) * 1000  # the rest is measured once the answer is built
        response = Response(body, status_code=answer.status_code)
        response.raw_headers = passed
        done = time.perf_counter()
        record = exchange(body, upstream_ms, proxy_ms + (done - received) * 1000)
        response.background = BackgroundTask(recorder.write, record)
        return response

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)])


def _streamed(
    answer: httpx.Response,
    headers: list[tuple[bytes, bytes]],
    began: float,
    sent: float,
    exchange: Callable[[bytes, float, float], Exchange],
    recorder: Recorder,
) -> StreamingResponse:
    """An SSE answer passed on chunk by chunk; recorded once it ends."""
    chunks: list[bytes] = []
    overhead = (sent - began) * 1000

    async def relay() -> AsyncIterator[bytes]:
        try:
            async for chunk in answer.aiter_raw():
                chunks.append(chunk)
                yield chunk
        finally:
            await answer.aclose()
            upstream_ms = (time.perf_counter() - sent) * 1000
            recorder.write(exchange(b"".join(chunks), upstream_ms, overhead))

    response = StreamingResponse(relay(), status_code=answer.status_code)
    response.raw_headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    return response


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _ms(value: float) -> str:
    return f"{value:.2f} ms"


def error(message: str) -> int:
    """One line, as argparse writes an error, without the usage; exit status 1."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Forward every request to a Honcho server unchanged and record each "
        "exchange, for `fake-honcho replay`.",
    )
    parser.add_argument("--upstream", required=True, metavar="URL", help="the Honcho server")
    parser.add_argument("--record", required=True, metavar="DIR", type=Path, help="where to write")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (%(default)s)")
    parser.add_argument(
        "--port", type=port, default=8010, help="port to bind; 0 picks a free one (%(default)s)"
    )
    parser.add_argument(
        "--redact",
        action="store_true",
        help="replace message contents, queries and metadata values with placeholders "
        "of the same length and token count",
    )
    parser.add_argument(
        "--api-key",
        help=f"key for probing an upstream with auth on (default: ${API_KEY_ENV}, else the "
        "first key a client sends; never written)",
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = build_parser().parse_args(argv)
    upstream = args.upstream.rstrip("/")
    if urlsplit(upstream).scheme not in ("http", "https") or not urlsplit(upstream).netloc:
        return error(f"--upstream must be an http(s) URL, got {args.upstream!r}")
    directory: Path = args.record
    if (directory / EXCHANGES).exists():
        return error(f"{directory / EXCHANGES} exists; record into a new directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as problem:
        return error(f"cannot create {directory}: {problem.strerror or problem}")
    key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV) or None
    recorder = Recorder(directory, upstream, Redactor() if args.redact else None)
    try:
        recorder.probe(key)
    except httpx.HTTPError as problem:
        shown = without_credentials(upstream)
        return error(f"{shown} is not a reachable Honcho ({type(problem).__name__})")
    try:
        sock = bind(args.host, args.port)
    except OSError as problem:
        return error(listen_problem(args.host, args.port, problem))
    # no timeout: a chat stream or a slow dialectic call takes as long as the server does
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=32)
    client = httpx.AsyncClient(base_url=upstream, timeout=None, limits=limits)
    client.headers.clear()  # the client's own headers only, none of httpx's defaults
    with sock:
        server = make_server(build_app(recorder, client), log_level="warning")
        url = url_of(sock)
        run_until_signalled(server, sock, lambda: print(url, flush=True))
    print(recorder.summary(), file=out, flush=True)
    return 0
