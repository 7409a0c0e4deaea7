"""What PostgreSQL refuses to store as JSON, so a write carrying it fails whole.

Honcho keeps metadata, configuration and peer cards in ``JSONB`` columns; SQLAlchemy
sends each value as ``json.dumps`` writes it. PostgreSQL's JSON parser refuses the
``NaN`` and ``Infinity`` that ``json.dumps`` writes for non-finite floats, and ``jsonb``
refuses a ``\\u0000`` escape (text cannot hold NUL) and a lone surrogate (no UTF-8 for
it). The ``INSERT`` or ``UPDATE`` fails, the transaction rolls back, and the request
answers 500 with nothing of that write stored (measured on 3.0.12 and 3.1: ``PUT
/v3/workspaces/{id}`` with ``{"metadata": {"x": NaN}}`` leaves the metadata as it was).

The store refuses such a row before changing anything (:class:`Unstorable`); the HTTP
layer answers it as the real server does, or with ``real_bugs="correct"`` a 422 before
any write.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["Unstorable", "unstorable", "unstorable_detail"]


class Unstorable(Exception):
    """A row whose JSON ``field`` PostgreSQL would refuse; nothing was written."""

    def __init__(self, collection: str, field: str) -> None:
        super().__init__(collection, field)
        self.collection = collection
        self.field = field


def unstorable(value: Any) -> bool:
    """Whether ``value`` (decoded JSON) holds what a ``jsonb`` column refuses."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return "\x00" in value or (not value.isascii() and not _utf8(value))
    if isinstance(value, dict):
        return any(unstorable(key) or unstorable(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(unstorable(item) for item in value)
    return False


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def unstorable_detail(field: str) -> str:
    """The corrected 422's detail for a ``field`` that cannot be stored."""
    return (
        f"{field} cannot be stored: it holds NaN, Infinity, a NUL character or a lone "
        "surrogate, which JSON columns refuse"
    )
