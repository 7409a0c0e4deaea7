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
from collections.abc import Callable
from typing import Any

__all__ = ["Unstorable", "unencodable", "unstorable", "unstorable_detail"]


class Unstorable(Exception):
    """A row whose JSON ``field`` PostgreSQL would refuse; nothing was written."""

    def __init__(self, collection: str, field: str) -> None:
        super().__init__(collection, field)
        self.collection = collection
        self.field = field


def unstorable(value: Any) -> bool:
    """Whether ``value`` (decoded JSON) holds what a ``jsonb`` column refuses."""
    if type(value) is dict:  # the usual metadata: a few plain keys and values (inline)
        for key, item in value.items():
            kind = type(item)
            if not (
                type(key) is str
                and key.isascii()
                and "\x00" not in key
                and (
                    kind is int
                    or kind is bool
                    or item is None
                    or (kind is str and item.isascii() and "\x00" not in item)
                )
            ):
                return _holds(value, _refused_in_column)
        return False
    return _holds(value, _refused_in_column)


def unencodable(value: Any) -> bool:
    """Whether ``value`` holds what FastAPI's JSON response cannot send (NaN or an
    infinity: allow_nan=False; text with no UTF-8, a lone surrogate)."""
    return _holds(value, _not_utf8)


def _refused_in_column(text: str) -> bool:
    return "\x00" in text or not _utf8(text)


def _not_utf8(text: str) -> bool:
    return not _utf8(text)


def _holds(value: Any, refused: Callable[[str], bool]) -> bool:
    """Whether ``value`` holds a non-finite float or a text (key or value) ``refused``."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return refused(value)
    if isinstance(value, dict):
        return any(_holds(key, refused) or _holds(item, refused) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(_holds(item, refused) for item in value)
    return False


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
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
