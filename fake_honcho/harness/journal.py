"""The request journal: every request the fake received, in arrival order, with its status.

The journal middleware is the outermost layer of the fake's stack, so it also records
requests that auth refused or that a fault rule answered. A middleware that injects a
fault marks the request by setting ``scope[FAULT_SCOPE_KEY]`` to a short description;
the journal copies it into the entry's ``fault`` field. The journal buffers each body
anyway, so it also leaves it under ``scope[BODY_SCOPE_KEY]``, where handlers read it
(``fake_honcho.http.endpoint.read_json``) instead of streaming it a second time.
"""

from __future__ import annotations

import json
import sys
import threading
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fake_honcho.http.http_rules import (
    BODY_SCOPE_KEY,
    IGNORED_SCOPE_KEY,
    JSON_SCOPE_KEY,
    header,
)
from fake_honcho.http.wire import escaped

_escape = json.encoder.encode_basestring  # a str as json.dumps(ensure_ascii=False) writes it

__all__ = [
    "BODY_SCOPE_KEY",
    "FAULT_SCOPE_KEY",
    "JSON_SCOPE_KEY",
    "Journal",
    "JournalEntry",
    "JournalMiddleware",
    "Recording",
    "journaled",
    "recording",
]

FAULT_SCOPE_KEY = "fake_honcho.fault"


class JournalEntry:
    """One request: ``method``, ``path``, ``query``, ``json``, ``status`` and ``fault``;
    ``ignored``, the fields the fake's version dropped (``body.scope``, ``query.sessions``:
    see ``fake_honcho.http.ignored``), and ``honcho_host``, the client's ``X-Honcho-Host``
    header (today's SDKs name themselves there: ``honcho-python/2.7.0 (linux)``).

    ``status`` is None when no response was sent (e.g. a fault dropped the connection);
    ``json`` is the decoded request body, or None when the body is empty or not JSON
    (``body`` keeps the raw bytes, e.g. of a multipart upload). A body does not double
    the memory its content takes: long strings a handler decoded from it (and usually
    stored, such as message content) are kept by reference in place of their bytes,
    even in a one-message body, and any other large body is kept zlib-compressed.
    """

    __slots__ = (
        "_packed",
        "fault",
        "honcho_host",
        "ignored",
        "method",
        "path",
        "query_string",
        "status",
    )

    def __init__(
        self,
        method: str,
        path: str,
        query_string: str,
        body: bytes,
        status: int | None,
        fault: str | None = None,
        decoded: Any = None,
        ignored: tuple[str, ...] = (),
        honcho_host: str | None = None,
    ) -> None:
        self.method = method
        self.path = path
        self.query_string = query_string
        self._packed = _pack(body, decoded)
        self.status = status
        self.fault = fault
        self.ignored = ignored
        self.honcho_host = honcho_host

    @property
    def body(self) -> bytes:
        """The raw request body."""
        packed = self._packed
        if isinstance(packed, bytes):
            return packed
        if isinstance(packed, tuple):
            return _join(packed)
        return zlib.decompress(packed.data)

    @property
    def query(self) -> dict[str, str | list[str]]:
        """Query parameters; a parameter given more than once maps to the list of its values."""
        params: dict[str, str | list[str]] = {}
        for name, value in parse_qsl(self.query_string, keep_blank_values=True):
            if name not in params:
                params[name] = value
                continue
            previous = params[name]
            params[name] = [*previous, value] if isinstance(previous, list) else [previous, value]
        return params

    @property
    def json(self) -> Any:
        body = self.body
        if not body:
            return None
        try:
            return json.loads(body)
        except ValueError:
            return None

    def __repr__(self) -> str:
        target = f"{self.path}?{self.query_string}" if self.query_string else self.path
        fault = f" fault={self.fault!r}" if self.fault else ""
        ignored = f" ignored={list(self.ignored)}" if self.ignored else ""
        return f"<JournalEntry {self.method} {target} -> {self.status}{fault}{ignored}>"


