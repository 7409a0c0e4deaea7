"""Bearer-key auth, answering as a real Honcho with ``AUTH_USE_AUTH=true`` does.

A real server checks a signed JWT; the fake accepts the one configured key (the
"admin" key) plus keys it issued through ``POST /v3/keys``. Issued keys are stored
by their SHA-256 digest only, so neither the store nor the ``--state-file`` ever
holds a usable key, and they survive a restart like any other acknowledged write.
Scopes on issued keys are recorded but not enforced: every valid key can reach
every route. Routing happens before auth on a real server, so an unknown path still
answers 404 and a wrong method 405; ``/health`` is always open.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.state import Store

__all__ = ["ISSUED_KEYS", "AuthMiddleware", "Keyring"]

ISSUED_KEYS = "api_keys"
OPEN_PATHS = frozenset({"/health"})
NO_TOKEN = "No access token provided"
INVALID_TOKEN = "Invalid JWT"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Keyring:
    """The keys the fake accepts. Its repr never shows a key."""

    def __init__(self, admin_key: str, store: Store) -> None:
        if not admin_key:
            raise ValueError("api_key must be a non-empty string")
        self._admin_digest = _digest(admin_key)
        self._store = store

    def accepts(self, key: str) -> bool:
        digest = _digest(key)
        if hmac.compare_digest(digest, self._admin_digest):
            return True
        return self._store.get(ISSUED_KEYS, digest) is not None

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
        if token is not None and self.keyring.accepts(token):
            await self.app(scope, receive, send)
            return
        if not self._routed(scope):
            await self.app(scope, receive, send)  # the app's own 404 / 405
            return
        detail = NO_TOKEN if token is None else INVALID_TOKEN
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _routed(self, scope: Scope) -> bool:
        """Whether a route fully matches (path and method), as routing runs before auth."""
        return any(route.matches(scope)[0] is Match.FULL for route in self.router.routes)
