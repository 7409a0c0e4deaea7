"""Raw requests to a server over a fresh socket, or to the fake's ASGI app in-process.

No client library sits between the probe and the server: the request is the bytes
:func:`raw_request` builds, and the answer is read off the socket by hand (every request
says ``Connection: close``, so the answer ends where the stream does). In-process, the
same bytes are parsed into the ASGI scope uvicorn would build (:func:`asgi_scope`).

:func:`view` reduces an answer to what is compared: the status, the headers a client
can act on (all but date, server and length), and the body, JSON normalised
(:func:`fake_honcho.drift.normalise.normalise`: ids, timestamps, the workspace name).
"""

from __future__ import annotations

import gzip
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from fake_honcho.drift.normalise import Normaliser
from tests.fidelity.raw.probes import Request

IGNORED_HEADERS = frozenset({"date", "server", "content-length", "connection", "transfer-encoding"})


@dataclass(frozen=True)
class Answer:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def resolve(template: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def raw_request(request: Request, values: dict[str, str], host: str) -> bytes:
    body = None
    if request.body is not None:
        body = resolve(request.body, values).encode("utf-8", "surrogateescape")
        if request.gzip:
            body = gzip.compress(body, mtime=0)
    lines = [f"{request.method} {resolve(request.target, values)} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in request.headers]
    if body is not None:
        if request.chunked:
            lines.append("Transfer-Encoding: chunked")
            body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if body else b"0\r\n\r\n"
        else:
            lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


def send(base_url: str, request: Request, values: dict[str, str], timeout: float = 60) -> Answer:
    """``request`` on a fresh connection to ``base_url``."""
    where = urlsplit(base_url)
    assert where.hostname is not None and where.port is not None
    data = raw_request(request, values, f"{where.hostname}:{where.port}")
    with socket.create_connection((where.hostname, where.port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return parse_response(b"".join(chunks), head=request.method.upper() == "HEAD")


def parse_response(data: bytes, *, head: bool) -> Answer:
    header_block, _, body = data.partition(b"\r\n\r\n")
    lines = header_block.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = tuple(
        (name.strip().lower(), value.strip())
        for name, _, value in (line.partition(":") for line in lines[1:])
    )
    if head:
        body = b""
    elif ("transfer-encoding", "chunked") in headers:
        body = _dechunk(body)
    return Answer(status, headers, body)


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return bytes(out)


def asgi_scope(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The scope and body uvicorn gives an app for the raw request ``data``."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    method, target, _ = lines[0].split(b" ", 2)
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers.append((name.strip().lower(), value.strip()))
    if (b"transfer-encoding", b"chunked") in headers:
        body = _dechunk(body)
    raw_path, _, query = target.partition(b"?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000),
        "scheme": "http",
        "method": method.decode("ascii"),
        "root_path": "",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "query_string": query,
        "headers": headers,
        "state": {},
    }
    return scope, body


IN_PROCESS_HOST = "127.0.0.1:8000"


async def call_app(app: Any, request: Request, values: dict[str, str]) -> Answer:
    """``request`` through the ASGI ``app`` as uvicorn would hand it over."""
    scope, body = asgi_scope(raw_request(request, values, IN_PROCESS_HOST))
    sent = False
    started: dict[str, Any] = {}
    parts: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send_(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.update(message)
        elif message["type"] == "http.response.body":
            parts.append(message.get("body", b""))

    try:
        await app(scope, receive, send_)
    except Exception:
        if not started:  # uvicorn's own answer to an app that fails before answering
            return Answer(
                500, (("content-type", "text/plain; charset=utf-8"),), b"Internal Server Error"
            )
    headers = tuple(
        (name.decode("latin-1").lower(), value.decode("latin-1"))
        for name, value in started.get("headers", ())
    )
    head = request.method.upper() == "HEAD"
    return Answer(started["status"], headers, b"" if head else b"".join(parts))


def capture(answer: Answer, where: str) -> str:
    data: Any = json.loads(answer.body)
    for key in where.split("."):
        data = data[int(key)] if isinstance(data, list) else data[key]
    return str(data)


def view(
    answer: Answer, literals: list[str], host: str, *, volatile: bool = False
) -> dict[str, Any]:
    """What is compared of ``answer`` (see the module docstring); ``host`` is the Host the
    request named (a redirect's location holds it)."""
    normaliser = Normaliser(literals)
    headers: dict[str, str] = {}
    for name, value in answer.headers:
        if name not in IGNORED_HEADERS:
            value = normaliser(value.replace(host, "<host>"))
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
    body: Any
    if volatile and 200 <= answer.status < 300:
        body = "<volatile>"
    else:
        try:
            body = normaliser(json.loads(answer.body))
        except ValueError:
            body = normaliser(answer.body.decode("utf-8", "replace"))
    return {"status": answer.status, "headers": dict(sorted(headers.items())), "body": body}
