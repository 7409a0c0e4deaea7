"""Deterministic fault injection: rules and the ASGI middleware applying them.

A rule matches a method and a route pattern and then misbehaves the way real
deployments do: an error status (429 with ``Retry-After``, 5xx) in Honcho's
``{"detail": ...}`` shape, added latency, an HTML maintenance page with status
200, truncated JSON, a wrong ``Content-Type``, a dropped connection, or a refused
one. It fires for the first ``times`` matches, for every match, or for a seeded
fraction of them, so a failing run replays exactly.

Rules come from :class:`Faults` (``fake.faults``), the ``/_fake/faults`` control
routes (``fake_honcho/routes/faults.py``), ``fake-honcho --fault`` and the pytest marker;
the mini-syntax shared by the last three is documented in :func:`parse_rule`. Every
request a rule fires on carries the rule under ``scope[FAULT_SCOPE_KEY]``, which the
request journal (outside this middleware) copies into the entry's ``fault`` field.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shlex
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http import HTTPStatus
from typing import Any

import anyio
import httpx
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fake_honcho.harness.journal import FAULT_SCOPE_KEY
from fake_honcho.http.http_rules import UNEXPECTED_ERROR
from fake_honcho.http.server import DROP_EXTENSION, close_connection

CONTROL_PREFIX = "/_fake/"
"""Control routes live here; no rule ever applies to them, so faults can always be cleared."""

HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
EXCLUSIVE_ACTIONS = ("status", "html", "truncated", "content_type", "drop", "refuse")
DEFAULT_WRONG_CONTENT_TYPE = "text/plain; charset=utf-8"
DEFAULT_RETRY_AFTER = 1.0

MAINTENANCE_PAGE = b"""<!DOCTYPE html>
<html><head><title>Down for maintenance</title><link rel="icon" href="data:,"></head>
<body><h1>We'll be back soon</h1><p>Honcho is down for scheduled maintenance.</p></body>
</html>
"""


class ConnectionDropped(httpx.RemoteProtocolError):
    """Raised through in-process transports where a server would close the socket unanswered."""


class ConnectionRefused(httpx.ConnectError):
    """Raised through in-process transports: the request never reached the server."""


@dataclass(frozen=True)
class FaultRule:
    """What to match and how to misbehave. Immutable; :class:`Faults` counts the matches.

    At most one of ``status``, ``html``, ``truncated``, ``content_type``, ``drop`` and
    ``refuse`` is set; ``latency`` (seconds) delays any of them, or stands alone to
    slow down a request that is then served normally.
    """

    route: str = "**"
    method: str = "*"
    status: int | None = None
    retry_after: float | None = None
    detail: str | None = None
    latency: float = 0.0
    html: bool = False
    truncated: bool = False
    content_type: str | None = None
    drop: bool = False
    refuse: bool = False
    times: int | None = None
    rate: float | None = None
    seed: int = 0
    _route_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _typed: str | None = field(default=None, init=False, repr=False, compare=False)
    _methods: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_route_pattern", compile_route(self.route))
        object.__setattr__(self, "_methods", _parse_methods(self.method))
        self._validate()

    def _validate(self) -> None:
        actions = [name for name in EXCLUSIVE_ACTIONS if getattr(self, name) not in (None, False)]
        if len(actions) > 1:
            raise ValueError(f"a fault rule takes one action, got {' and '.join(actions)}")
        if not actions and not self.latency:
            raise ValueError(
                "a fault rule needs an action: status=, latency=, html, truncated, "
                "content_type, drop or refuse"
            )
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(f"status must be an HTTP error status 400..599, got {self.status}")
        if self.retry_after is not None and (self.status is None or self.retry_after < 0):
            raise ValueError("retry_after needs status= and must be >= 0")
        if self.detail is not None and self.status is None:
            raise ValueError("detail needs status=")
        if self.latency < 0:
            raise ValueError(f"latency must be >= 0 seconds, got {self.latency}")
        if self.times is not None and self.times < 1:
            raise ValueError(
                f"times must be >= 1 (omit it to fire on every match), got {self.times}"
            )
        if self.rate is not None and not 0.0 < self.rate <= 1.0:
            raise ValueError(f"rate must be in (0, 1], got {self.rate}")
        if self.content_type is not None and not self.content_type.strip():
            raise ValueError("content_type must not be empty")

    @property
    def action(self) -> str:
        """The action's name: one of :data:`EXCLUSIVE_ACTIONS`, or ``latency``."""
        for name in EXCLUSIVE_ACTIONS:
            if getattr(self, name) not in (None, False):
                return name
        return "latency"

    def matches(self, method: str, path: str) -> bool:
        return ("*" in self._methods or method in self._methods) and bool(
            self._route_pattern.fullmatch(path)
        )

    def options(self) -> dict[str, Any]:
        """The fields other than method and route that differ from their defaults."""
        return {
            item.name: getattr(self, item.name)
            for item in dataclasses.fields(self)
            if item.init
            and item.name not in ("method", "route")
            and getattr(self, item.name) != item.default
        }

    def to_json(self) -> dict[str, Any]:
        """The rule as the control routes take it."""
        return {"method": self.method, "route": self.route, **self.options()}

    @property
    def spec(self) -> str:
        """The rule in :func:`parse_rule`'s mini-syntax (``parse_rule(rule.spec) == rule``).

        A parsed rule is shown as it was typed (``latency=200ms``, options in the order
        given); one built from fields in canonical order, with latency in ms or s.
        """
        if self._typed is not None:
            return self._typed
        parts = [] if self.method == "*" else [self.method]
        parts.append(self.route)
        for key, value in self.options().items():
            if value is True:
                parts.append(key)
            elif key == "latency":
                parts.append(f"latency={_format_duration(value)}")
            else:
                parts.append(f"{key}={_format_value(value)}")
        return " ".join(_quote(part) for part in parts)

    @classmethod
    def from_json(cls, data: object) -> FaultRule:
        """Build a rule from control-route JSON: ``{"spec": "..."}`` or the fields themselves."""
        if not isinstance(data, dict):
            raise ValueError("a fault rule must be a JSON object")
        if "spec" in data:
            if len(data) != 1 or not isinstance(data["spec"], str):
                raise ValueError('give either {"spec": "<rule>"} or the rule fields, not both')
            return parse_rule(data["spec"])
        unknown = sorted(set(data) - set(_JSON_TYPES))
        if unknown:
            raise ValueError(f"unknown fault rule field(s): {', '.join(unknown)}")
        for name, value in data.items():
            expected, nullable = _JSON_TYPES[name]
            if (value is None and not nullable) or (
                value is not None
                and (
                    not isinstance(value, expected)
                    or (isinstance(value, bool) and bool not in expected)
                )
            ):
                raise ValueError(f"fault rule field {name!r} has the wrong type: {value!r}")
        return cls(**data)


