"""``POST /v3/workspaces/{w}/chat`` (3.1 on): the dialectic over the whole workspace.

Refusals in the real server's order: the body (``WorkspaceChatOptions``), ``scope``
(beside ``session_id``, a narrow key, a missing scope, more than 1000 sessions), the
``response_format`` root, then a missing workspace or session (404). The answer is the
toy deriver's (``fake_honcho.deriver.workspace_chat``), plain or streamed as peer chat;
a scope confines it to its member sessions (peers who spoke there, explicit
conclusions stated there; fail-closed when it has none).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from fake_honcho.deriver import chat, workspace_chat
from fake_honcho.deriver.scoped import check_scope_option, session_union
from fake_honcho.endpoint import fake_of, read_body, respond, strip_nul
from fake_honcho.errors import HonchoError
from fake_honcho.resources import get_active_session, get_workspace
from fake_honcho.versions import Feature, versioned


async def workspace_chat_route(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id = request.path_params["workspace_id"]
    body = await read_body(request, "WorkspaceChatOptions")
    scope = body.get("scope")
    sessions: list[str] | None = None
    if scope is not None:
        check_scope_option(request, body)
        sessions = session_union(fake, workspace_id, [scope] if isinstance(scope, str) else scope)
    response_format = body.get("response_format")
    if response_format is not None:
        try:
            workspace_chat.check_response_format(response_format)
        except ValueError as error:
            raise HonchoError(422, f"Invalid response_format: {error}") from None
    with fake.store.lock:
        get_workspace(fake, workspace_id)
        if body.get("session_id"):
            get_active_session(fake, workspace_id, body["session_id"])
        peers = workspace_chat.active_peers(fake.store, workspace_id, fake.clock(), sessions)
        recall = [
            (
                peer_id,
                workspace_chat.recalled(
                    fake.deriver.conclusions.of_pair(workspace_id, peer_id, peer_id), sessions
                ),
            )
            for peer_id in peers
        ]
    text, used = workspace_chat.answer(
        strip_nul(body["query"]), recall, body.get("reasoning_level", "low")
    )
    if response_format:
        text = chat.structured(text, used, response_format)
    if body.get("stream"):
        return StreamingResponse(chat.sse_events(text), media_type="text/event-stream")
    return respond(request, {"content": text}, schema="DialecticResponse")


routes = [
    versioned(
        Feature.WORKSPACE_CHAT,
        Route("/v3/workspaces/{workspace_id}/chat", workspace_chat_route, methods=["POST"]),
    ),
]
