"""Character classes and case folding as Honcho's PostgreSQL applies them to text.

The text-search parser asks the server's C library (``iswalpha``, ``iswspace`` in the
database's ``C.UTF-8`` locale) and Postgres's own display-width table (zero-width
characters continue a word). Those disagree with Python's ``str.isalpha`` on about
1,300 code points, so the non-ASCII classes come from a table measured on a real
server (:mod:`fake_honcho.search._ctype`). ``lower()``/``ILIKE`` fold one character at
a time (``towlower``), which is Python's ``str.lower`` per character except where the
table says otherwise (U+0130 becomes ``i``, a final sigma stays U+03C3).
"""

from __future__ import annotations

from functools import cache

from fake_honcho.search import _ctype

ALPHA = 1
DIGIT = 2
SPECIAL = 4  # not a letter, but does not end a word (zero display width and a few signs)
SPACE = 8
XDIGIT = 16
ALNUM = ALPHA | DIGIT


@cache
def _table() -> bytearray:
    table = bytearray(0x110000)
    for low, high, bits in (
        (ord("a"), ord("z"), ALPHA),
        (ord("A"), ord("Z"), ALPHA),
        (ord("0"), ord("9"), DIGIT | XDIGIT),
        (ord("a"), ord("f"), XDIGIT),
        (ord("A"), ord("F"), XDIGIT),
        (9, 13, SPACE),
        (32, 32, SPACE),
    ):
        for cp in range(low, high + 1):
            table[cp] |= bits
    for spans, bits in ((_ctype.ALPHA, ALPHA), (_ctype.SPECIAL, SPECIAL), (_ctype.SPACE, SPACE)):
        for span in spans.split():
            low_text, _, high_text = span.partition("-")
            low, high = int(low_text, 16), int(high_text or low_text, 16)
            if low > 0x7F:
                table[low : high + 1] = bytes(table[cp] | bits for cp in range(low, high + 1))
    return table


def classes(text: str) -> bytes:
    """The class bits of every character of ``text``, in order."""
    table = _table()
    return bytes(table[ord(char)] for char in text)


class _Folding(dict[int, str]):
    """``str.translate`` table that fills itself: one character's ``towlower``."""

    def __missing__(self, cp: int) -> str:
        folded = _ctype.LOWER.get(cp)
        if folded is None:
            lowered = chr(cp).lower()
            folded = lowered if len(lowered) == 1 else chr(cp)
        self[cp] = folded
        return folded


_FOLDING = _Folding()


# Where ``str.lower`` is not one ``towlower`` per character: the table's exceptions, and
# the capital sigma (``str.lower`` makes it final at a word's end).
_CONTEXTUAL = (*map(chr, _ctype.LOWER), "\u03a3")


def pg_lower(text: str) -> str:
    """``lower(text)`` in Honcho's database: per-character lower case."""
    if text.isascii() or not any(char in text for char in _CONTEXTUAL):
        return text.lower()
    return text.translate(_FOLDING)
