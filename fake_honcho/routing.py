"""Route lookup by method and path shape instead of Starlette's linear scan.

Starlette's ``Router`` tries each route's regex in turn, about fifty of them here, so
a request to a late route pays dozens of regex matches before its handler runs.
:class:`DispatchRouter` indexes the routes by method and segment count and compares
segments as strings; among the routes of one shape it keeps the declaration order,
so the route it picks is the first one Starlette's scan would fully match. Anything
it does not answer itself (no full match, so a 404, a 405 or a slash redirect; a
``root_path``; a path ending in a newline, which a ``$`` anchor tolerates) goes to
Starlette's own scan, so every answer other than the hit is Starlette's.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from starlette.routing import BaseRoute, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["DispatchRouter", "RoutedShortcut"]

Table = dict[tuple[str, int], list["_Shape"]]


class _Shape:
    """A route's path as segments: literal ones compared as strings, ``{name}`` ones taken."""

    __slots__ = ("literals", "literals_at", "names", "params_at", "route")

    def __init__(self, route: Route, segments: list[str]) -> None:
        self.route = route
        literal = [i for i, segment in enumerate(segments) if not _is_param(segment)]
        params = [i for i, segment in enumerate(segments) if _is_param(segment)]
        # Segment 0 is always the literal "" before the leading slash; adding it keeps
        # itemgetter returning a tuple even for one index.
        self.literals_at = itemgetter(*literal, 0)
        self.literals: Any = self.literals_at(segments)
        self.params_at = itemgetter(*params, 0)
        self.names = tuple(segments[i][1:-1] for i in params)

    def params(self, parts: list[str]) -> dict[str, str] | None:
        """The path parameters if ``parts`` has this shape, else None."""
        if self.literals_at(parts) != self.literals:
            return None
        values = self.params_at(parts)[:-1]
        if not all(values):  # a parameter matches one or more characters
            return None
        return dict(zip(self.names, values, strict=True))


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
        for route in self.routes:
            segments = _segments(route)
            if segments is None:
                return {}
            assert isinstance(route, Route) and route.methods
            shape = _Shape(route, segments)
            for method in route.methods:
                table.setdefault((method, len(segments)), []).append(shape)
        return table

    def lookup(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        """The first route fully matching ``method`` and ``path``, with its path parameters.

        None when there is none, or when the answer is left to Starlette's scan.
        """
        if self._table is None:
            self._table = self._index()
        if path.endswith("\n"):
            return None
        parts = path.split("/")
        for shape in self._table.get((method, len(parts)), ()):
            params = shape.params(parts)
            if params is not None:
                return shape.route, params
        return None

    def match(self, scope: Scope) -> tuple[Route, dict[str, str]] | None:
        """:meth:`lookup` for an HTTP scope the table can answer, else None."""
        if scope["type"] != "http" or scope.get("root_path"):
            return None
        return self.lookup(scope["method"], scope["path"])

    async def handle_match(
        self, found: tuple[Route, dict[str, str]], scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Hand the request to the matched route, with the scope Starlette's router sets."""
        route, params = found
        if "router" not in scope:
            scope["router"] = self
        scope["route"] = route
        scope["endpoint"] = route.endpoint
        inherited = scope.get("path_params")
        scope["path_params"] = {**inherited, **params} if inherited else params
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
        scope["starlette.exception_handlers"] = self.handlers
        await self.router.handle_match(found, scope, receive, send)
