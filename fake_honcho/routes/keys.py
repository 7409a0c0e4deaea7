"""``POST /v3/keys``: mints a key scoped to a workspace, a peer or a session (admin only).

With a JWT secret the key is the JWT Honcho's ``create_key`` writes (claims ``t``,
``exp``, ``w``, ``p``, ``s``); with the one opaque ``api_key`` it is an opaque key with
the same claims (``fake_honcho.http.auth``). With auth off a real server answers 405.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fake_honcho.errors import HonchoError
from fake_honcho.http.endpoint import fake_of, query_datetime, query_str, respond
from fake_honcho.http.keyring import iso_utc
from fake_honcho.http.permissions import ADMIN_ONLY, guarded

SCOPE_PARAMS = ("workspace_id", "peer_id", "session_id")
NO_SCOPE = "At least one of workspace_id, peer_id, or session_id must be provided"
SCOPE_WITHOUT_WORKSPACE = "workspace_id is required when scoping a key to a peer or session"


async def create_key(request: Request) -> Response:
    """Checked in the server's order: ``expires_at`` (422), auth off (405), the scope (422)."""
    fake = fake_of(request)
    expires_at = query_datetime(request, "expires_at")
    if fake.keyring is None:
        raise HonchoError(405, "Feature is disabled")
    scope = {
        name: value for name in SCOPE_PARAMS if (value := query_str(request, name)) is not None
    }
    if not any(scope.values()):
        raise HonchoError(422, NO_SCOPE)
    if (scope.get("peer_id") or scope.get("session_id")) and not scope.get("workspace_id"):
        raise HonchoError(422, SCOPE_WITHOUT_WORKSPACE)
    key = fake.keyring.issue(
        scope,
        expires_at=iso_utc(expires_at) if expires_at is not None else None,
        now=fake.clock(),
    )
    return respond(request, {"key": key})


routes = [guarded(ADMIN_ONLY, Route("/v3/keys", create_key, methods=["POST"]))]
