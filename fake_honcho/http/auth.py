"""Bearer-key auth, answering as a real Honcho with ``AUTH_USE_AUTH=true`` does.

Two modes. With ``jwt_secret`` (Honcho's ``AUTH_JWT_SECRET``) the fake verifies HS256
JWTs as ``src/security.py`` does: claims ``ad`` (admin), ``w`` / ``p`` / ``s`` (the
workspace, peer and session the key is confined to) and ``exp``; ``POST /v3/keys``
mints such JWTs, so a key minted by the fake works on a real server with the same
secret and the other way round. With ``api_key`` (the simple mode) that one opaque
string is the admin key, and ``POST /v3/keys`` mints opaque keys stored by their
SHA-256 digest only (neither the store nor the ``--state-file`` holds a usable key).

Either way a key's claims are enforced as Honcho enforces them: each route declares
its rule where it lives (:mod:`fake_honcho.http.permissions`), :class:`AuthMiddleware`
applies it before the handler runs (as Honcho's ``require_auth`` dependency runs before
the body is validated), and handlers that authorise against their body read the claims
with :func:`claims_of`. Routing happens before auth on a real server, so an unknown path
still answers 404 and a wrong method 405; ``/health``, ``/metrics`` and the API
description are always open; a body that is not JSON is a 422 before any key is looked
at, as FastAPI decodes it before the dependencies run.

Three modules, one job each: the keys (:mod:`fake_honcho.http.keyring`: a token to its
claims), what claims may do (:mod:`fake_honcho.http.access`: the rule's decision and the
handlers' checks), and here the middleware that joins them to a request. This module
also hands on the documented names of the other two (``from fake_honcho.auth import
mint_jwt``).

Honcho's own quirks are kept: a token carrying ``exp`` is refused as ``Invalid JWT``
(Honcho writes ``exp`` as an ISO string, which PyJWT refuses as a non-number; a number
in the past is refused as expired), so a key minted with ``expires_at`` never works.
No key or secret appears in a repr, a log line or an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.errors import HonchoError
from fake_honcho.http.access import CLAIMS_KEY, authorise, claims_of, is_member
from fake_honcho.http.http_rules import BODY_SCOPE_KEY, decode_json, header, is_json
from fake_honcho.http.keyring import (
    ADMIN_CLAIMS,
    ISSUED_KEYS,
    Claims,
    JwtKeyring,
    KeyRefused,
    Keyring,
    OpaqueKeyring,
    mint_jwt,
)
from fake_honcho.http.operations import takes_body
from fake_honcho.http.permissions import Rule, rule_of
from fake_honcho.store.state import Store

if TYPE_CHECKING:
    from fake_honcho.http.routing import DispatchRouter

__all__ = [
    "ADMIN_CLAIMS",
    "CLAIMS_KEY",
    "ISSUED_KEYS",
    "AuthMiddleware",
    "Claims",
    "JwtKeyring",
    "Keyring",
    "OpaqueKeyring",
    "claims_of",
    "mint_jwt",
]

# Open on a real server too: health, metrics and FastAPI's API description pages.
OPEN_PATHS = frozenset({"/health", "/metrics", "/openapi.json", "/docs", "/redoc"})
NO_TOKEN = "No access token provided"


def _bearer_token(scope: Scope) -> str | None:
    """FastAPI's ``HTTPBearer(auto_error=False)``: the credentials of a ``Bearer`` header."""
    value = header(scope, b"authorization")
    if value is None:
        return None
    scheme, _, token = value.decode("latin-1").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def _json_content(scope: Scope) -> bool:
    """Whether FastAPI would decode the body as JSON (no content type, or a JSON one)."""
    value = header(scope, b"content-type")
    return value is None or is_json(value.decode("latin-1"))


def _undecodable_body(scope: Scope, route: Route) -> HonchoError | None:
    """FastAPI's 422 for a body it cannot decode as JSON, which comes before auth."""
    raw = scope.get(BODY_SCOPE_KEY)
    if not raw or not _json_content(scope) or not takes_body(route):
        return None
    try:
        decode_json(raw)
    except HonchoError as error:
        return error
    return None


class AuthMiddleware:
    """Authenticates every request to ``router``'s routes with ``keyring`` and applies
    the route's rule (:mod:`fake_honcho.http.permissions`); 401 with Honcho's detail."""

    def __init__(
        self,
        app: ASGIApp,
        keyring: Keyring,
        router: DispatchRouter,
        store: Store,
        *,
        overrides: Mapping[str, Rule] | None = None,
    ) -> None:
        self.app = app
        self.overrides = dict(overrides or {})
        self.keyring = keyring
        self.router = router
        self.member = is_member(store)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        found = self._route(scope)
        if found is None:
            await self.app(scope, receive, send)  # the app's own 404 / 405
            return
        route, params = found
        refused = self._refusal(scope, route, params)
        if refused is None:
            await self.app(scope, receive, send)
            return
        error = _undecodable_body(scope, route)
        if error is not None:
            await _answer(send, error.status, error.detail)
        else:
            await _answer(send, refused.status, refused.detail)

    def _refusal(self, scope: Scope, route: Route, params: Mapping[str, str]) -> KeyRefused | None:
        token = _bearer_token(scope)
        if token is None:
            return KeyRefused(NO_TOKEN)
        try:
            claims = self.keyring.claims(token)
        except KeyRefused as refused:
            return refused
        scope[CLAIMS_KEY] = claims
        rule = self.overrides.get(f"{scope['method']} {route.path}") or rule_of(route)
        detail = None if rule is None else authorise(rule, claims, params, self.member)
        return None if detail is None else KeyRefused(detail)

    def _route(self, scope: Scope) -> tuple[Route, Mapping[str, str]] | None:
        """The fully matching route and its path parameters (routing runs before auth)."""
        found = self.router.lookup(scope["method"], scope["path"])
        if found is not None:
            return found
        for route in self.router.routes:
            match, child = route.matches(scope)
            if match is Match.FULL and isinstance(route, Route):
                return route, child.get("path_params", {})
        return None


async def _answer(send: Send, status: int, detail: Any) -> None:
    body = json.dumps({"detail": detail}).encode()
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