class _Compressed:
    """A zlib-compressed body (a distinct type, so raw bytes never need a flag)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


Spliced = tuple[bytes | str, ...]
"""A body as its bytes, with long JSON strings held as the decoded ``str`` objects
(a bare tuple, the type that tells it from the other forms: a wrapper would cost
more than a one-message body's framing).

Each ``str`` piece stands for exactly its JSON encoding (quotes included), which the
body held at that place: joining the pieces gives the body back byte for byte.
"""


def _join(pieces: Spliced) -> bytes:
    return b"".join(
        piece if isinstance(piece, bytes) else _escape(piece).encode() for piece in pieces
    )


COMPRESS_FROM = 1024  # bytes; below this, compression saves little and costs a call
SPLICE_FROM = 64  # characters; a shorter string is cheaper kept as bytes


def _pack(body: bytes, decoded: Any = None) -> bytes | _Compressed | Spliced:
    # Even a one-message body is mostly its content, which the store keeps too.
    spliced = _splice(body, decoded) if decoded is not None and len(body) > SPLICE_FROM else None
    if spliced is not None:
        return spliced
    if len(body) < COMPRESS_FROM:
        return body
    packed = zlib.compress(body, 1)
    return _Compressed(packed) if len(packed) < len(body) else body


def _splice(body: bytes, decoded: Any) -> Spliced | None:
    """``body`` with its long decoded strings cut out; None when it holds none as sent.

    A string is found by its JSON encoding with ``ensure_ascii=False``, as httpx and
    the official SDK send it; one sent with other escapes simply stays in the bytes.
    The bytes between strings recur (a batch's messages share their keys and authors,
    and requests to one session their framing), so equal short pieces are kept as one
    object (:data:`_PIECES`).
    """
    if type(decoded) is not dict and type(decoded) is not list:
        return None
    try:
        strings = _long_strings(decoded, [])
    except RecursionError:  # nested deeper than a walk can go: the body is compressed
        return None
    pieces: list[bytes | str] = []
    start = 0
    # ``decoded`` is this body's JSON, and JSON escapes all start with a backslash:
    # without one in the body, no string in it holds a character that needs escaping,
    # so each is written as its UTF-8 bytes in quotes and needs no escaping to be found.
    plain = b"\\" not in body
    for text in strings:
        encoded = _quoted(text) if plain else _json_string(text)
        at = _find(body, encoded, start) if encoded is not None else -1
        if at < 0:
            continue
        pieces += (_shared_piece(body[start:at]), text)
        start = at + len(encoded)  # type: ignore[arg-type]  # found, so not None
    if not pieces:
        return None
    pieces.append(_shared_piece(body[start:]))
    return tuple(pieces)


_PIECES: dict[bytes, bytes] = {}
"""Short pieces of journaled bodies, one object each (emptied when it reaches
``SHARED_PIECES``, so it stays small however varied the bodies)."""
SHARED_PIECES = 4096
SHARED_PIECE_SIZE = 256  # bytes; a longer piece is rarely repeated


def _shared_piece(piece: bytes) -> bytes:
    if len(piece) > SHARED_PIECE_SIZE:
        return piece
    found = _PIECES.get(piece)
    if found is None:
        if len(_PIECES) >= SHARED_PIECES:
            _PIECES.clear()
        found = _PIECES[piece] = piece
    return found


def _find(body: bytes, encoded: bytes, start: int) -> int:
    """``body.find(encoded, start)``, sooner: the string usually starts where its first
    bytes are first found, and searching for a short prefix is quicker than for the whole."""
    at = body.find(encoded[:16], start)
    if at >= 0 and not body.startswith(encoded, at):
        at = body.find(encoded, at + 1)
    return at


def _quoted(text: str) -> bytes:
    """``text``'s JSON encoding, for a string that needs no escape (as ``_splice`` knows)."""
    return b'"%b"' % text.encode()


def _json_string(text: str) -> bytes | None:
    """``text``'s JSON encoding (``ensure_ascii=False``); None for a lone surrogate.

    A string sent with a ``\\uD800``-style escape decodes to a lone surrogate, which
    has no UTF-8 form: it stays in the bytes.
    """
    try:
        raw = text.encode()
    except UnicodeEncodeError:
        return None
    return b'"%b"' % escaped(raw)


def _long_strings(value: Any, found: list[str]) -> list[str]:
    """``found`` plus the string values of at least ``SPLICE_FROM`` characters in ``value``
    (a dict or list), in document order. A nesting deeper than the interpreter's recursion
    limit raises ``RecursionError``."""
    for item in value.values() if type(value) is dict else value:
        kind = type(item)
        if kind is str:
            if len(item) >= SPLICE_FROM:
                found.append(item)
        elif kind is dict or kind is list:
            _long_strings(item, found)
    return found


class Journal(Sequence[JournalEntry]):
    """A thread-safe, append-only (until ``clear``) list of :class:`JournalEntry`.

    ``limit`` keeps only the most recent entries, so a long-running server does not
    grow without bound; None (the default for in-process fakes) keeps everything.
    """

    def __init__(self, limit: int | None = None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"journal limit must be >= 1 or None, got {limit}")
        self.limit = limit
        self._entries: list[JournalEntry] = []
        self._lock = threading.Lock()

    def append(self, entry: JournalEntry) -> None:
        with self._lock:
            self._entries.append(entry)
            if self.limit is not None and len(self._entries) > 2 * self.limit:
                # Trim in batches: amortised O(1) per request instead of a shift each time.
                del self._entries[: -self.limit]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    @overload
    def __getitem__(self, index: int) -> JournalEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[JournalEntry]: ...
    def __getitem__(self, index: int | slice) -> JournalEntry | list[JournalEntry]:
        with self._lock:
            return self._kept()[index]

    def __len__(self) -> int:
        count = len(self._entries)
        return count if self.limit is None else min(count, self.limit)

    def __iter__(self) -> Iterator[JournalEntry]:
        with self._lock:
            return iter(list(self._kept()))

    def _kept(self) -> list[JournalEntry]:
        """The visible entries (call with the lock held)."""
        if self.limit is None or len(self._entries) <= self.limit:
            return self._entries
        return self._entries[-self.limit :]

    def __repr__(self) -> str:
        return f"<Journal of {len(self)} requests>"


class JournalMiddleware:
    """Records each HTTP request's method, path, query, body and final status in ``journal``."""

    def __init__(self, app: ASGIApp, journal: Journal) -> None:
        self.app = app
        self.journal = journal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await journaled(self.journal, self.app, scope, receive, send)


async def journaled(
    journal: Journal, app: ASGIApp, scope: Scope, receive: Receive, send: Send
) -> None:
    """Call ``app`` with an HTTP request, journaling it (see :func:`recording`)."""
    request = await recording(journal, scope, receive, send)
    try:
        await app(scope, request.receive, request.send)
    finally:
        request.record()


async def recording(journal: Journal, scope: Scope, receive: Receive, send: Send) -> Recording:
    """Start journaling an HTTP request: its whole body read (so refused requests, 401s and
    faults, are journaled with it) and left under ``scope[BODY_SCOPE_KEY]``; the app is then
    called with the recording's ``receive`` and ``send``, and ``record()`` called at its end."""
    message = await receive()
    if message["type"] == "http.request" and not message.get("more_body", False):
        body: bytes = message.get("body", b"")  # all of it in one message, as usual
        disconnected = False
    else:
        body, disconnected = await _rest_of_body(message, receive)
    if not disconnected:
        scope[BODY_SCOPE_KEY] = body
    return Recording(journal, scope, body, disconnected, receive, send)


_HOST_HEADER = b"x-honcho-host"


def _honcho_host(scope: Scope) -> str | None:
    """The ``X-Honcho-Host`` header: which SDK (and version) sent the request."""
    value = header(scope, _HOST_HEADER)
    return None if value is None else value.decode("latin-1")


async def _rest_of_body(message: Message, receive: Receive) -> tuple[bytes, bool]:
    """The body ``message`` starts, joined, and whether the client left before its end."""
    chunks: list[bytes] = []
    while message["type"] == "http.request":
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), False
        message = await receive()
    return b"".join(chunks), True


