"""What a key may do, once its claims are known: Honcho's ``auth()`` and the handlers' checks.

A route's rule (:mod:`fake_honcho.http.permissions`) is applied before the handler runs
(:func:`authorise`, by :class:`fake_honcho.http.auth.AuthMiddleware`, as Honcho's
``require_auth`` dependency runs before the body is validated); a handler that
authorises against its body or its peer reads the claims with :func:`claims_of` and
applies its own check (:func:`require_own`, :func:`require_member`,
:func:`require_own_peer`). Both answer Honcho's 401 texts. The keys themselves are
:mod:`fake_honcho.http.keyring`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from starlette.requests import Request

from fake_honcho.errors import HonchoError
from fake_honcho.http.keyring import ADMIN_CLAIMS, Claims
from fake_honcho.http.permissions import Rule
from fake_honcho.store.state import Store

__all__ = [
    "ADMIN_ONLY",
    "CLAIMS_KEY",
    "NOT_PERMITTED",
    "UNAUTHORIZED",
    "Membership",
    "authorise",
    "claims_of",
    "is_member",
    "require_member",
    "require_own",
    "require_own_peer",
]

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
