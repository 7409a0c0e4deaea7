"""Run-independent JSON: what the drift report and the contract kit's snapshots compare.

Server-generated values differ between runs and targets, so :func:`normalise`
rewrites them:

* generated ids (21-char nanoids under an id-like key, as a dict key, or as a
  path segment) and registered run-specific ids (the test's workspace) become
  ``<id:N>`` / ``<workspace:N>``, numbered by first appearance, so equal ids
  stay equal and the snapshot still shows which row references which;
* timestamps become ``<timestamp>`` (their equality is not portable: a real
  server may stamp a whole batch with one transaction time);
* token counts become ``<int>``: a summary's count is what the server's LLM
  reported, so it differs from one deployment to another even though message
  counts are exact on the fake.

Traversal visits dict keys in sorted order, so numbering does not depend on the
key order a server happens to emit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["NANOID", "TIMESTAMP", "Normaliser", "normalise"]


NANOID = re.compile(r"^[A-Za-z0-9_-]{21}$")
_PATH_NANOID = re.compile(r"(?<=/)[A-Za-z0-9_-]{21}(?=/|$)")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")
TOKEN_KEYS = frozenset({"token_count"})


def _id_like(key: str) -> bool:
    return key == "id" or key.endswith("_id") or key == "message_id"


class Normaliser:
    """One normalisation pass; placeholders are numbered within the pass."""

    def __init__(self, literals: Iterable[str] = ()) -> None:
        # Longest first, so a workspace id that prefixes another is not half-replaced.
        self._literals = sorted({lit for lit in literals if lit}, key=len, reverse=True)
        self._placeholders: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    def placeholder(self, kind: str, value: str) -> str:
        key = f"{kind}\0{value}"
        if key not in self._placeholders:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            self._placeholders[key] = f"<{kind}:{self._counts[kind]}>"
        return self._placeholders[key]

    def __call__(self, data: Any, key: str | None = None) -> Any:
        if isinstance(data, dict):
            return {
                self._string(str(k), id_context=True): self(data[k], str(k))
                for k in sorted(data, key=str)
            }
        if isinstance(data, list | tuple):
            return [self(item, key) for item in data]
        if isinstance(data, bool) or data is None:
            return data
        if isinstance(data, int | float) and key in TOKEN_KEYS:
            return f"<{type(data).__name__}>"
        if isinstance(data, str):
            return self._string(data, id_context=key is not None and _id_like(key))
        return data

    def _string(self, value: str, *, id_context: bool) -> str:
        if TIMESTAMP.match(value):
            return "<timestamp>"
        for literal in self._literals:
            if literal in value:
                value = value.replace(literal, self.placeholder("workspace", literal))
        if id_context and NANOID.match(value):
            return self.placeholder("id", value)
        if value.startswith("/"):
            return _PATH_NANOID.sub(lambda m: self.placeholder("id", m.group(0)), value)
        return value


def normalise(data: Any, *, literals: Iterable[str] = ()) -> Any:
    """Normalise ``data`` in one pass (see the module docstring)."""
    return Normaliser(literals)(data)
