"""The fake's API description: ``/openapi.json`` and the ``/docs`` and ``/redoc`` pages.

:func:`document_for` builds the OpenAPI 3.1 document of the Honcho version a fake
speaks from that version's route table and schemas (:mod:`fake_honcho.openapi.document`,
with :mod:`fake_honcho.openapi.operations`); :mod:`fake_honcho.openapi.pages` renders
the two pages with our own script (``static/api-docs.js``), with nothing fetched from
elsewhere, so they work offline.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from fake_honcho.openapi.document import build_document, documented_routes
from fake_honcho.versions import HonchoVersion

if TYPE_CHECKING:
    from fake_honcho.fake import FakeHoncho

__all__ = ["build_document", "document_bytes", "document_for", "documented_routes"]


def document_for(fake: FakeHoncho) -> dict[str, Any]:
    """The OpenAPI document of what ``fake`` serves (built once per version)."""
    return json.loads(document_bytes(fake))  # type: ignore[no-any-return]


def document_bytes(fake: FakeHoncho) -> bytes:
    """:func:`document_for` as the JSON ``/openapi.json`` sends."""
    return _document_bytes(fake.version)


@cache
def _document_bytes(version: HonchoVersion) -> bytes:
    from fake_honcho.app import collect_routes
    from fake_honcho.schemas import schemas_for

    routes = collect_routes(version)
    document = build_document(routes, schemas_for(version.schema_layers), version)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
