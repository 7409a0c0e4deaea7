"""The nearest embedding rows of a workspace for the default embedder, exactly, without
ranking every row.

A :class:`~fake_honcho.search.embedding.HashedEmbedder` vector is term buckets of weight 64
plus a 32-value dense tail (-15..15), so a row's dot product with a query is
``4096 * shared + dense`` where ``shared`` counts the buckets they share and ``|dense|``
is at most ``sqrt(query's dense norm * row's dense norm)`` (Cauchy-Schwarz). Ranked by
``dot / sqrt(norm)`` (the order of the cosine distance, up to rounding), a row can thus
be bounded from what is kept per row: its norm, its dense norm and the query's buckets
it is in (an inverted index of the buckets).

:class:`HashedRows` keeps the rows in blocks of rows of similar norm (tiers by how many
buckets they have), each block with the bound of its rows. A query ranks the blocks by
bound and scores them whole, best first, until the next block's bound falls below the
score the nearest rows already found reach: short messages carry the most weight per
shared term, so long messages are mostly ruled out unread. A block's dense products are
computed at once: its tails kept as 32 columns of 16-bit fields (one Python int each),
so a query's products are 32 multiplications of big ints, in C.

Scores are the ones a scan of every row gives (the same float operations), the rows
within rounding of the cut are all kept, and their exact distances (pgvector's formula
on the exact integer dot product) decide; :class:`~fake_honcho.search.semantic.MessageEmbeddings`
falls back to its full scan where two of the nearest tie.
"""

from __future__ import annotations

import math
import sys
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from itertools import chain, compress, repeat
from operator import add, ge, itemgetter, le, mul, sub, truediv

from fake_honcho.search.embedding import (
    _DENSE,
    _DENSE_RANGE,
    _TERM_WEIGHT,
    HashedCode,
    pg_cosine_distance,
)

_TERM_DOT = _TERM_WEIGHT * _TERM_WEIGHT  # a shared bucket's part of the dot product
_SHIFT = _DENSE_RANGE  # a tail value plus this is never negative (HashedCode.shifted)
_BIAS = 1 << 13  # keeps each field (dense dot + bias, |dense dot| <= 7,200) in 0..65,535
_BLOCK = 1024
_FLAT = 4096  # rows up to which one tier holds them all
# bucket counts where tiers start: fine where a shared bucket weighs most
_TIERS = (2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192)
_MARGIN = 1e-9  # rows within this relative distance of the cut are all compared exactly
_FEW_SHARED = 4  # a block's rows per row sharing a bucket, past which each is raised alone


class _Block:
    """Up to :data:`_BLOCK` rows of one tier: their numbers, sqrt(norm), dense tails (as
    columns) and the most a row's dense part can score (``sqrt(dense norm / norm)``)."""

    __slots__ = ("_packed", "columns", "dead", "offsets", "roots", "rows", "spread")

    def __init__(self) -> None:
        self.rows = array("I")
        self.roots = array("d")
        self.columns = [array("H") for _ in range(_DENSE)]
        self.offsets = array("H")  # per row: 15 * sum(shifted tail)
        self.spread = 0.0
        self.dead: list[int] = []  # positions of deleted rows
        self._packed: tuple[list[int], int, int] | None = None

    def add(self, row: int, code: HashedCode, offset: int, spread: float) -> None:
        self.rows.append(row)
        self.roots.append(math.sqrt(code.norm))
        for column, value in zip(self.columns, code.shifted, strict=True):
            column.append(value)
        self.offsets.append(offset)
        self.spread = max(self.spread, spread)
        self._packed = None

    def scores(
        self, weights: list[tuple[int, int]], offset: int, shared: Counter[int] | None = None
    ) -> tuple[list[float], list[int]]:
        """Each row's score and dot product: from its dense part alone, or with its
        ``shared`` buckets; a deleted row scores -inf."""
        if self._packed is None:
            self._packed = self._pack()
        columns, base, ones = self._packed
        total = base - offset * ones
        for column, weight in weights:
            total += weight * columns[column]
        fields = array("H")
        rows = self.rows
        fields.frombytes(total.to_bytes(2 * len(rows), sys.byteorder))
        if shared and len(shared) * _FEW_SHARED < len(rows):
            # A query's buckets are in few of the rows: raise theirs alone (rows ascend).
            dots = list(map(sub, fields, repeat(_BIAS)))
            first, last = rows[0], rows[-1]
            for row, count in shared.items():
                if first <= row <= last:
                    at = bisect_left(rows, row)
                    if rows[at] == row:
                        dots[at] += count * _TERM_DOT
        else:
            less: Iterator[int] = repeat(_BIAS)
            if shared:
                terms = map(mul, map(shared.get, rows, repeat(0)), repeat(_TERM_DOT))
                less = map(sub, less, terms)
            dots = list(map(sub, fields, less))
        scores = list(map(truediv, dots, self.roots))
        for position in self.dead:
            scores[position] = -math.inf
        return scores, dots

    def _pack(self) -> tuple[list[int], int, int]:
        def packed(values: array[int]) -> int:
            return int.from_bytes(values.tobytes(), sys.byteorder)

        ones = packed(array("H", [1]) * len(self.rows))
        base = _BIAS * ones - packed(self.offsets)
        return [packed(column) for column in self.columns], base, ones


