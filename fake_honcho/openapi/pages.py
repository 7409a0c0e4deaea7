"""The ``/docs`` and ``/redoc`` pages: one HTML file each, script and style inside.

Both render ``openapi.json`` (fetched from beside the page) with our own renderer and
style, ``static/api-docs.js`` and ``static/api-docs.css``; nothing comes from a CDN,
so the pages work offline. ``/docs`` adds a form per operation that sends the request
(as a real server's Swagger UI does); ``/redoc`` is the read-only reference.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

__all__ = ["page"]


def _static(name: str) -> str:
    return files("fake_honcho.openapi").joinpath("static", name).read_text("utf-8")


@cache
def page(*, try_it: bool) -> bytes:
    """The HTML of ``/docs`` (``try_it``) or ``/redoc``."""
    title = "Honcho API docs" if try_it else "Honcho API reference"
    options = json.dumps({"documentUrl": "openapi.json", "tryIt": try_it})
    script = _static("api-docs.js").replace("</", "<\\/")
    style = _static("api-docs.css")
    html = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{style}</style></head>"
        f'<body><div id="api-docs">Loading the API description...</div>'
        f"<script>{script}\n"
        f'mountApiDocs(document.getElementById("api-docs"), {options});</script>'
        "</body></html>\n"
    )
    return html.encode()
