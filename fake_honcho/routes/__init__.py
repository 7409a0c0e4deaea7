"""The handlers: one module per resource, each exporting ``routes: list[Route]``.

How to add a route
------------------
1. In a module of ``fake_honcho/routes/``, write an ``async def handler(request) ->
   Response``. Reach the fake through ``fake_of(request)`` (``fake_honcho.http.endpoint``);
   hold ``fake.store.lock`` around any read-modify-write.
2. Read input with ``fake_honcho.http.endpoint``: ``await read_body(request, "SchemaName")``
   (parsed + validated against ``schemas/SchemaName.json``; 422 in Honcho's shape),
   ``query_int``/``query_bool``/``query_str``, ``page_params`` from
   ``fake_honcho.http.pagination`` and ``compile_filter`` from ``fake_honcho.store.filters``.
3. Fail with ``raise HonchoError(status, "real detail text")`` (``fake_honcho.errors``).
4. Answer with ``respond(request, payload, status=..., schema="Name", many=...)`` so
   strict fakes check the response against ``schemas/Name.json``.
5. Append ``guarded(RULE, Route(path, handler, methods=[...]))`` to the module's ``routes``
   list. Every non-underscore module here is picked up automatically. A route that
   exists only from some Honcho version on is appended as ``versioned(Feature.X, ...)``
   (``fake_honcho.versions``).
"""

from __future__ import annotations

import importlib
import pkgutil

from starlette.routing import BaseRoute

from fake_honcho.http.http_rules import in_honcho_order, without_implicit_head
from fake_honcho.versions import HonchoVersion, feature_of, resolve_version


def collect_routes(version: HonchoVersion | str | None = None) -> list[BaseRoute]:
    """``routes`` of every module in ``fake_honcho/routes/``, less those marked
    :func:`~fake_honcho.versions.versioned` with a feature ``version`` (default:
    :data:`~fake_honcho.versions.DEFAULT_VERSION`) does not speak; in Honcho's order, with
    only the methods FastAPI answers (``fake_honcho.http.http_rules``)."""
    speaks = resolve_version(version).speaks
    collected: list[BaseRoute] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            collected.extend(getattr(module, "routes", []))
    served = [route for route in collected if (needs := feature_of(route)) is None or speaks(needs)]
    return in_honcho_order(without_implicit_head(served))
