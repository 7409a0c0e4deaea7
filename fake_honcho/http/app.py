"""The fake's Starlette app over a list of routes (``fake_honcho.routes.collect_routes``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from fake_honcho.http.handlers import exception_handlers
from fake_honcho.http.routing import DispatchRouter, RoutedShortcut

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
            stack.app = RoutedShortcut(inner, self.router, handlers)
        return stack


def build_app(fake: Server, routes: Sequence[BaseRoute]) -> HonchoApp:
    """A Starlette app serving ``routes`` over ``fake``'s state.

    Its router finds routes by a table lookup (``fake_honcho.http.routing``) instead of
    trying each route's regex in turn; everything else is Starlette's.
    """
    return HonchoApp(fake, routes)
