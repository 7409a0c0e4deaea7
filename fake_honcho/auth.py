"""Bearer-key auth, answering as a real Honcho with ``AUTH_USE_AUTH=true`` does.

Two modes. With ``jwt_secret`` (Honcho's ``AUTH_JWT_SECRET``) the fake verifies HS256
JWTs as ``src/security.py`` does: claims ``ad`` (admin), ``w`` / ``p`` / ``s`` (the
workspace, peer and session the key is confined to) and ``exp``; ``POST /v3/keys``
mints such JWTs, so a key minted by the fake works on a real server with the same
secret and the other way round. With ``api_key`` (the simple mode) that one opaque
string is the admin key, and ``POST /v3/keys`` mints opaque keys stored by their
SHA-256 digest only (neither the store nor the ``--state-file`` holds a usable key).

Either way a key's claims are enforced as Honcho enforces them: each route declares
its rule where it lives (:mod:`fake_honcho.permissions`), this layer applies it
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
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import jwt
from starlette.requests import Request
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.errors import HonchoError
from fake_honcho.faults import UNEXPECTED_ERROR
from fake_honcho.journal import BODY_SCOPE_KEY
from fake_honcho.permissions import Rule, rule_of
from fake_honcho.state import Store

if TYPE_CHECKING:
    from fake_honcho.routing import DispatchRouter

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

ISSUED_KEYS = "api_keys"
# Open on a real server too: health, metrics and FastAPI's API description pages.
OPEN_PATHS = frozenset({"/health", "/metrics", "/openapi.json", "/docs", "/redoc"})
NO_TOKEN = "No access token provided"
INVALID_TOKEN = "Invalid JWT"
SCOPE_WITHOUT_WORKSPACE_TOKEN = "Invalid JWT scope: peer/session token missing workspace"
ADMIN_ONLY = "Resource requires admin privileges"
NOT_PERMITTED = "JWT not permissioned for this resource"
UNAUTHORIZED = "Unauthorized access to resource"
CLAIMS_KEY = "fake_honcho.claims"
"""ASGI scope key: the request key's :class:`Claims` (absent with auth off)."""


@dataclass(frozen=True)
class Claims:
    """What a key says about itself, as Honcho's ``JWTParams`` holds it after
    ``verify_jwt``: ``admin`` is ``ad`` (any truthy value is an admin), ``workspace`` /
    ``peer`` / ``session`` are ``w`` / ``p`` / ``s`` (an empty one is None). Values are
    kept as the token carries them (a number stays a number and matches no name)."""

    admin: Any = None
    workspace: Any = None
    peer: Any = None
    session: Any = None

    @classmethod
    def of_payload(cls, payload: Mapping[str, Any]) -> Claims:
        return cls(
            admin=payload.get("ad"),
            workspace=payload.get("w") or None,
            peer=payload.get("p") or None,
            session=payload.get("s") or None,
        )

    @property
    def narrow(self) -> bool:
        """A peer- or session-level key (neither admin nor workspace-wide)."""
        return not self.admin and (self.peer is not None or self.session is not None)


ADMIN_CLAIMS = Claims(admin=True)
"""What every request carries with auth off (Honcho answers ``JWTParams(ad=True)``)."""


class KeyRefused(Exception):
    """A key the server refuses, with Honcho's status and detail."""

    def __init__(self, detail: str, status: int = 401) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status


def _refuse_expiry(exp: Any, *, reproduce_bugs: bool) -> None:
    """Every ``exp`` is refused: PyJWT 2.12 (what Honcho 3.0.12 and 3.1 ship) refuses one
    ``int()`` cannot read (``Invalid JWT``, and a 500 for ``null`` or an object, a
    ``TypeError`` it lets escape) and one in the past; Honcho then parses the rest as an
    ISO string and fails with its generic 500 (measured: tests/fidelity/auth, test_jwt).
    Those 500s are a real bug: without ``reproduce_bugs`` (``real_bugs="correct"``) the
    token is refused as ``Invalid JWT`` instead, never let in."""
    crash = (
        KeyRefused(UNEXPECTED_ERROR, status=500) if reproduce_bugs else KeyRefused(INVALID_TOKEN)
    )
    try:
        value = int(exp)
    except ValueError:
        raise KeyRefused(INVALID_TOKEN) from None
    except (TypeError, OverflowError):
        raise crash from None
    if value <= time.time():
        raise KeyRefused(INVALID_TOKEN)
    raise crash


def _check_claims(payload: Mapping[str, Any]) -> Claims:
    """``verify_jwt`` after ``exp``: a peer or session scope needs its workspace."""
    claims = Claims.of_payload(payload)
    if (claims.peer or claims.session) and not claims.workspace:
        raise KeyRefused(SCOPE_WITHOUT_WORKSPACE_TOKEN)
    return claims