class HashedRows:
    """A workspace's :class:`HashedCode` rows, for :meth:`nearest` (see the module).

    Up to :data:`_FLAT` rows, the rows are one tier (scoring them all at once costs
    less than ranking blocks); past it, they are dealt into tiers once, and from then on
    as they come.
    """

    def __init__(self) -> None:
        self._codes: list[HashedCode] = []
        self._offsets = array("H")  # per row: 15 * sum(shifted tail)
        self._roots = array("d")  # per row: sqrt(norm)
        self._weights = array("d")  # per row: 1 / sqrt(norm)
        self._spreads = array("d")  # per row: sqrt(dense norm / norm)
        self._dead: set[int] = set()
        self._postings: dict[int, array[int]] = {}
        self._blocks: list[_Block] = []
        self._open: dict[int, int] = {}  # the block each tier fills
        self._block_of = array("I")  # per row

    def __len__(self) -> int:
        return len(self._codes)

    def add(self, code: HashedCode) -> None:
        """Append the next row (rows are numbered in the order they are added)."""
        row = len(self._codes)
        self._codes.append(code)
        self._offsets.append(_SHIFT * sum(code.shifted))
        self._roots.append(math.sqrt(code.norm))
        weight = 1.0 / self._roots[row]
        self._weights.append(weight)
        self._spreads.append(math.sqrt(code.norm - len(code.buckets) * _TERM_DOT) * weight)
        for bucket in code.buckets:
            found = self._postings.get(bucket)
            if found is None:
                found = self._postings[bucket] = array("I")
            found.append(row)
        if row == _FLAT:  # from here on, in tiers
            self._blocks, self._open, self._block_of = [], {}, array("I")
            for earlier in range(row + 1):
                self._place(earlier)
        else:
            self._place(row)

    def _place(self, row: int) -> None:
        code = self._codes[row]
        tier = 0
        if len(self._codes) > _FLAT:
            tier = 1 + sum(map(le, _TIERS, repeat(len(code.buckets))))
        at = self._open.get(tier)
        if at is None or len(self._blocks[at].rows) == _BLOCK:
            at = self._open[tier] = len(self._blocks)
            self._blocks.append(_Block())
        block = self._blocks[at]
        block.add(row, code, self._offsets[row], self._spreads[row])
        if row in self._dead:
            block.dead.append(len(block.rows) - 1)
        self._block_of.append(at)

    def discard(self, row: int) -> None:
        """A deleted row: never among the nearest again."""
        self._dead.add(row)
        block = self._blocks[self._block_of[row]]
        block.dead.append(bisect_left(block.rows, row))

    def nearest(self, query: HashedCode, wanted: int) -> list[tuple[int, float]]:
        """Every live row that can be among the ``wanted`` nearest to ``query``: the rows
        scoring within rounding of the ``wanted``-th best score (as a scan of every row
        scores them), with their exact cosine distances, by row number."""
        if wanted <= 0:
            return []
        shared = Counter(chain.from_iterable(map(self._postings.get, query.buckets, repeat(()))))
        for row in self._dead.intersection(shared):
            del shared[row]
        spread = math.sqrt(query.norm - len(query.buckets) * _TERM_DOT)
        offset = _SHIFT * sum(query.shifted) - _DENSE * _SHIFT * _SHIFT
        flat = len(self._codes) <= _FLAT  # one tier: scored whole, shared buckets and all
        found = [] if flat else self._sharing(query, shared, spread, offset, wanted)
        floor = _floor(found, wanted)
        weights = [(column, value) for column, value in enumerate(query.shifted) if value]
        blocks = sorted(((block.spread, at) for at, block in enumerate(self._blocks)), reverse=True)
        for most, at in blocks:
            if not flat and spread * most * (1 + 1e-12) < floor:
                break
            block = self._blocks[at]
            scores, dots = block.scores(weights, offset, shared if flat else None)
            cut = floor
            if len(found) < wanted and len(scores) - len(block.dead) >= wanted:
                sample = scores[:: max(1, len(scores) // (4 * wanted))]
                if len(sample) >= wanted:  # its wanted-th best is no better than the block's
                    cut = max(cut, sorted(sample)[-wanted])
            rows = block.rows
            for position in compress(range(len(scores)), map(ge, scores, repeat(cut))):
                if flat or rows[position] not in shared:  # else scored with its buckets above
                    found.append((scores[position], rows[position], dots[position]))
            floor = _floor(found, wanted)
            found = [entry for entry in found if entry[0] >= floor]
        norm = query.norm
        codes = self._codes
        return [
            (row, pg_cosine_distance(dot, norm, codes[row].norm))
            for _, row, dot in sorted(found, key=itemgetter(1))
        ]

    def _sharing(
        self, query: HashedCode, shared: Counter[int], spread: float, offset: int, wanted: int
    ) -> list[tuple[float, int, int]]:
        """``(score, row, dot)`` of the rows sharing a bucket with the query that can be
        among the ``wanted`` best: the best by bound first, then every row whose bound
        reaches the score they set."""
        if not shared:
            return []
        rows = list(shared)
        terms = map(
            mul, map(mul, shared.values(), repeat(_TERM_DOT)), map(self._weights.__getitem__, rows)
        )
        bounds = list(
            map(add, terms, map(mul, map(self._spreads.__getitem__, rows), repeat(spread)))
        )
        first = min(len(rows), 2 * wanted)
        top = sorted(bounds)[-first]
        done = list(compress(rows, map(ge, bounds, repeat(top))))
        found = self._exact(query, done, shared, offset)
        floor = _floor(found, wanted) / (1 + 1e-12) if len(found) >= wanted else -math.inf
        rest = compress(rows, map(ge, bounds, repeat(floor)))
        seen = set(done)
        found += self._exact(query, [row for row in rest if row not in seen], shared, offset)
        return found

    def _exact(
        self, query: HashedCode, rows: list[int], shared: Counter[int], offset: int
    ) -> list[tuple[float, int, int]]:
        """``(score, row, dot)`` of each of ``rows``, from its code."""
        shifted = query.shifted
        codes, offsets, roots = self._codes, self._offsets, self._roots
        found = []
        for row in rows:
            dot = (
                _TERM_DOT * shared[row]
                + sum(map(mul, shifted, codes[row].shifted))
                - offsets[row]
                - offset
            )
            found.append((dot / roots[row], row, dot))
        return found


def _floor(found: list[tuple[float, int, int]], wanted: int) -> float:
    """The lowest score a row can have and still be within rounding of the ``wanted``-th
    best of ``found`` (no floor while there are fewer)."""
    if len(found) < wanted:
        return -sys.float_info.max  # a deleted row scores -inf, below every floor
    edge = sorted(entry[0] for entry in found)[-wanted]
    return edge - _MARGIN * abs(edge)
