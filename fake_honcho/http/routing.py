"""Route lookup by method and path shape instead of Starlette's linear scan.

Starlette's ``Router`` tries each route's regex in turn, about fifty of them here, so
a request to a late route pays dozens of regex matches before its handler runs.
:class:`DispatchRouter` indexes the routes by method and segment count and compares
segments as strings; among the routes of one shape it keeps the declaration order,
so the route it picks is the first one Starlette's scan would fully match. Anything
it does not answer itself (no full match, so a 404, a 405 or a slash redirect; a
``root_path``; a path ending in a newline, which a ``$`` anchor tolerates) goes to
Starlette's own scan, so every answer other than the hit is Starlette's.

A hit whose route is Starlette's ``request_response`` around a coroutine endpoint
(every route of the fake) calls the endpoint directly (:func:`_serve`): the same
``Request``, the same exception handling, without the three closures and calls
Starlette builds around it per request.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from operator import itemgetter
from typing import Any

from starlette._exception_handler import wrap_app_handling_exceptions
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, Router, request_response
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.http.parameters import check_request

__all__ = ["DispatchRouter", "Found", "RoutedShortcut", "raising"]

Table = dict[tuple[str, int], "_Group"]
Found = tuple["_Shape", dict[str, str]]


class _Shape:
    """A route's path as segments: literal ones compared as strings, ``{name}`` ones taken."""

    __slots__ = ("endpoint", "literal", "literals", "names", "order", "params_at", "route")

    def __init__(self, route: Route, segments: list[str], order: int) -> None:
        self.route = route
        self.order = order  # declaration order: the first full match wins
        self.endpoint = _plain_endpoint(route)
        self.literal = tuple(i for i, segment in enumerate(segments) if not _is_param(segment))
        self.literals = tuple(segments[i] for i in self.literal)
        params = [i for i, segment in enumerate(segments) if _is_param(segment)]
        # Segment 0 is always the literal "" before the leading slash; adding it keeps
        # itemgetter returning a tuple even for one index.
        self.params_at = itemgetter(*params, 0)
        self.names = tuple(segments[i][1:-1] for i in params)

    def params(self, parts: list[str]) -> dict[str, str] | None:
        """The path parameters of ``parts`` (whose literal segments are this shape's), or
        None if one is empty."""
        values = self.params_at(parts)[:-1]
        if not all(values):  # a parameter matches one or more characters
            return None
        return dict(zip(self.names, values, strict=True))


class _Group:
    """The shapes of one method and segment count, found by their literal segments: one
    dict lookup per layout of literals (usually one) instead of a comparison per route."""

    __slots__ = ("_by_literal", "layouts")

    def __init__(self) -> None:
        self.layouts: list[tuple[itemgetter[Any], dict[Any, list[_Shape]]]] = []
        self._by_literal: dict[tuple[int, ...], dict[Any, list[_Shape]]] = {}

    def add(self, shape: _Shape) -> None:
        by_literals = self._by_literal.get(shape.literal)
        if by_literals is None:
            by_literals = self._by_literal[shape.literal] = {}
            self.layouts.append((itemgetter(*shape.literal, 0), by_literals))
        by_literals.setdefault((*shape.literals, ""), []).append(shape)

    def shapes(self) -> list[_Shape]:
        return [
            shape
            for _, by_literals in self.layouts
            for found in by_literals.values()
            for shape in found
        ]

    def find(self, parts: list[str]) -> Found | None:
        """The first shape in declaration order that fully matches ``parts``."""
        best: Found | None = None
        for literals_at, by_literals in self.layouts:
            for shape in by_literals.get(literals_at(parts), ()):
                if best is not None and shape.order > best[0].order:
                    break
                params = shape.params(parts)
                if params is not None:
                    best = (shape, params)
                    break
        return best


Endpoint = Callable[[Request], Awaitable[Response]]


async def _probe(request: Request) -> Response:  # pragma: no cover - never called
    raise AssertionError


_REQUEST_RESPONSE = request_response(_probe).__code__  # type: ignore[attr-defined]
_STARTED = "Caught handled exception, but response already started."  # Starlette's words


def _plain_endpoint(route: Route) -> Endpoint | None:
    """The route's endpoint if its app is exactly Starlette's ``request_response`` of it
    (a coroutine function, no route middleware), which :func:`_serve` stands in for."""
    app, endpoint = route.app, route.endpoint
    if getattr(app, "__code__", None) is not _REQUEST_RESPONSE:
        return None
    if not inspect.iscoroutinefunction(endpoint):
        return None
    if inspect.getclosurevars(app).nonlocals.get("f") is not endpoint:
        return None
    return endpoint


