"""``POST /v3/workspaces/{w}/chat`` (3.1 on): the dialectic over the whole workspace.

Refusals in the real server's order: the body (``WorkspaceChatOptions``), ``scope``
(beside ``session_id``, a narrow key, a missing scope, more than 1000 sessions), the
``response_format`` (checked as peer chat checks it), then a missing workspace or
session (404). The answer is the toy deriver's (``fake_honcho.deriver.workspace_chat``),
plain or streamed as peer chat, with its evidence when asked (3.2);
a scope confines it to its member sessions (peers who spoke there, explicit
conclusions stated there; fail-closed when it has none).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from fake_honcho.deriver import chat, workspace_chat
from fake_honcho.errors import HonchoError
from fake_honcho.http.endpoint import fake_of, read_body, strip_nul
from fake_honcho.http.operations import Answer, Body, api_route
from fake_honcho.http.permissions import IN_WORKSPACE
from fake_honcho.routes._response_format import check_response_format
from fake_honcho.routes._scoped import check_scope_option, session_union
from fake_honcho.routes.deriver import chat_response
from fake_honcho.store.resources import get_active_session, get_workspace
from fake_honcho.versions import Feature

W = "/v3/workspaces/{workspace_id}"


async def workspace_chat_route(request: Request) -> Response:
    fake = fake_of(request)
    workspace_id = request.path_params["workspace_id"]
    body = await read_body(request, "WorkspaceChatOptions")
    scope = body.get("scope")
    sessions: list[str] | None = None
    if scope is not None:
        check_scope_option(request, body)
        sessions = session_union(fake, workspace_id, [scope] if isinstance(scope, str) else scope)
    if body.get("response_format") is not None:
        check_response_format(body["response_format"])
    with fake.store.lock:
        try:
            get_workspace(fake, workspace_id)
            if body.get("session_id"):
                get_active_session(fake, workspace_id, body["session_id"])
        except HonchoError:
            if body.get("stream"):  # looked up inside the stream, after its 200 has started
                return StreamingResponse(iter(()), media_type="text/event-stream")
            raise
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
    return chat_response(request, body, chat.Reply(text, used))


routes = [
    api_route(IN_WORKSPACE, "POST", W + "/chat", workspace_chat_route,
        "chat", "workspaces",
        "Answers a question from what was derived across the workspace (or one scope); "
        "streamed as server-sent events when asked.",
        Answer(200, "DialecticResponse", inline=True, stream=True), Body("WorkspaceChatOptions"),
        needs=Feature.WORKSPACE_CHAT),
]  # fmt: skip
