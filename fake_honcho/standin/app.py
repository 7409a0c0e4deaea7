"""The stand-in's HTTP app: OpenAI's ``/v1/chat/completions`` and ``/v1/embeddings``.

Every request is logged (``StandIn.requests``, ``GET /_standin/requests``) with the
task it was read as, so a test can see what Honcho asked. A body that is not a JSON
object is a 400 in OpenAI's error shape; nothing here answers 500 to a bad request.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from fake_honcho.search.embedding import Embedder
from fake_honcho.standin import wire
from fake_honcho.standin.log import RequestLog
from fake_honcho.standin.replies import reply

MODEL = "honcho-standin"


def build_app(standin: RequestLog, embedder: Embedder) -> Starlette:
    async def chat_completions(request: Request) -> Response:
        body = await _json_object(request)
        if isinstance(body, Response):
            return body
        answer = reply(body)
        number = standin.log(request.url.path, body, answer.task, answer.content, answer.tool_calls)
        if body.get("stream"):
            return StreamingResponse(
                wire.chunks(body, answer, number), media_type="text/event-stream"
            )
        return JSONResponse(wire.completion(body, answer, number))

    async def embeddings(request: Request) -> Response:
        body = await _json_object(request)
        if isinstance(body, Response):
            return body
        if body.get("input") in (None, "", []):
            return _error("'input' is required and must not be empty")
        standin.log(request.url.path, body, "embedding")
        return JSONResponse(wire.embedding_list(body, embedder))

    async def models(request: Request) -> Response:
        return JSONResponse(
            {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "standin"}]}
        )

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def requests_log(request: Request) -> Response:
        if request.method == "DELETE":
            standin.clear()
            return Response(status_code=204)
        return JSONResponse(standin.requests)

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/embeddings", embeddings, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
            Route("/_standin/requests", requests_log, methods=["GET", "DELETE"]),
        ]
    )


async def _json_object(request: Request) -> dict[str, Any] | Response:
    try:
        body = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _error("the request body is not valid JSON")
    if not isinstance(body, dict):
        return _error("the request body must be a JSON object")
    return body


def _error(message: str) -> Response:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return JSONResponse({"error": error}, status_code=400)
