"""The fake's Starlette app over a list of routes (``fake_honcho.routes.collect_routes``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from fake_honcho.http.handlers import exception_handlers
from fake_honcho.http.routing import DispatchRouter, Found, RoutedShortcut, raising

if TYPE_CHECKING:
    from fake_honcho.http.protocol import Server


class HonchoApp(Starlette):
    """The fake's Starlette app: a :class:`DispatchRouter`, and the fake one attribute away.

    Handlers reach the fake with ``fake_of(request)`` (``request.app.fake``);
    ``request.app.state.fake`` is the same object.
    """

    router: DispatchRouter

    def __init__(self, fake: Server, routes: Sequence[BaseRoute]) -> None:
        super().__init__(exception_handlers=dict(exception_handlers))
        self.router = DispatchRouter(list(routes))
        self.fake = fake
        self.state.fake = fake
        self._shortcut: RoutedShortcut | None = None

    def build_middleware_stack(self) -> ASGIApp:
        """Starlette's stack, with :class:`RoutedShortcut` under its error middleware.

        Installed only when the stack has the shape and handler tables it is known
        to have (``ServerErrorMiddleware`` around ``ExceptionMiddleware``).
        """
        stack = super().build_middleware_stack()
        inner = getattr(stack, "app", None)
        handlers = (
            getattr(inner, "_exception_handlers", None),
            getattr(inner, "_status_handlers", None),
        )
        if (
            isinstance(stack, ServerErrorMiddleware)
            and isinstance(inner, ExceptionMiddleware)
            and isinstance(handlers[0], dict)
            and isinstance(handlers[1], dict)
        ):
            stack.app = self._shortcut = RoutedShortcut(inner, self.router, handlers)
        return stack

    def match(self, scope: Scope) -> Found | None:
        """The route the router's table finds for ``scope``, when :meth:`serve_matched` can
        serve it (the stack has its known shape); None: call the app as usual."""
        if self.middleware_stack is None:
            self.middleware_stack = self.build_middleware_stack()
        return None if self._shortcut is None else self.router.match(scope)

    async def serve_matched(self, found: Found, scope: Scope, receive: Receive, send: Send) -> None:
        """What calling the app does with a request :meth:`match` found, minus the error
        middleware: an exception nothing handled comes out as it is, for the caller to
        hand to :meth:`answer_unhandled` if no answer has started."""
        assert self._shortcut is not None
        scope["app"] = self
        await self._shortcut.serve(found, scope, receive, send)

    async def answer_unhandled(
        self, error: Exception, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The error middleware's answer to ``error`` escaping :meth:`serve_matched` before
        any answer started: the catch-all handler's 500 sent, then ``error`` re-raised."""
        stack = self.middleware_stack
        assert isinstance(stack, ServerErrorMiddleware)
        middleware = ServerErrorMiddleware(raising(error), handler=stack.handler, debug=stack.debug)
        await middleware(scope, receive, send)


def build_app(fake: Server, routes: Sequence[BaseRoute]) -> HonchoApp:
    """A Starlette app serving ``routes`` over ``fake``'s state.

    Its router finds routes by a table lookup (``fake_honcho.http.routing``) instead of
    trying each route's regex in turn; everything else is Starlette's.
    """
    return HonchoApp(fake, routes)
