"""Numbers in filters, compared as the server's PostgreSQL compares them.

The server binds a comparison's operand as Python holds it: an ``int`` is compared as
``numeric``, a ``float`` as ``double precision`` (a ``numeric`` on the other side is
converted to it first, an error when it does not fit). In both types NaN equals NaN
and sorts above every other number, infinities included: :func:`key` gives Python
that order. Metadata text is read as PostgreSQL reads a ``numeric`` literal
(:func:`pg_numeric`); text it refuses, and a number a ``double precision`` cannot hold,
fail the server's query: :meth:`Bound.read` raises :class:`CastError` there.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

__all__ = [
    "SQL_TESTS",
    "Bound",
    "CastError",
    "Key",
    "bind_metadata_operand",
    "double",
    "key",
    "pg_numeric",
]

#: ``(1, 0)`` for NaN, ``(0, value)`` otherwise: tuples order NaN above every number.
Key = tuple[int, Any]
Domain = Literal["numeric", "double", "text"]

SQL_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "gte": operator.ge,
    "lte": operator.le,
    "gt": operator.gt,
    "lt": operator.lt,
    "ne": operator.ne,
}

# PostgreSQL's numeric input: ASCII digits with an optional sign, point and exponent, or
# the specials (case-insensitive, NaN unsigned), with white space around.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?")
_SPECIAL = re.compile(r"(?i)nan|[+-]?inf(?:inity)?")
_SPACES = " \t\n\r\v\f"
MAX_EXPONENT = 1000  # NUMERIC_MAX_PRECISION: a larger exponent is a syntax error


def key(value: Decimal | float) -> Key:
    """The value's place in PostgreSQL's order of ``numeric`` or ``double precision``."""
    nan = value.is_nan() if isinstance(value, Decimal) else math.isnan(value)
    return (1, 0) if nan else (0, value)


def pg_numeric(text: str) -> Decimal | None:
    """``text::numeric``, or None where PostgreSQL refuses the text."""
    literal = text.strip(_SPACES)
    if _SPECIAL.fullmatch(literal):
        return Decimal(literal)
    found = _NUMBER.fullmatch(literal)
    if found is None or (found.group(1) and abs(int(found.group(1))) > MAX_EXPONENT):
        return None
    return Decimal(literal)


def double(value: Decimal) -> float | None:
    """``value::double precision``, or None where PostgreSQL reports overflow or underflow."""
    converted = float(value)
    if value.is_finite() and (math.isinf(converted) or (converted == 0 and value != 0)):
        return None
    return converted


class CastError(ValueError):
    """PostgreSQL refuses to cast a row's metadata text to the operand's number type."""


@dataclass(frozen=True)
class Bound:
    """A metadata comparison's operand as bound: its SQL type and comparable value."""

    domain: Domain
    value: Any  # a Key for numeric and double, a str for text

    def read(self, text: str | None) -> Any:
        """The row's ``metadata->>field`` in this domain; None for SQL NULL.

        Raises :class:`CastError` where PostgreSQL fails the query on it."""
        if text is None or self.domain == "text":
            return text
        if text == "":  # the server's CASE turns empty text into NULL
            return None
        number = pg_numeric(text)
        if number is None:
            raise CastError(text)
        if self.domain == "numeric":
            return key(number)
        converted = double(number)
        if converted is None:
            raise CastError(text)
        return key(converted)


def bind_metadata_operand(operand: Any) -> Bound | None:
    """How the server binds a metadata comparison's operand; None when it refuses it.

    A bool compares with the text ``true``/``false``; an int or float as itself; any
    other value as ``int(value)``, else ``float(value)``, else (a string) as text.
    """
    if isinstance(operand, bool):
        return Bound("text", str(operand).lower())
    if isinstance(operand, int):
        return Bound("numeric", key(Decimal(operand)))
    if isinstance(operand, float):
        return Bound("double", key(operand))
    try:
        return Bound("numeric", key(Decimal(int(operand))))
    except (ValueError, TypeError):
        pass
    try:
        return Bound("double", key(float(operand)))
    except (ValueError, TypeError):
        pass
    return Bound("text", operand) if isinstance(operand, str) else None
