"""Bearer-key auth, answering as a real Honcho with ``AUTH_USE_AUTH=true`` does.

A real server checks a signed JWT; the fake accepts the one configured key (the
admin key) plus keys minted by ``POST /v3/keys``, which this layer answers itself
while auth is on (the core route answers 405, as with auth off). Minting is
admin-only, as on a real server. Issued keys are opaque strings, not JWTs, stored
by their SHA-256 digest only, so neither the store nor the ``--state-file`` holds
a usable key, and they survive a restart like any other acknowledged write. Their
scope and expiry are recorded but, except on the scope surfaces of 3.1 (which refuse
peer- and session-level keys, see :func:`key_scope`), not enforced: every valid key
reaches every route. Routing happens before auth on a real server, so an unknown path still
answers 404 and a wrong method 405; ``/health``, ``/metrics`` and the API description
(``/openapi.json``, ``/docs``, ``/redoc``) are always open.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from datetime import datetime
from enum import Enum
from typing import Any
from urllib.parse import parse_qsl

from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.state import Store

__all__ = ["ISSUED_KEYS", "KEY_SCOPE", "AuthMiddleware", "Keyring", "Role", "key_scope"]

ISSUED_KEYS = "api_keys"
# Open on a real server too: health, metrics and FastAPI's API description pages.
OPEN_PATHS = frozenset({"/health", "/metrics", "/openapi.json", "/docs", "/redoc"})
KEYS_PATH = "/v3/keys"
NO_TOKEN = "No access token provided"
INVALID_TOKEN = "Invalid JWT"
ADMIN_ONLY = "Resource requires admin privileges"
NO_SCOPE = "At least one of workspace_id, peer_id, or session_id must be provided"
SCOPE_WITHOUT_WORKSPACE = "workspace_id is required when scoping a key to a peer or session"
SCOPE_PARAMS = ("workspace_id", "peer_id", "session_id")
NOT_PERMITTED = "JWT not permissioned for this resource"
KEY_SCOPE = "fake_honcho.key_scope"
"""ASGI scope key: what an issued key was scoped to (absent for the admin key and with auth off)."""


class Role(Enum):
    ADMIN = "admin"
    ISSUED = "issued"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Keyring:
    """The keys the fake accepts. Its repr never shows a key."""

    def __init__(self, admin_key: str, store: Store) -> None:
        if not admin_key:
            raise ValueError("api_key must be a non-empty string")
        self._admin_digest = _digest(admin_key)
        self._store = store

    def role_of(self, key: str) -> Role | None:
        """Which kind of key ``key`` is, or None when the fake does not accept it."""
        digest = _digest(key)
        if hmac.compare_digest(digest, self._admin_digest):
            return Role.ADMIN
        return Role.ISSUED if self._store.get(ISSUED_KEYS, digest) is not None else None

    def scope_of(self, key: str) -> dict[str, Any]:
        """What an issued key was scoped to (``{}`` for any other key)."""
        row = self._store.get(ISSUED_KEYS, _digest(key))
        return dict(row["scope"]) if row is not None else {}

    def issue(self, scope: dict[str, Any]) -> str:
        """Create a key for ``scope`` (e.g. ``{"workspace_id": "ws"}``) and remember its digest."""
        key = "fhk_" + secrets.token_urlsafe(32)
        self._store.put(ISSUED_KEYS, _digest(key), {"scope": dict(scope)})
        return key

    def __repr__(self) -> str:
        return f"<Keyring: admin key + {self._store.count(ISSUED_KEYS)} issued>"


def _bearer_token(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None


class AuthMiddleware:
    """Refuses requests to ``router``'s routes without a key the ``keyring`` accepts (401)."""

    def __init__(self, app: ASGIApp, keyring: Keyring, router: Router) -> None:
        self.app = app
        self.keyring = keyring
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        token = _bearer_token(scope)
        role = self.keyring.role_of(token) if token is not None else None
        if role is None and not self._routed(scope):
            await self.app(scope, receive, send)  # the app's own 404 / 405
        elif role is None:
            await _answer(send, 401, NO_TOKEN if token is None else INVALID_TOKEN)
        elif scope["path"] == KEYS_PATH and scope["method"] == "POST":
            await self._mint(scope, send, role)
        else:
            if role is Role.ISSUED and token is not None:
                scope[KEY_SCOPE] = self.keyring.scope_of(token)
            await self.app(scope, receive, send)

    def _routed(self, scope: Scope) -> bool:
        """Whether a route fully matches (path and method), as routing runs before auth."""
        return any(route.matches(scope)[0] is Match.FULL for route in self.router.routes)

    async def _mint(self, scope: Scope, send: Send, role: Role) -> None:
        if role is not Role.ADMIN:
            await _answer(send, 401, ADMIN_ONLY)
            return
        query = dict(parse_qsl(scope["query_string"].decode("latin-1")))
        key_scope = {name: query[name] for name in SCOPE_PARAMS if query.get(name)}
        expires_at = query.get("expires_at")
        if expires_at:
            try:
                datetime.fromisoformat(expires_at)
            except ValueError:
                await _answer(send, 422, [_datetime_error(expires_at)])
                return
            key_scope["expires_at"] = expires_at
        if not any(name in key_scope for name in SCOPE_PARAMS):
            await _answer(send, 422, NO_SCOPE)
        elif "workspace_id" not in key_scope:
            await _answer(send, 422, SCOPE_WITHOUT_WORKSPACE)
        else:
            await _answer(send, 200, {"key": self.keyring.issue(key_scope)})


def key_scope(scope: Scope) -> dict[str, Any]:
    """The request's key scope: ``workspace_id``/``peer_id``/``session_id`` of an issued key;
    empty for the admin key or with auth off (both reach everything).

    Key scopes are enforced only where a route says so (the scope surfaces of 3.1)."""
    found: dict[str, Any] = scope.get(KEY_SCOPE) or {}
    return found


def _datetime_error(value: str) -> dict[str, Any]:
    return {
        "type": "datetime_from_date_parsing",
        "loc": ["query", "expires_at"],
        "msg": "Input should be a valid datetime or date, invalid character in year",
        "input": value,
        "ctx": {"error": "invalid character in year"},
    }


async def _answer(send: Send, status: int, payload: Any) -> None:
    body = json.dumps(payload if status == 200 else {"detail": payload}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