async def _serve(endpoint: Endpoint, scope: Scope, receive: Receive, send: Send) -> None:
    """What ``request_response(endpoint)`` does, without its closures per request.

    The endpoint's exceptions, and responses other than a plain :class:`Response`
    (streams), go through Starlette's own exception wrapper. A plain response sends its
    start before anything in it can fail, so a failure there is what the wrapper makes
    of an exception after the start: re-raised, as a ``RuntimeError`` when a handler
    would have taken it.
    """
    request = Request(scope, receive, send)
    fake = getattr(scope.get("app"), "fake", None)
    try:
        if fake is None:  # an app without a fake: the endpoint alone
            response = await endpoint(request)
        else:  # FastAPI's checks of the request, then the endpoint: one transaction
            with fake.store.transaction():
                await check_request(request, scope["route"])
                response = await endpoint(request)
    except Exception as error:
        failed = error
    else:
        if type(response).__call__ is not Response.__call__:
            await wrap_app_handling_exceptions(response, request)(scope, receive, send)
            return
        try:  # what Response.__call__ does for an HTTP scope, one coroutine fewer
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": response.raw_headers,
                }
            )
            await send({"type": "http.response.body", "body": response.body})
            if response.background is not None:
                await response.background()
        except Exception as error:
            if _handles(scope, error):
                raise RuntimeError(_STARTED) from error
            raise
        return
    await wrap_app_handling_exceptions(raising(failed), request)(scope, receive, send)


def raising(error: Exception) -> ASGIApp:
    """An app that raises ``error``: for a handler stack to handle it as the app's."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise error

    return app


def _handles(scope: Scope, error: Exception) -> bool:
    """Whether the scope's exception handlers (as Starlette looks them up) take ``error``."""
    exception_handlers, status_handlers = scope.get("starlette.exception_handlers", ({}, {}))
    if isinstance(error, HTTPException) and error.status_code in status_handlers:
        return True
    return any(kind in exception_handlers for kind in type(error).__mro__)


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _segments(route: BaseRoute) -> list[str] | None:
    """The path segments of a ``Route`` with methods whose parameters are whole segments.

    ``{name}`` alone in its segment is a ``str`` parameter (``[^/]+``); a typed one
    (``{name:int}``), one sharing a segment with text, or a mount is not indexed.
    """
    if not isinstance(route, Route) or not route.methods or not route.path.startswith("/"):
        return None
    segments = route.path.split("/")
    params = [segment[1:-1] for segment in segments if _is_param(segment)]
    return segments if params == list(route.param_convertors) else None


class DispatchRouter(Router):
    """A ``Router`` that finds a fully matching route by a table lookup (see module doc).

    The table is built from ``routes`` on first use (a route appended later is still
    found, by the scan a miss falls back to). If any route cannot be indexed (a
    mount, a typed parameter, no methods), every request goes to Starlette's scan.
    """

    def __init__(self, routes: Sequence[BaseRoute] | None = None) -> None:
        super().__init__(routes=routes)
        self._table: Table | None = None

    def _index(self) -> Table:
        table: Table = {}
        for order, route in enumerate(self.routes):
            segments = _segments(route)
            if segments is None:
                return {}
            assert isinstance(route, Route) and route.methods
            shape = _Shape(route, segments, order)
            for method in route.methods:
                group = table.get((method, len(segments)))
                if group is None:
                    group = table[method, len(segments)] = _Group()
                group.add(shape)
        return table

    def lookup(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        """The first route fully matching ``method`` and ``path``, with its path parameters.

        None when there is none, or when the answer is left to Starlette's scan.
        """
        found = self._find(method, path)
        return None if found is None else (found[0].route, found[1])

    def _find(self, method: str, path: str) -> Found | None:
        if self._table is None:
            self._table = self._index()
        if path.endswith("\n"):
            return None
        parts = path.split("/")
        group = self._table.get((method, len(parts)))
        return None if group is None else group.find(parts)

    def match(self, scope: Scope) -> Found | None:
        """:meth:`lookup`'s route (as its table entry) for an HTTP scope the table can
        answer, else None."""
        if scope["type"] != "http" or scope.get("root_path"):
            return None
        return self._find(scope["method"], scope["path"])

    async def handle_match(self, found: Found, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand the request to the matched route, with the scope Starlette's router sets."""
        shape, params = found
        route = shape.route
        if "router" not in scope:
            scope["router"] = self
        scope["route"] = route
        scope["endpoint"] = route.endpoint
        inherited = scope.get("path_params")
        scope["path_params"] = {**inherited, **params} if inherited else params
        if shape.endpoint is not None:
            await _serve(shape.endpoint, scope, receive, send)
        else:
            await route.handle(scope, receive, send)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self.match(scope)
        if found is None:
            await super().app(scope, receive, send)
        else:
            await self.handle_match(found, scope, receive, send)


class RoutedShortcut:
    """Takes a request the router's table matches past Starlette's ``ExceptionMiddleware``.

    On that path the middleware's only effect is to put its handlers in the scope
    (``request_response`` around each route catches the route's exceptions with
    them, and re-raises what they do not handle, which the middleware would re-raise
    too); this layer does just that, then calls the route. Every other request goes
    through the middleware and Starlette's router unchanged.
    """

    def __init__(self, app: ASGIApp, router: DispatchRouter, handlers: tuple[Any, Any]) -> None:
        self.app = app
        self.router = router
        self.handlers = handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self.router.match(scope)
        if found is None:
            await self.app(scope, receive, send)
            return
        await self.serve(found, scope, receive, send)

    async def serve(self, found: Found, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request :meth:`DispatchRouter.match` found a route for."""
        scope["starlette.exception_handlers"] = self.handlers
        await self.router.handle_match(found, scope, receive, send)
