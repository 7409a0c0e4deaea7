"""The HTTP rules a real Honcho gets from its FastAPI and Starlette (FastAPI 0.136,
Starlette 1.0, as Honcho 3.0.12 and 3.1 pin them), whatever Starlette the fake runs on.

* **Content type** (:func:`is_json`): a body is read as JSON only when the request's
  ``Content-Type`` is ``application/json`` or ``application/*+json`` (parameters and
  case aside, parsed as ``email.message`` parses it); any other type, or none, hands the
  model the raw text, which it refuses with ``model_attributes_type`` (``dict_type``,
  ``list_type`` for a map or list body), loc ``["body"]``.
* **Undecodable bodies**: a JSON body that is not UTF-8 (nor UTF-16/32), or nests deeper
  than Python's parser goes, is a 400 :data:`PARSE_ERROR` (``fastapi.routing``).
* **Methods**: FastAPI routes answer their one method only, so HEAD on a GET route is a
  405 (:func:`without_implicit_head`); ``Allow`` names the methods of the first route whose
  path matches, in Honcho's declaration order (:func:`in_honcho_order`).
* **CORS** (:class:`CORSMiddleware`): Honcho's ``CORSMiddleware(allow_origins=CORS_ORIGINS,
  allow_credentials=True, allow_methods=["*"], allow_headers=["*"])``, answered as
  Starlette 1.0 does; it sits inside the server's error middleware, so the 500 of an
  unhandled error carries no CORS headers.
"""

from __future__ import annotations

import email.message
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from pydantic_core import from_json
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fake_honcho.errors import HonchoError, json_invalid

__all__ = [
    "BODY_SCOPE_KEY",
    "DEFAULT_CORS_ORIGINS",
    "IGNORED_SCOPE_KEY",
    "JSON_SCOPE_KEY",
    "PARSE_ERROR",
    "UNEXPECTED_ERROR",
    "UNHANDLED_SCOPE_KEY",
    "CORSMiddleware",
    "decode_json",
    "header",
    "in_honcho_order",
    "is_json",
    "without_implicit_head",
]