@dataclass(slots=True)
class Recording:
    """One request passing through: its body replayed to the app, its status noted, and
    its journal entry made once (before the answer's last chunk leaves, or at the end)."""

    journal: Journal
    scope: Scope
    body: bytes
    disconnected: bool
    next_receive: Receive
    next_send: Send
    body_sent: bool = False
    recorded: bool = False
    status: int | None = None

    def record(self) -> None:
        if self.recorded:
            return
        self.recorded = True
        scope = self.scope
        self.journal.append(
            JournalEntry(
                sys.intern(scope["method"]),
                sys.intern(scope["path"]),  # one str each for the many alike requests
                scope["query_string"].decode("latin-1"),
                self.body,
                self.status,
                scope.get(FAULT_SCOPE_KEY),
                scope.get(JSON_SCOPE_KEY),
                tuple(scope.get(IGNORED_SCOPE_KEY, ())),
                _honcho_host(scope),
            )
        )

    async def receive(self) -> Message:
        if self.disconnected:
            return {"type": "http.disconnect"}
        if self.body_sent:
            return await self.next_receive()
        self.body_sent = True
        return {"type": "http.request", "body": self.body, "more_body": False}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.status = message["status"]
        elif kind == "http.response.body" and not message.get("more_body", False):
            # Journal before the last chunk leaves: a client that has its answer
            # always finds the request in the journal, even under serve().
            self.record()
        await self.next_send(message)
