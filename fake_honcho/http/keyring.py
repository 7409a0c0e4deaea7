"""Keys as Honcho issues and verifies them: :class:`JwtKeyring` (HS256 JWTs with Honcho's
claims, ``AUTH_JWT_SECRET``) and :class:`OpaqueKeyring` (the simple mode: one opaque admin
key, issued keys kept by their SHA-256 digest only). A key's :class:`Claims` are what the
auth middleware (``fake_honcho.http.auth``) enforces. No key or secret appears in a repr,
a log line or an error.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import jwt

from fake_honcho.http.http_rules import UNEXPECTED_ERROR
from fake_honcho.store.state import Store

__all__ = [
    "ADMIN_CLAIMS",
    "ISSUED_KEYS",
    "Claims",
    "JwtKeyring",
    "KeyRefused",
    "Keyring",
    "OpaqueKeyring",
    "iso_utc",
    "mint_jwt",
]

ISSUED_KEYS = "api_keys"
INVALID_TOKEN = "Invalid JWT"
SCOPE_WITHOUT_WORKSPACE_TOKEN = "Invalid JWT scope: peer/session token missing workspace"


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
