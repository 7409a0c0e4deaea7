"""Bearer-key auth, answering as a real Honcho with ``AUTH_USE_AUTH=true`` does.

Two modes. With ``jwt_secret`` (Honcho's ``AUTH_JWT_SECRET``) the fake verifies HS256
JWTs as ``src/security.py`` does: claims ``ad`` (admin), ``w`` / ``p`` / ``s`` (the
workspace, peer and session the key is confined to) and ``exp``; ``POST /v3/keys``
mints such JWTs, so a key minted by the fake works on a real server with the same
secret and the other way round. With ``api_key`` (the simple mode) that one opaque
string is the admin key, and ``POST /v3/keys`` mints opaque keys stored by their
SHA-256 digest only (neither the store nor the ``--state-file`` holds a usable key).

Either way a key's claims are enforced as Honcho enforces them: each route declares
its rule where it lives (:mod:`fake_honcho.http.permissions`), this layer applies it
before the handler runs (as Honcho's ``require_auth`` dependency runs before the body
is validated), and handlers that authorise against their body read the claims with
:func:`claims_of`. Routing happens before auth on a real server, so an unknown path
still answers 404 and a wrong method 405; ``/health``, ``/metrics`` and the API
description are always open; a body that is not JSON is a 422 before any key is looked
at, as FastAPI decodes it before the dependencies run.

Honcho's own quirks are kept: a token carrying ``exp`` is refused as ``Invalid JWT``
(Honcho writes ``exp`` as an ISO string, which PyJWT refuses as a non-number; a number
in the past is refused as expired), so a key minted with ``expires_at`` never works.
No key or secret appears in a repr, a log line or an error.
"""

from __future__ import annotations

import email.message
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.errors import HonchoError
from fake_honcho.http.http_rules import BODY_SCOPE_KEY, decode_json
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
ADMIN_ONLY = "Resource requires admin privileges"
NOT_PERMITTED = "JWT not permissioned for this resource"
UNAUTHORIZED = "Unauthorized access to resource"
CLAIMS_KEY = "fake_honcho.claims"
"""ASGI scope key: the request key's :class:`Claims` (absent with auth off)."""


def claims_of(request: Request) -> Claims:
    """The request key's claims; an admin's with auth off (Honcho's answer then)."""
    found: Claims = request.scope.get(CLAIMS_KEY, ADMIN_CLAIMS)
    return found


def require_own(
    request: Request, *, workspace: str, peer: str | None = None, session: str | None = None
) -> None:
    """The get-or-create routes' checks against their ids: a non-admin key's ``w``, ``p``
    and ``s``, each when set, must name the path's workspace and the body's peer or
    session (401 ``Unauthorized access to resource``)."""
    claims = claims_of(request)
    if claims.admin:
        return
    for claimed, wanted in (
        (claims.workspace, workspace),
        (claims.peer, peer),
        (claims.session, session),
    ):
        if claimed is not None and wanted is not None and claimed != wanted:
            raise HonchoError(401, UNAUTHORIZED)


def require_member(request: Request, store: Store, workspace: str, sessions: Iterable[str]) -> None:
    """A peer key may name only sessions its peer is an active member of (chat's
    ``session_id`` and allowlist, session context's ``sessions``); 401 otherwise."""
    peer = claims_of(request).peer
    if peer is None:
        return
    member = is_member(store)
    if not all(member(workspace, session, peer) for session in sessions):
        raise HonchoError(401, NOT_PERMITTED)


def require_own_peer(request: Request, peer: str) -> None:
    """A peer key reaching a session route through membership acts as its own peer only
    (a member's session config; from 3.1 the perspective of session context)."""
    claimed = claims_of(request).peer
    if claimed is not None and claimed != peer:
        raise HonchoError(401, NOT_PERMITTED)


#: ``member(workspace, session, peer)``: whether the peer is an active member.
Membership = Callable[[str, str, str], bool]


def authorise(
    rule: Rule, claims: Claims, params: Mapping[str, str], member: Membership
) -> str | None:
    """Honcho's ``auth()`` after ``verify_jwt``: None when ``claims`` may call a route
    declaring ``rule`` with these path parameters, else the 401 detail."""
    if claims.admin:
        return None
    if rule.admin:
        return ADMIN_ONLY
    workspace = params.get("workspace_id") if rule.workspace else None
    peer = params.get("peer_id") if rule.peer else None
    session = params.get("session_id") if rule.session else None
    if not (workspace or peer or session):
        return None  # the handler authorises against its body
    if workspace and claims.workspace != workspace:
        return NOT_PERMITTED
    if claims.session is not None:
        return None if session and claims.session == session else NOT_PERMITTED
    if claims.peer is not None:
        if peer and claims.peer == peer:
            return None
        if rule.member_read and session and workspace and member(workspace, session, claims.peer):
            return None
        return NOT_PERMITTED
    return None if claims.workspace is not None else NOT_PERMITTED


def is_member(store: Store) -> Membership:
    """Honcho's ``is_peer_in_session``: a membership row the peer has not left."""

    def member(workspace: str, session: str, peer: Any) -> bool:
        if not isinstance(peer, str):
            return False
        row = store.get("session_peers", (workspace, session, peer))
        return row is not None and row.get("left_at") is None

    return member


def _bearer_token(scope: Scope) -> str | None:
    """FastAPI's ``HTTPBearer(auto_error=False)``: the credentials of a ``Bearer`` header."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None


def _json_content(scope: Scope) -> bool:
    """Whether FastAPI would decode the body as JSON (no content type, or a JSON one)."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            message = email.message.Message()
            message["content-type"] = value.decode("latin-1")
            subtype = message.get_content_subtype()
            return message.get_content_maintype() == "application" and (
                subtype == "json" or subtype.endswith("+json")
            )
    return True


def _undecodable_body(scope: Scope, route: Route) -> HonchoError | None:
    """FastAPI's 422 for a body it cannot decode as JSON, which comes before auth."""
    from fake_honcho.http.operations import takes_body

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
