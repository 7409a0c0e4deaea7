"""The handlers: one module per resource, each exporting ``routes: list[Route]``.

How to add a route (one file here, plus a schema for a new body shape; before the
operations moved beside their routes, also an entry in ``http/operations.py``)
------------------------------------------------------------------------------------
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
5. Declare it in the module's ``routes`` list with ``api_route``
   (``fake_honcho.http.operations``), everything Honcho declares for it in one place: its
   rule (Honcho's ``require_auth``, ``fake_honcho.http.permissions``), method, path and
   handler, then its OpenAPI operation: Honcho's handler name and tag, a description,
   the ``Answer``, the ``Body`` and each query ``Param`` (FastAPI's checks before the
   handler and ``/openapi.json`` are built from them). A route served only from some
   Honcho version on takes ``needs=Feature.X``; so does a query parameter a version adds
   (older versions drop it, and the ignored-field guard says so); ``revised(Feature.X,
   ...)`` gives a route a new body or answer from a version on. Every non-underscore
   module here is picked up automatically. A route outside Honcho's API (``/_fake/``)
   is a plain ``guarded(RULE, Route(...))``.
"""

from __future__ import annotations

import importlib
import pkgutil

from starlette.routing import BaseRoute

from fake_honcho.http.http_rules import in_honcho_order, without_implicit_head
from fake_honcho.versions import HonchoVersion, feature_of, resolve_version


def collect_routes(version: HonchoVersion | str | None = None) -> list[BaseRoute]:
    """``routes`` of every module in ``fake_honcho/routes/``, less those declared with
    ``needs`` (:func:`~fake_honcho.versions.versioned`) a feature ``version`` (default:
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
