"""The fake's API description: ``/openapi.json`` and the ``/docs`` and ``/redoc`` pages.

:func:`document_for` builds the OpenAPI 3.1 document of the Honcho version a fake
speaks from its route table and schemas (:mod:`fake_honcho.openapi.document`, with
:mod:`fake_honcho.openapi.operations`); :mod:`fake_honcho.openapi.pages` renders the
two pages with our own script (``static/api-docs.js``), with nothing fetched from
elsewhere, so they work offline.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from fake_honcho.openapi.document import build_document, documented_routes

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

__all__ = ["build_document", "document_bytes", "document_for", "documented_routes"]

HONCHO_VERSION = "3.0.12"


def document_for(fake: FakeHoncho) -> dict[str, Any]:
    """The OpenAPI document of what ``fake`` serves (built once per version)."""
    return json.loads(document_bytes(fake))  # type: ignore[no-any-return]


def document_bytes(fake: FakeHoncho) -> bytes:
    """:func:`document_for` as the JSON ``/openapi.json`` sends."""
    return _document_bytes(HONCHO_VERSION)


@cache
def _document_bytes(honcho_version: str) -> bytes:
    from fake_honcho.app import collect_routes
    from fake_honcho.schemas import default_schemas

    document = build_document(collect_routes(), default_schemas(), honcho_version=honcho_version)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
