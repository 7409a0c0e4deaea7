"""The fake's API description: ``/openapi.json`` and the ``/docs`` and ``/redoc`` pages.

:func:`document_for` builds the OpenAPI 3.1 document of the Honcho version a fake
speaks from its app's route table and schemas (:mod:`fake_honcho.openapi.document`,
with :mod:`fake_honcho.http.operations`); :mod:`fake_honcho.openapi.pages` renders
the two pages with our own script (``static/api-docs.js``), with nothing fetched from
elsewhere, so they work offline.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fake_honcho.openapi.document import build_document, documented_routes
from fake_honcho.versions import HonchoVersion

if TYPE_CHECKING:
    from fake_honcho.http.app import HonchoApp

__all__ = ["build_document", "document_bytes", "document_for", "documented_routes"]

_DOCUMENTS: dict[HonchoVersion, bytes] = {}


def document_for(app: HonchoApp) -> dict[str, Any]:
    """The OpenAPI document of what ``app`` (``fake.core_app``) serves (built once per version)."""
    return json.loads(document_bytes(app))  # type: ignore[no-any-return]


def document_bytes(app: HonchoApp) -> bytes:
    """:func:`document_for` as the JSON ``/openapi.json`` sends."""
    fake = app.fake
    if fake.version not in _DOCUMENTS:
        document = build_document(app.routes, fake.schemas, fake.version)
        _DOCUMENTS[fake.version] = json.dumps(
            document, ensure_ascii=False, separators=(",", ":")
        ).encode()
    return _DOCUMENTS[fake.version]
