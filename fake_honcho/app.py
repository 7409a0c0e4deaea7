"""Assembles the fake's Starlette app from the route modules.

How to add a route
------------------
1. In a module of ``fake_honcho/routes/`` (or ``fake_honcho/deriver/routes.py``), write
   an ``async def handler(request) -> Response``. Reach the fake through
   ``fake_of(request)`` (``fake_honcho.endpoint``); hold ``fake.store.lock`` around any
   read-modify-write.
2. Read input with ``fake_honcho.endpoint``: ``await read_body(request, "SchemaName")``
   (parsed + validated against ``schemas/SchemaName.json``; 422 in Honcho's shape),
   ``query_int``/``query_bool``/``query_str``, ``page_params`` from
   ``fake_honcho.pagination`` and ``compile_filter`` from ``fake_honcho.filters``.
3. Fail with ``raise HonchoError(status, "real detail text")`` (``fake_honcho.errors``).
4. Answer with ``respond(request, payload, status=..., schema="Name", many=...)`` so
   strict fakes check the response against ``schemas/Name.json``.
5. Append ``Route(path, handler, methods=[...])`` to the module's ``routes`` list.
   Every non-underscore module in ``fake_honcho/routes/`` is picked up automatically.
   A route that exists only from some Honcho version on is appended as
   ``versioned(Feature.X, Route(...))`` (``fake_honcho.versions``).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from fake_honcho import routes as routes_package
from fake_honcho.errors import exception_handlers
from fake_honcho.http_rules import in_honcho_order, without_implicit_head
from fake_honcho.routing import DispatchRouter, RoutedShortcut
from fake_honcho.versions import HonchoVersion, feature_of, resolve_version

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

DERIVER_ROUTES = "fake_honcho.deriver.routes"


def collect_routes(version: HonchoVersion | str | None = None) -> list[BaseRoute]:
    """``routes`` of every module in ``fake_honcho/routes/``, then the deriver's, if any,
    less those marked :func:`~fake_honcho.versions.versioned` with a feature ``version``
    (default: :data:`~fake_honcho.versions.DEFAULT_VERSION`) does not speak; in Honcho's
    order, with only the methods FastAPI answers (``fake_honcho.http_rules``)."""
    speaks = resolve_version(version).speaks
    modules = [
        f"{routes_package.__name__}.{info.name}"
        for info in sorted(pkgutil.iter_modules(routes_package.__path__), key=lambda i: i.name)
        if not info.name.startswith("_")
    ]
    if importlib.util.find_spec(DERIVER_ROUTES) is not None:
        modules.append(DERIVER_ROUTES)
    collected: list[BaseRoute] = []
    for name in modules:
        collected.extend(getattr(importlib.import_module(name), "routes", []))
    served = [route for route in collected if (needs := feature_of(route)) is None or speaks(needs)]
    return in_honcho_order(without_implicit_head(served))


class HonchoApp(Starlette):
    """The fake's Starlette app: a :class:`DispatchRouter`, and the fake one attribute away.

    Handlers reach the fake with ``fake_of(request)`` (``request.app.fake``);
    ``request.app.state.fake`` is the same object.
    """

    router: DispatchRouter

    def __init__(self, fake: FakeHoncho) -> None:
        super().__init__(exception_handlers=dict(exception_handlers))
        self.router = DispatchRouter(collect_routes(fake.version))
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


def build_app(fake: FakeHoncho) -> HonchoApp:
    """A Starlette app serving the routes of ``fake.version`` over ``fake``'s state.

    Its router finds routes by a table lookup (``fake_honcho.routing``) instead of
    trying each route's regex in turn; everything else is Starlette's.
    """
    return HonchoApp(fake)