def iso_utc(moment: datetime) -> str:
    """Honcho's ``format_datetime_utc``: UTC, whole seconds, a ``Z``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def mint_jwt(secret: str, **claims: Any) -> str:
    """An HS256 JWT of ``claims`` (Honcho's short names: ``ad``, ``w``, ``p``, ``s``,
    ``exp``, ``t``) signed with ``secret``, as Honcho's ``create_jwt`` writes it.

    The admin key of a server whose ``AUTH_JWT_SECRET`` is ``secret`` is
    ``mint_jwt(secret, t="", ad=True)``.
    """
    payload = {name: value for name, value in claims.items() if value is not None}
    return jwt.encode(payload, secret.encode("utf-8"), algorithm="HS256")


class Keyring:
    """The keys a fake accepts: ``claims(token)`` or :class:`KeyRefused`, and
    ``issue(...)`` for ``POST /v3/keys``. Its repr never shows a key or secret."""

    def claims(self, token: str) -> Claims:
        raise NotImplementedError

    def issue(self, scope: Mapping[str, str], *, expires_at: str | None, now: datetime) -> str:
        raise NotImplementedError

    @property
    def admin_key(self) -> str:
        raise NotImplementedError


class JwtKeyring(Keyring):
    """Honcho's own mode: HS256 JWTs signed with ``secret``."""

    def __init__(self, secret: str, *, reproduce_bugs: bool = True) -> None:
        if not secret:
            raise ValueError("jwt_secret must be a non-empty string")
        self._secret = secret
        self._reproduce_bugs = reproduce_bugs

    def claims(self, token: str) -> Claims:
        try:
            payload = jwt.decode(
                token,
                self._secret.encode("utf-8"),
                algorithms=["HS256"],
                options={"verify_exp": False},  # judged below, as Honcho's PyJWT does
            )
        except jwt.PyJWTError:
            raise KeyRefused(INVALID_TOKEN) from None
        if "exp" in payload:
            _refuse_expiry(payload["exp"], reproduce_bugs=self._reproduce_bugs)
        return _check_claims(payload)

    def issue(self, scope: Mapping[str, str], *, expires_at: str | None, now: datetime) -> str:
        return mint_jwt(
            self._secret,
            t=iso_utc(now),
            exp=expires_at,
            w=scope.get("workspace_id"),
            p=scope.get("peer_id"),
            s=scope.get("session_id"),
        )

    @property
    def admin_key(self) -> str:
        return mint_jwt(self._secret, t="", ad=True)

    def __repr__(self) -> str:
        return "<JwtKeyring: HS256>"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class OpaqueKeyring(Keyring):
    """The simple mode: one opaque admin key, and opaque keys minted by ``POST /v3/keys``
    remembered by their digest with the claims a JWT would carry."""

    def __init__(self, admin_key: str, store: Store) -> None:
        if not admin_key:
            raise ValueError("api_key must be a non-empty string")
        self._admin_key = admin_key
        self._admin_digest = _digest(admin_key)
        self._store = store

    def claims(self, token: str) -> Claims:
        digest = _digest(token)
        if hmac.compare_digest(digest, self._admin_digest):
            return ADMIN_CLAIMS
        row = self._store.get(ISSUED_KEYS, digest)
        if row is None:
            raise KeyRefused(INVALID_TOKEN)
        scope = row["scope"]
        if scope.get("expires_at"):
            raise KeyRefused(INVALID_TOKEN)  # as the JWT Honcho writes for it is refused
        return _check_claims(
            {
                "w": scope.get("workspace_id"),
                "p": scope.get("peer_id"),
                "s": scope.get("session_id"),
            }
        )

    def issue(self, scope: Mapping[str, str], *, expires_at: str | None, now: datetime) -> str:
        key = "fhk_" + secrets.token_urlsafe(32)
        row = {name: value for name, value in scope.items() if value}
        if expires_at is not None:
            row["expires_at"] = expires_at
        self._store.put(ISSUED_KEYS, _digest(key), {"scope": row})
        return key

    @property
    def admin_key(self) -> str:
        return self._admin_key

    def __repr__(self) -> str:
        return f"<OpaqueKeyring: admin key + {self._store.count(ISSUED_KEYS)} issued>"


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
    from fake_honcho.endpoint import decode_json
    from fake_honcho.openapi.operations import takes_body

    raw = scope.get(BODY_SCOPE_KEY)
    if not raw or not _json_content(scope) or not takes_body(route.path, scope["method"]):
        return None
    try:
        decode_json(raw)
    except HonchoError as error:
        return error
    return None


class AuthMiddleware:
    """Authenticates every request to ``router``'s routes with ``keyring`` and applies
    the route's rule (:mod:`fake_honcho.permissions`); 401 with Honcho's detail."""

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
