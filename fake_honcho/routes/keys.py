"""``POST /v3/keys``: mints a key scoped to a workspace, a peer or a session (admin only).

With a JWT secret the key is the JWT Honcho's ``create_key`` writes (claims ``t``,
``exp``, ``w``, ``p``, ``s``); with the one opaque ``api_key`` it is an opaque key with
the same claims (``fake_honcho.http.auth``). With auth off a real server answers 405.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from fake_honcho.errors import HonchoError
from fake_honcho.http.endpoint import fake_of, query_datetime, query_str, respond
from fake_honcho.http.keyring import iso_utc
from fake_honcho.http.operations import Answer, Param, api_route, or_null, text_param
from fake_honcho.http.permissions import ADMIN_ONLY

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


routes = [
    api_route(ADMIN_ONLY, "POST", "/v3/keys", create_key,
        "create_key", "keys",
        "Issues an api key scoped to a workspace, peer or session (only with auth on).",
        Answer(200), None,
        text_param("workspace_id", "The workspace the key reaches."),
        text_param("peer_id", "The peer the key acts for."),
        text_param("session_id", "The session the key reaches."),
        Param("expires_at", or_null({"type": "string", "format": "date-time"}),
              "When the key stops working.")),
]  # fmt: skip
