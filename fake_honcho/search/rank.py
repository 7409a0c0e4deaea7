"""``ts_rank(tsvector, tsquery)`` with the default weights and normalisation 0.

The formula of PostgreSQL 15's ``src/backend/utils/adt/tsrank.c``, in the server's
single-precision arithmetic (ranks are ``real``; equal ranks tie in ``ORDER BY``, so
each float operation is rounded to float32 where the C code does it). Every lexeme of
``to_tsvector`` has weight D (0.1).

* One distinct query lexeme (``calc_rank_or``): with ``n`` positions in the document,
  ``sum(0.1 / i**2 for i in 1..n)`` over ``pi**2/6``, divided by the number of distinct
  query lexemes (1). A document without it ranks 0.
* Several (``calc_rank_and``, the query being an AND): for each pair of present lexemes,
  taken in sorted lexeme order, and each pair of their positions at distance ``d > 0``,
  ``w = sqrt(0.1 * 0.1 * word_distance(d))`` folds into the rank as
  ``1 - (1 - rank) * (1 - w)`` (the first pair sets it); ``word_distance(d)`` is
  ``1 / (1.005 + 0.05 * exp(d / 1.5 - 2))``, or 1e-30 past 100. With no pair the rank
  is 1e-20: below any real match, above the 0 of a single-term miss.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache

_FLOAT = struct.Struct("f")
WEIGHT_D = 0.1


def f32(value: float) -> float:
    """``value`` rounded to the nearest float32 (as C stores it in a ``float``)."""
    return float(_FLOAT.unpack(_FLOAT.pack(value))[0])


_W = f32(WEIGHT_D)
_NO_PAIR = f32(1e-20)


@cache
def word_distance(distance: int) -> float:
    if distance > 100:
        return f32(1e-30)
    return f32(1.0 / (1.005 + 0.05 * math.exp(f32(float(distance)) / 1.5 - 2)))


@cache
def _pair_weight(distance: int) -> float:
    return f32(math.sqrt(f32(f32(_W * _W) * word_distance(distance))))


@lru_cache(maxsize=512)
def rank_single(count: int) -> float:
    """The rank of a one-lexeme query in a document holding it at ``count`` positions."""
    total = 0.0
    for j in range(count):
        total = f32(total + f32(_W / float((j + 1) * (j + 1))))
    # (wjm + resj - wjm / 1) / 1.64493406685, wjm being the first (largest) weight.
    return f32(0.0 + f32(f32(_W + total) - _W) / 1.64493406685)


def rank(positions: Mapping[str, Sequence[int]], query: Sequence[str]) -> float:
    """``ts_rank`` of a document (its query lexemes' positions) for ``query``'s lexemes.

    ``positions`` needs only the query's lexemes; a document with no lexemes at all
    (only stop words, or empty) ranks 0 whatever the query, as an empty query does.
    """
    unique = sorted(set(query), key=_server_order)
    if not unique:
        return 0.0
    if len(unique) == 1:
        found = positions.get(unique[0])
        return rank_single(len(found)) if found else 0.0
    result = -1.0
    present: list[Sequence[int]] = []
    for lexeme in unique:
        mine = positions.get(lexeme)
        if not mine:
            continue
        for earlier in present:
            for at in mine:
                for other in earlier:
                    distance = abs(at - other)
                    if distance:
                        weight = _pair_weight(distance)
                        result = (
                            weight if result < 0 else f32(1.0 - (1.0 - result) * (1.0 - weight))
                        )
        present.append(mine)
    return _NO_PAIR if result < 0 else result


def _server_order(lexeme: str) -> bytes:
    """``tsCompareString``: UTF-8 bytes compared with ``memcmp``, a prefix first."""
    return lexeme.encode()
