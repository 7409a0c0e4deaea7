"""``messages/upload``: a file's text as the server extracts and splits it (``src/utils/files.py``).

Text files decode as UTF-8, then UTF-16, then Latin-1; JSON files must be UTF-8
and are re-serialised (``ensure_ascii=False``); PDFs need a PDF parser the fake
does not ship, so they are refused like any other type (register entry
``pdf-upload``). Chunks of at most 25,000 characters break at the last paragraph,
line, sentence or word boundary inside the limit.
"""

from __future__ import annotations

import json

from fake_honcho.errors import HonchoError

__all__ = ["MAX_FILE_SIZE", "extract_text", "split_text"]

MAX_FILE_SIZE = 5_242_880
MAX_CHUNK_CHARS = 25_000
PROCESSORS = ["PDFProcessor", "TextProcessor", "JSONProcessor"]
_BREAKS = ("\n\n", "\n", ". ", " ")


def extract_text(data: bytes, content_type: str) -> str:
    """The text of an uploaded file, or the server's 415/422 for one it cannot read."""
    if content_type.startswith("text/"):
        for encoding in ("utf-8", "utf-16"):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                continue
        return data.decode("latin-1")
    if content_type == "application/json":
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError:
            raise HonchoError(422, "JSON uploads must be UTF-8 encoded") from None
        if not decoded.strip():
            return ""
        try:
            return json.dumps(json.loads(decoded), ensure_ascii=False)
        except json.JSONDecodeError:
            raise HonchoError(422, "Uploaded JSON is invalid") from None
    raise HonchoError(  # PDFs too: register entry pdf-upload
        415, f"Unsupported file type: {content_type or None}. Supported types: {PROCESSORS}"
    )


def split_text(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[str]:
    """Chunks of at most ``max_chars``, broken at the last boundary past the chunk's start."""
    chunks: list[str] = []
    start = 0
    while len(text) - start > max_chars:
        end = start + max_chars
        cut = end
        for delimiter in _BREAKS:
            found = text.rfind(delimiter, start, end)
            if found > start:
                cut = found + len(delimiter)
                break
        chunks.append(text[start:cut])
        start = cut
    chunks.append(text[start:])
    return chunks