# JSON types of the rule fields (bool is an int in Python, so it is refused unless listed).
_JSON_TYPES: dict[str, tuple[tuple[type, ...], bool]] = {
    "route": ((str,), False),
    "method": ((str,), False),
    "status": ((int,), True),
    "retry_after": ((int, float), True),
    "detail": ((str,), True),
    "latency": ((int, float), False),
    "html": ((bool,), False),
    "truncated": ((bool,), False),
    "content_type": ((str,), True),
    "drop": ((bool,), False),
    "refuse": ((bool,), False),
    "times": ((int,), True),
    "rate": ((int, float), True),
    "seed": ((int,), False),
}


def _quote(token: str) -> str:
    return shlex.quote(token) if re.search(r"[\s'\"]", token) else token


def _format_value(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _format_duration(seconds: float) -> str:
    """``0.2`` -> ``200ms``, ``2.0`` -> ``2s``: how latencies are usually typed."""
    if seconds >= 1 and float(seconds).is_integer():
        return f"{int(seconds)}s"
    return f"{seconds * 1000:.15g}ms"


def compile_route(route: str) -> re.Pattern[str]:
    """A route pattern as a regex matched against the whole path.

    ``^...`` is a regular expression. Otherwise it is a glob over the path: ``*``
    matches within one segment, ``**`` across segments, ``?`` one character; a
    bare ``*`` or ``**`` matches every path.
    """
    if route.startswith("^"):
        try:
            return re.compile(route)
        except re.error as exc:
            raise ValueError(f"invalid route regex {route!r}: {exc}") from None
    if route in ("*", "**"):
        return re.compile(".*")
    if not route.startswith("/"):
        raise ValueError(
            f"a route pattern starts with '/', '^' (a regex) or is '**', got {route!r}"
        )
    pieces = re.split(r"(\*\*|\*|\?)", route)
    wildcards = {"**": ".*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wildcards.get(piece, re.escape(piece)) for piece in pieces))


def _parse_methods(method: str) -> frozenset[str]:
    methods = frozenset(part.strip().upper() for part in re.split(r"[,|]", method) if part.strip())
    unknown = sorted(methods - HTTP_METHODS - {"*"})
    if not methods or unknown:
        raise ValueError(f"unknown HTTP method(s) in {method!r}")
    return methods


_FLAGS = frozenset({"html", "truncated", "drop", "refuse", "content_type"})
_NUMBER = r"\d+(?:\.\d*)?|\.\d+"


def parse_rule(spec: str) -> FaultRule:
    """Parse the fault mini-syntax: ``[METHOD] ROUTE ACTION [OPTIONS]``.

    - ``METHOD``: ``GET``, ``POST,PUT`` or ``*`` (default ``*``).
    - ``ROUTE``: a glob over the path (``*`` one segment, ``**`` any) or a ``^regex``.
    - ``ACTION``: ``status=503`` (with ``retry_after=2``, ``detail="..."``),
      ``latency=250ms`` (also combines with any other action), ``html``, ``truncated``,
      ``content_type[=text/html]``, ``drop`` or ``refuse``.
    - ``OPTIONS``: ``times=N`` (the first N matches; default every match),
      ``rate=0.25`` with ``seed=7`` (a reproducible fraction of the matches).

    Example: ``POST /v3/workspaces/*/sessions/*/messages status=503 times=2``.
    """
    try:
        tokens = shlex.split(spec)
    except ValueError as exc:
        raise ValueError(f"cannot parse fault rule {spec!r}: {exc}") from None
    if len(tokens) > 1 and _is_route(tokens[1]):
        fields: dict[str, Any] = {"method": tokens[0], "route": tokens[1]}
        options = tokens[2:]
    elif tokens and _is_route(tokens[0]):
        fields = {"route": tokens[0]}
        options = tokens[1:]
    else:
        raise ValueError(f"a fault rule is '[METHOD] ROUTE ACTION [OPTIONS]', got {spec!r}")
    for token in options:
        key, _, value = token.partition("=")
        if token in _FLAGS:
            fields[key] = DEFAULT_WRONG_CONTENT_TYPE if key == "content_type" else True
        elif key in ("status", "times", "seed"):
            fields[key] = _parse_int(key, value)
        elif key in ("retry_after", "rate"):
            fields[key] = _parse_float(key, value)
        elif key == "latency":
            fields[key] = parse_duration(value)
        elif key in ("detail", "content_type"):
            fields[key] = value
        else:
            raise ValueError(f"unknown fault rule option or action {key!r} in {spec!r}")
    rule = FaultRule(**fields)
    object.__setattr__(rule, "_typed", " ".join(_quote(token) for token in tokens))
    return rule


def _is_route(token: str) -> bool:
    return token.startswith(("/", "^")) or token in ("*", "**")


def _parse_int(key: str, value: str) -> int:
    if not re.fullmatch(r"-?\d+", value):
        raise ValueError(f"{key} must be an integer, got {value!r}")
    return int(value)


def _parse_float(key: str, value: str) -> float:
    if not re.fullmatch(_NUMBER, value):
        raise ValueError(f"{key} must be a number, got {value!r}")
    return float(value)


def parse_duration(text: str) -> float:
    """``0.5``, ``0.5s`` or ``500ms`` -> seconds."""
    match = re.fullmatch(rf"({_NUMBER})(ms|s)?", text.strip())
    if match is None:
        raise ValueError(f"latency must look like 0.5, 0.5s or 500ms, got {text!r}")
    seconds = float(match.group(1))
    return seconds / 1000 if match.group(2) == "ms" else seconds


@dataclass(eq=False)
class Fault:
    """An installed rule with its id and counters (``matched`` requests, ``fired`` faults)."""

    id: str
    rule: FaultRule
    matched: int = 0
    fired: int = 0
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.rule.seed)

    @property
    def remaining(self) -> int | None:
        """Firings left before the rule is spent; None when it fires without limit."""
        return None if self.rule.times is None else self.rule.times - self.fired

    def _should_fire(self) -> bool:
        self.matched += 1
        if self.remaining == 0:
            return False
        if self.rule.rate is not None and self._rng.random() >= self.rule.rate:
            return False
        self.fired += 1
        return True

    def describe(self) -> str:
        """What the journal records in an entry's ``fault`` field: ``"f1: GET ** drop"``."""
        return f"{self.id}: {self.rule.spec}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "spec": self.rule.spec,
            "action": self.rule.action,
            "rule": self.rule.to_json(),
            "matched": self.matched,
            "fired": self.fired,
            "remaining": self.remaining,
        }


