"""Scoped recall (3.1): the ``scope`` option of chat, representation and session context.

One scope name reads the scope's own view: the scope peer becomes the observer, so only
conclusions the scope holds (drawn in, or copied from, its member sessions) are seen,
and chat recalls messages of sessions the scope has a membership row in. A list of
scopes keeps the path peer as observer and confines recall to the union of the scopes'
sessions (an empty union recalls nothing). Every refusal is the server's, in its order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from fake_honcho.errors import HonchoError
from fake_honcho.http.access import claims_of
from fake_honcho.store import scopes

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server

MAX_SESSIONS = 1000
SCOPE_NEEDS_WORKSPACE_KEY = "`scope` requires a workspace- or admin-level key"


def refuse_peer_key(request: Request) -> None:
    """``scope`` on a read route needs a workspace- or admin-level key (Honcho's
    ``validate_scope_read_option`` looks at the peer claim only)."""
    if claims_of(request).peer is not None:
        raise HonchoError(401, SCOPE_NEEDS_WORKSPACE_KEY)


def refuse_narrow_key(request: Request) -> None:
    """Session context's ``scope``: a peer or a session key is refused."""
    claims = claims_of(request)
    if claims.peer is not None or claims.session is not None:
        raise HonchoError(401, SCOPE_NEEDS_WORKSPACE_KEY)


@dataclass(frozen=True)
class Recall:
    """Whose conclusions are read (``observer``) and from which sessions (None: all)."""

    observer: str
    sessions: list[str] | None = None


def refuse_scope_positions(fake: Server, ws: str, names: list[str | None], what: str) -> None:
    """A scope is never the observer or target of a representation (nor a reserved name
    that does not exist yet: it could become one). Only reserved names are checked, as
    the server picks its candidates before looking (so a NUL elsewhere is no 422 here)."""
    present = [name for name in names if name is not None and name.startswith(scopes.PREFIX)]
    with fake.store.lock:
        scopes.reject_scope_observed(
            fake, ws, present, f"{scopes.NO_REPRESENTATION} a {what} observer or target."
        )


def scoped_recall(
    fake: Server, request: Request, ws: str, peer_id: str, body: dict[str, Any]
) -> Recall | None:
    """The recall a body's ``scope`` asks for (None without one)."""
    scope = body.get("scope")
    if scope is None:
        return None
    check_scope_option(request, body)
    if isinstance(scope, str):
        with fake.store.lock:
            [scope_peer] = scopes.resolve(fake, ws, [scope])
        return Recall(scope_peer)
    return Recall(peer_id, session_union(fake, ws, scope))


def check_scope_option(request: Request, body: dict[str, Any]) -> None:
    """``scope`` refuses ``filters`` and ``session_id`` beside it (422) and peer-level
    keys (401), in that order (workspace chat shares it)."""
    if body.get("filters") is not None:
        raise HonchoError(422, "`scope` and `filters` are mutually exclusive")
    if body.get("session_id"):
        raise HonchoError(422, "`scope` and `session_id` are mutually exclusive")
    refuse_peer_key(request)


def session_union(fake: Server, ws: str, names: list[str]) -> list[str]:
    """Every session the named scopes ever had a membership row in (404 for a missing
    scope), at most 1000 of them (422)."""
    union: dict[str, None] = {}
    with fake.store.lock:
        for scope_peer in scopes.resolve(fake, ws, names):
            union.update(dict.fromkeys(scopes.sessions_of(fake.store, ws, scope_peer)))
    if len(union) > MAX_SESSIONS:
        raise HonchoError(
            422,
            "The scopes' combined membership exceeds the maximum of "
            f"{MAX_SESSIONS} sessions per request",
        )
    return list(union)


def context_scope(
    fake: Server,
    request: Request,
    ws: str,
    *,
    peer_target: str | None,
    peer_perspective: str | None,
) -> str | None:
    """Session context's ``scope``: the scope peer to read the target from, or None.

    Checked as the server checks it, after ``peer_perspective`` needs ``peer_target`` and
    before anything about ``sessions`` but their clash with ``scope``. Only versions with
    ``Feature.CONTEXT_SESSIONS`` call it: 3.0.12 drops the parameter unread.
    """
    scope = request.query_params.get("scope")
    with fake.store.lock:
        if peer_target is not None:
            scopes.reject_scope_observed(
                fake, ws, [peer_target], f"{scopes.NO_REPRESENTATION} a context target."
            )
        if peer_perspective is not None:
            scopes.reject_scopes(fake, ws, [peer_perspective], "Use the `scope` parameter instead.")
    if scope is None:
        return None
    if peer_perspective:
        raise HonchoError(422, "`scope` and `peer_perspective` are mutually exclusive")
    if not peer_target:
        raise HonchoError(422, "peer_target must be provided if scope is provided")
    refuse_narrow_key(request)
    if "sessions" in request.query_params:
        raise HonchoError(422, "`sessions` and `scope` are mutually exclusive")
    with fake.store.lock:
        [scope_peer] = scopes.resolve(fake, ws, [scope])
    return scope_peer