#: Honcho's ``CORS_ORIGINS`` default (src/config.py, 3.0.12 and 3.1).
DEFAULT_CORS_ORIGINS: tuple[str, ...] = (
    "http://localhost",
    "http://127.0.0.1:8000",
    "https://api.honcho.dev",
)
PARSE_ERROR = "There was an error parsing the body"
UNEXPECTED_ERROR = "An unexpected error occurred"  # Honcho's own 500 text
# What the journal middleware (fake_honcho.harness.journal) and the handlers leave for
# each other on the request's scope:
BODY_SCOPE_KEY = "fake_honcho.body"  # the buffered body
JSON_SCOPE_KEY = "fake_honcho.json"  # the body as a handler decoded it, when one did
IGNORED_SCOPE_KEY = "fake_honcho.ignored"  # the dropped fields (fake_honcho.http.ignored)
UNHANDLED_SCOPE_KEY = "fake_honcho.unhandled"
"""Set on the scope of a request answered with the 500 of an unhandled error."""


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI reads a body sent with this ``Content-Type`` as JSON (a client
    sends the same few, so each is parsed once)."""
    if not content_type:
        return False
    return _is_json_type(content_type)


@lru_cache(maxsize=256)
def _is_json_type(content_type: str) -> bool:
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def without_implicit_head(routes: Iterable[BaseRoute]) -> list[BaseRoute]:
    """``routes`` with the HEAD Starlette adds beside GET taken away where FastAPI has none.

    FastAPI's API routes keep the methods they declare; Honcho's plain Starlette routes
    (``/metrics``) and the API description pages (``/openapi.json``, ``/docs``,
    ``/redoc``) keep their HEAD.
    """
    routes = list(routes)
    for route in routes:
        if isinstance(route, Route) and route.methods and route.path not in _STARLETTE_PATHS:
            route.methods.discard("HEAD")
    return routes


_STARLETTE_PATHS = frozenset({"/metrics", "/openapi.json", "/docs", "/redoc"})

# Honcho's routes in the order its app declares them (src/main.py includes the routers;
# each router file declares its routes top to bottom); 3.1 adds workspace chat and scopes.
_ORDER: tuple[str, ...] = (
    "POST /v3/workspaces",
    "POST /v3/workspaces/list",
    "PUT /v3/workspaces/{workspace_id}",
    "DELETE /v3/workspaces/{workspace_id}",
    "POST /v3/workspaces/{workspace_id}/search",
    "GET /v3/workspaces/{workspace_id}/queue/status",
    "POST /v3/workspaces/{workspace_id}/schedule_dream",
    "POST /v3/workspaces/{workspace_id}/chat",
    "POST /v3/workspaces/{workspace_id}/peers/list",
    "POST /v3/workspaces/{workspace_id}/peers",
    "PUT /v3/workspaces/{workspace_id}/peers/{peer_id}",
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/sessions",
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/chat",
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/representation",
    "GET /v3/workspaces/{workspace_id}/peers/{peer_id}/card",
    "PUT /v3/workspaces/{workspace_id}/peers/{peer_id}/card",
    "GET /v3/workspaces/{workspace_id}/peers/{peer_id}/context",
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/search",
    "POST /v3/workspaces/{workspace_id}/sessions/list",
    "POST /v3/workspaces/{workspace_id}/sessions",
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}",
    "DELETE /v3/workspaces/{workspace_id}/sessions/{session_id}",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/clone",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/peers",
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}/peers",
    "DELETE /v3/workspaces/{workspace_id}/sessions/{session_id}/peers",
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/peers/{peer_id}/config",
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}/peers/{peer_id}/config",
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/peers",
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/context",
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/summaries",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/search",
    "POST /v3/workspaces/{workspace_id}/scopes",
    "POST /v3/workspaces/{workspace_id}/scopes/list",
    "GET /v3/workspaces/{workspace_id}/scopes/{scope_id}",
    "POST /v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions",
    "DELETE /v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions/{session_id}",
    "POST /v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions/list",
    "GET /v3/workspaces/{workspace_id}/scopes/{scope_id}/status",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/upload",
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/list",
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/{message_id}",
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/{message_id}",
    "POST /v3/workspaces/{workspace_id}/conclusions",
    "POST /v3/workspaces/{workspace_id}/conclusions/list",
    "POST /v3/workspaces/{workspace_id}/conclusions/query",
    "DELETE /v3/workspaces/{workspace_id}/conclusions/{conclusion_id}",
    "GET /v3/workspaces/{workspace_id}/conclusions/{conclusion_id}",  # 3.2, after DELETE
    "POST /v3/keys",
    "POST /v3/workspaces/{workspace_id}/webhooks",
    "GET /v3/workspaces/{workspace_id}/webhooks",
    "DELETE /v3/workspaces/{workspace_id}/webhooks/{endpoint_id}",
    "GET /v3/workspaces/{workspace_id}/webhooks/test",
)
_RANK = {key: rank for rank, key in enumerate(_ORDER)}


def _rank(route: BaseRoute) -> int:
    """Honcho's position of the route; routes it does not have (the fake's own) first."""
    if not isinstance(route, Route) or not route.methods:
        return -1
    ranks = [_RANK.get(f"{method} {route.path}", -1) for method in route.methods]
    return max(ranks)


def in_honcho_order(routes: Iterable[BaseRoute]) -> list[BaseRoute]:
    """``routes`` ordered as Honcho declares them (a stable sort: the fake's own routes,
    which share no path with Honcho's, keep their order ahead of them)."""
    return sorted(routes, key=_rank)


class CORSMiddleware:
    """Honcho's CORS settings, answered as Starlette 1.0's ``CORSMiddleware`` does.

    A request without ``Origin`` passes untouched. A preflight (``OPTIONS`` with
    ``Access-Control-Request-Method``) is answered here: 200 ``OK``, or 400 ``Disallowed
    CORS origin`` (and ``method``, ``private-network``) naming every refusal. Any other
    request with an ``Origin`` gets ``Access-Control-Allow-Credentials: true``, and, when
    the origin is allowed, ``Access-Control-Allow-Origin`` echoing it and ``Vary: Origin``
    (not on the 500 of an unhandled error, which the real server's error middleware
    sends from outside its CORS middleware).
    """

    METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
    MAX_AGE = "600"

    def __init__(self, app: ASGIApp, origins: Sequence[str]) -> None:
        self.app = app
        self.origins = tuple(origins)
        self.any_origin = "*" in self.origins

    def allowed(self, origin: str) -> bool:
        return self.any_origin or origin in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if header(scope, b"origin") is None:  # not a CORS request
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers["origin"]
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            await self.preflight(origin, headers)(scope, receive, send)
        else:
            await self.app(scope, receive, self._with_headers(scope, origin, send))

    def preflight(self, origin: str, headers: Headers) -> PlainTextResponse:
        answer = {
            "Vary": "Origin",
            "Access-Control-Allow-Methods": ", ".join(self.METHODS),
            "Access-Control-Max-Age": self.MAX_AGE,
        }
        refused = []
        if self.allowed(origin):
            answer["Access-Control-Allow-Origin"] = origin
        else:
            refused.append("origin")
        if headers["access-control-request-method"] not in self.METHODS:
            refused.append("method")
        requested = headers.get("access-control-request-headers")
        if requested is not None:
            answer["Access-Control-Allow-Headers"] = requested  # every header is allowed
        if headers.get("access-control-request-private-network") is not None:
            refused.append("private-network")
        answer["Access-Control-Allow-Credentials"] = "true"
        if refused:
            return PlainTextResponse(
                "Disallowed CORS " + ", ".join(refused), status_code=400, headers=answer
            )
        return PlainTextResponse("OK", headers=answer)

    def _with_headers(self, scope: Scope, origin: str, send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and not scope.get(UNHANDLED_SCOPE_KEY):
                message.setdefault("headers", [])
                headers = MutableHeaders(scope=message)
                headers["Access-Control-Allow-Credentials"] = "true"
                if self.allowed(origin):
                    headers["Access-Control-Allow-Origin"] = origin
                    headers.add_vary_header("Origin")
            await send(message)

        return sending


def header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of the lowercased header ``name`` of an HTTP request, read from the
    scope (no headers object built per request), or None when it was not sent."""
    for sent, value in scope.get("headers", ()):
        if sent == name:
            return value
    return None


def decode_json(raw: bytes) -> Any:
    """``json.loads(raw)``, FastAPI's 422 for a body it refuses, or its 400 for one it
    cannot decode (not UTF-8, or nested deeper than the parser recurses)."""
    try:
        # pydantic-core's parser is about twice as fast as json's and gives the same
        # values for whatever it accepts; it refuses more (lone surrogates, a BOM, UTF-16,
        # deep nesting), and json.loads decides those.
        return from_json(raw)
    except ValueError:
        pass
    try:
        if raw.isascii() and b"\x00" not in raw[:4]:
            # What json.loads(raw) would detect and decode, minus its detection.
            return json.loads(raw.decode("ascii"))
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise json_invalid(error) from None
    except (UnicodeDecodeError, RecursionError):
        raise HonchoError(400, PARSE_ERROR) from None