class Faults:
    """The fault rules of one fake (``fake.faults``); thread-safe.

    Rules are tried in the order they were added and the first that fires wins.
    Spent rules stay listed (``remaining == 0``) until removed or cleared.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: dict[str, Fault] = {}
        self._next_id = 1

    def add(self, rule: FaultRule | str | None = None, /, **fields: Any) -> Fault:
        """Install a rule: a :class:`FaultRule`, a mini-syntax string, or the fields as keywords."""
        if isinstance(rule, str):
            rule = parse_rule(rule)
        if rule is None:
            rule = FaultRule(**fields)
        elif fields:
            rule = dataclasses.replace(rule, **fields)
        with self._lock:
            fault = Fault(id=f"f{self._next_id}", rule=rule)
            self._next_id += 1
            self._faults[fault.id] = fault
        return fault

    @contextmanager
    def inject(self, rule: FaultRule | str | None = None, /, **fields: Any) -> Iterator[Fault]:
        """Install a rule for the duration of a ``with`` block (gone already is fine)."""
        fault = self.add(rule, **fields)
        try:
            yield fault
        finally:
            with self._lock:
                self._faults.pop(fault.id, None)

    def remove(self, fault_id: str) -> None:
        with self._lock:
            if self._faults.pop(fault_id, None) is None:
                raise KeyError(fault_id)

    def clear(self) -> int:
        """Remove every rule; returns how many there were."""
        with self._lock:
            count = len(self._faults)
            self._faults.clear()
            return count

    def get(self, fault_id: str) -> Fault:
        with self._lock:
            return self._faults[fault_id]

    def __iter__(self) -> Iterator[Fault]:
        with self._lock:
            return iter(list(self._faults.values()))

    def __len__(self) -> int:
        with self._lock:
            return len(self._faults)

    def __repr__(self) -> str:
        return f"<Faults {[fault.rule.spec for fault in self]}>"

    @property
    def armed(self) -> bool:
        """Whether any rule is installed (spent ones included); read without the lock."""
        return bool(self._faults)

    def match(self, method: str, path: str) -> Fault | None:
        """The rule firing on this request (counted), or None to serve it normally."""
        if not self._faults or path.startswith(CONTROL_PREFIX):
            return None  # no rule: nothing to lock for (a dict's size reads atomically)
        with self._lock:
            for fault in self._faults.values():
                if fault.rule.matches(method, path) and fault._should_fire():
                    return fault
        return None


class FaultMiddleware:
    """ASGI middleware applying ``faults`` to every HTTP request except the control routes."""

    def __init__(self, app: ASGIApp, faults: Faults) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        fault = self.faults.match(scope["method"], scope["path"])
        if fault is None:
            await self.app(scope, receive, send)
            return
        scope[FAULT_SCOPE_KEY] = fault.describe()
        rule = fault.rule
        if rule.latency:
            await anyio.sleep(rule.latency)
        if rule.status is not None:
            await _send_error(send, rule)
        elif rule.html:
            await _send(send, 200, "text/html; charset=utf-8", MAINTENANCE_PAGE)
        elif rule.truncated or rule.content_type is not None:
            await self.app(scope, receive, _Rewriter(send, rule))
        elif rule.drop or rule.refuse:
            await _drop_connection(scope, receive, refused=rule.refuse)
        else:
            await self.app(scope, receive, send)


async def _send(
    send: Send,
    status: int,
    content_type: str,
    body: bytes,
    extra: tuple[tuple[bytes, bytes], ...] = (),
) -> None:
    headers = [
        (b"content-type", content_type.encode("latin-1")),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_error(send: Send, rule: FaultRule) -> None:
    assert rule.status is not None
    detail = rule.detail or (
        UNEXPECTED_ERROR if rule.status == 500 else HTTPStatus(rule.status).phrase
    )
    retry_after = rule.retry_after
    if retry_after is None and rule.status == 429:
        retry_after = DEFAULT_RETRY_AFTER
    extra = () if retry_after is None else ((b"retry-after", _format_value(retry_after).encode()),)
    body = json.dumps({"detail": detail}).encode()
    await _send(send, rule.status, "application/json", body, extra)


class _Rewriter:
    """A ``send`` that buffers the app's response, then truncates it or relabels its type."""

    def __init__(self, send: Send, rule: FaultRule) -> None:
        self.send = send
        self.rule = rule
        self.start: Message | None = None
        self.body = bytearray()

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.start = message
            return
        if message["type"] != "http.response.body" or self.start is None:
            await self.send(message)
            return
        self.body += message.get("body", b"")
        if message.get("more_body", False):
            return
        body = bytes(self.body)
        if self.rule.truncated and len(body) > 1:
            body = body[: len(body) // 2]
        headers = [
            (name, value)
            for name, value in self.start.get("headers", [])
            if name.lower() not in (b"content-length", b"content-type")
        ]
        content_type = self.rule.content_type
        if content_type is None:
            content_type = _header(self.start, b"content-type") or "application/json"
        headers += [
            (b"content-type", content_type.encode("latin-1")),
            (b"content-length", str(len(body)).encode()),
        ]
        await self.send({**self.start, "headers": headers})
        await self.send({"type": "http.response.body", "body": body})


def _header(message: Message, name: bytes) -> str | None:
    for key, value in message.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _drop_connection(scope: Scope, receive: Receive, *, refused: bool) -> None:
    drop: Callable[[], Awaitable[None]] | None = scope.get("extensions", {}).get(DROP_EXTENSION)
    if drop is not None:
        # The whole request is read first: a socket closed while some of it is still on
        # the way is reset (the client sees ECONNRESET), not closed unanswered.
        message = await receive()
        while message["type"] == "http.request" and message.get("more_body", False):
            message = await receive()
        await drop()
        return
    if refused:
        raise ConnectionRefused("[fake-honcho fault] connection refused")
    raise ConnectionDropped("[fake-honcho fault] server disconnected without sending a response")


def with_connection_drop(app: ASGIApp) -> ASGIApp:
    """Wrap the app served by uvicorn so ``drop`` closes the client's socket unanswered.

    uvicorn's per-request ``send`` is bound to an object holding the connection's
    asyncio transport; this wrapper exposes closing it as the ``scope["extensions"]``
    entry :data:`DROP_EXTENSION`. Put it outermost: middleware wrapping ``send``
    would hide the transport. In-process transports have no socket, so there the
    fault raises :class:`ConnectionDropped` or :class:`ConnectionRefused` instead.
    """

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        cycle = getattr(send, "__self__", None)
        transport = getattr(cycle, "transport", None)
        if scope["type"] == "http" and hasattr(transport, "close"):
            extensions = {
                **scope.get("extensions", {}),
                DROP_EXTENSION: partial(close_connection, cycle),
            }
            scope = {**scope, "extensions": extensions}
        await app(scope, receive, send)

    return wrapped
