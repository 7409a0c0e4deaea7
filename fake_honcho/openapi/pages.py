"""The ``/docs`` and ``/redoc`` pages: one HTML file each, script and style inside.

Both render ``openapi.json`` (fetched from beside the page) with our own renderer and
style, ``static/api-docs.js`` and ``static/api-docs.css``; nothing comes from a CDN,
so the pages work offline. They ask for no favicon (``/favicon.ico`` is a 404, as on a
real server). ``/docs`` adds a form per operation that sends the request (as a real
server's Swagger UI does); ``/redoc`` is the read-only reference. tests/browser opens
both in Chromium.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files

__all__ = ["inline_script", "page"]


_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)
"""What can end a ``<script>`` element early: ``</script``, in any case (HTML's rule)."""


def inline_script(source: str) -> str:
    """``source`` safe inside ``<script>...</script>``: only ``</script`` is rewritten, to
    ``<\\/script`` (the same text in a JavaScript string, template, regex or comment).

    Every other ``</`` (``/</g``, ``"</td>"``) stays as written. ``<!--`` cannot be
    rewritten without changing a regex's meaning, so a script holding it is refused.
    """
    if "<!--" in source:
        raise ValueError("a script inlined in a page must not contain '<!--'")
    return _SCRIPT_END.sub(r"<\\/\1", source)


def _static(name: str) -> str:
    return files("fake_honcho.openapi").joinpath("static", name).read_text("utf-8")


@cache
def page(*, try_it: bool) -> bytes:
    """The HTML of ``/docs`` (``try_it``) or ``/redoc``."""
    title = "Honcho API docs" if try_it else "Honcho API reference"
    options = json.dumps({"documentUrl": "openapi.json", "tryIt": try_it})
    script = inline_script(_static("api-docs.js"))
    style = _static("api-docs.css")
    html = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title><link rel="icon" href="data:,"><style>{style}</style></head>'
        f'<body><div id="api-docs">Loading the API description...</div>'
        f"<script>{script}\n"
        f'mountApiDocs(document.getElementById("api-docs"), {options});</script>'
        "</body></html>\n"
    )
    return html.encode()
