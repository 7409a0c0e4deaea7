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
bound and scans them, best first, until the next block's bound falls below the score the
nearest rows already found reach: short messages carry the most weight per shared term,
so long messages are mostly ruled out unread. A block's dense products are computed at
once: its tails kept as 32 columns of 16-bit fields (one Python int each), so a query's
products are 32 multiplications of big ints, in C. Python then touches only the rows that
can reach the cut: each field less an integer threshold no greater than
``cut * sqrt(norm)`` (one more multiplication), the fields whose top bit stays set found
with ``bytes.find``. Until enough rows are found, the cut is a guess from a sample,
lowered until the rows found confirm it.

Scores are the ones a scan of every row gives (the same float operations), the rows
within rounding of the cut are all kept, and their exact distances (pgvector's formula
on the exact integer dot product) decide; :class:`~fake_honcho.search.semantic.MessageEmbeddings`
falls back to its full scan where two of the nearest tie.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
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
_DENSE_MOST = _DENSE * _DENSE_RANGE * _DENSE_RANGE  # the largest |dense dot product|
_BIAS = 1 << 15  # a field holds dense dot + bias: 32,768 +- 7,200, in 16 bits
_TOPS = 0x8000  # a field's top bit: set where dense dot + bias - threshold >= bias
_HIGH = 1 if sys.byteorder == "little" else 0  # where a field's high byte is, of its two
_ROOT_UNIT = 4  # thresholds are floor(4 * cut) * floor(sqrt(norm) / 4) <= cut * sqrt(norm)
_THRESHOLD_MOST = _BIAS - _DENSE_MOST  # past it, a field minus its threshold could borrow
_BLOCK = 1024
_FLAT = 4096  # rows up to which one tier holds them all
# bucket counts where tiers start: fine where a shared bucket weighs most
_TIERS = (2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192)
_MARGIN = 1e-9  # rows within this relative distance of the cut are all compared exactly
_SAMPLE = 128  # rows of a block sampled for a first cut


class _Block:
    """Up to :data:`_BLOCK` rows of one tier (in one tier, every row): their numbers,
    sqrt(norm), dense tails (as columns), ``floor(sqrt(norm) / 4)`` and the most a row's
    dense part can score (``sqrt(dense norm / norm)``)."""

    __slots__ = ("_packed", "columns", "rhos", "roots", "rows", "spread")

    def __init__(self) -> None:
        self.rows = array("I")
        self.roots = array("d")
        self.columns = [array("H") for _ in range(_DENSE)]
        self.rhos = array("H")  # per row: floor(sqrt(norm) / 4), at most 65,535
        self.spread = 0.0
        self._packed: _Packed | None = None

    def add(self, row: int, code: HashedCode, spread: float) -> None:
        self.rows.append(row)
        root = math.sqrt(code.norm)
        self.roots.append(root)
        self.rhos.append(min(int(root / _ROOT_UNIT), 0xFFFF))
        for column, value in zip(self.columns, code.shifted, strict=True):
            column.append(value)
        self.spread = max(self.spread, spread)
        self._packed = None

    def dots(self, plan: _Plan) -> int:
        """Every row's dense dot product with the query plus :data:`_BIAS`, one 16-bit
        field per row of one int: the columns summed by the size of their query value,
        and the sizes' sums by its signed binary digits (:class:`_Plan`), about 46
        additions of big ints, in C."""
        if self._packed is None:
            self._packed = _Packed(self)
        columns = self._packed.columns
        sums = []
        for first, added, subtracted in plan.groups:
            value = columns[first]
            for column in added:
                value += columns[column]
            for column in subtracted:
                value -= columns[column]
            sums.append(value)
        # the sum so far is ``total``, negated where ``negated`` (no big int is negated)
        total, negated = 0, False
        for digits in plan.powers:
            total <<= 1
            for group, sign in digits:
                if not total:
                    total, negated = sums[group], sign < 0
                elif (sign < 0) == negated:
                    total += sums[group]
                else:
                    total -= sums[group]
        return self._packed.biased - total if negated else total + self._packed.biased

    def fields(self, total: int) -> array[int]:
        """:meth:`dots`'s fields, one per row."""
        fields = array("H")
        fields.frombytes(total.to_bytes(2 * len(self.rows), sys.byteorder))
        return fields

    def reaching(self, total: int, cut: float) -> list[int]:
        """The positions of every row whose dense part alone can score ``cut`` (dense dot
        >= cut * sqrt(norm)), and maybe a few more: each field less its threshold, the
        top bits of all at once."""
        count = len(self.rows)
        if cut <= 0:
            return list(range(count))
        assert self._packed is not None  # dots() packed the block
        packed = self._packed
        # floor(4 * cut) * floor(root / 4) <= cut * root, an integer a passing dot reaches;
        # lowered where it could borrow from the next field (fewer rows ruled out)
        step = min(math.floor(cut * _ROOT_UNIT), _THRESHOLD_MOST // max(1, packed.rho_most))
        passed = (total - step * packed.rhos) & packed.tops
        if not passed:
            return []
        high = passed.to_bytes(2 * count, sys.byteorder)[_HIGH::2]
        positions = []
        at = high.find(_TOPS >> 8)
        while at >= 0:
            positions.append(at)
            at = high.find(_TOPS >> 8, at + 1)
        return positions


class _Packed:
    """A block's columns, each one int of 16-bit fields (a field per row, its tail value
    -15..15: a negative one borrows from the next, exact all the same, as is every sum
    of them), and what :meth:`_Block.dots` and :meth:`_Block.reaching` add to them."""

    __slots__ = ("biased", "columns", "rho_most", "rhos", "tops")

    def __init__(self, block: _Block) -> None:
        ones = _packed(array("H", [1]) * len(block.rows))
        shift = _SHIFT * ones
        self.columns = [_packed(column) - shift for column in block.columns]
        self.biased = _BIAS * ones
        self.rhos = _packed(block.rhos)
        self.rho_most = max(block.rhos, default=0)
        self.tops = _TOPS * ones


class _Plan:
    """A query's dense tail as :meth:`_Block.dots` sums the columns: ``groups``, per size
    of value (1..15) in the tail, its first column, the columns of that one's sign and
    those of the other sign; ``powers``, per power of two, highest first, the groups to
    add (each sum negated where its first column's value is negative) with their signs:
    the sizes in signed binary digits (15 is 16 - 1)."""

    __slots__ = ("groups", "powers")

    def __init__(self, query: HashedCode) -> None:
        by_value: dict[int, list[int]] = {}
        for column, shifted in enumerate(query.shifted):
            by_value.setdefault(shifted, []).append(column)
        self.groups: list[tuple[int, list[int], list[int]]] = []
        self.powers: list[list[tuple[int, int]]] = [[] for _ in range(_POWERS)]
        for size in range(1, _DENSE_RANGE + 1):
            plus, minus = by_value.get(_SHIFT + size), by_value.get(_SHIFT - size)
            if plus is not None:
                sign = 1
                self.groups.append((plus[0], plus[1:], minus or []))
            elif minus is not None:
                sign = -1
                self.groups.append((minus[0], minus[1:], []))
            else:
                continue
            group = len(self.groups) - 1
            for place, digit in _PLACES[size]:
                self.powers[place].append((group, sign * digit))


def _signed_digits(value: int) -> list[tuple[int, int]]:
    """``value``'s non-adjacent form: (power, +1 or -1), fewest nonzero digits."""
    digits = []
    power = 0
    while value:
        if value & 1:
            digit = 2 - (value & 3)
            value -= digit
            digits.append((power, digit))
        value >>= 1
        power += 1
    return digits


_DIGITS = {size: _signed_digits(size) for size in range(1, _DENSE_RANGE + 1)}
_POWERS = 1 + max(power for digits in _DIGITS.values() for power, _ in digits)
_PLACES = {  # a size's digits: (its power's place in _Plan.powers, +1 or -1)
    size: [(_POWERS - 1 - power, digit) for power, digit in digits]
    for size, digits in _DIGITS.items()
}


def _packed(values: array[int]) -> int:
    return int.from_bytes(values.tobytes(), sys.byteorder)


class HashedRows:
    """A workspace's :class:`HashedCode` rows, for :meth:`nearest` (see the module).

    Up to :data:`_FLAT` rows, the rows are one tier (scoring them all at once costs
    less than ranking blocks); past it, they are dealt into tiers once, and from then on
    as they come.
    """

    def __init__(self) -> None:
        self._codes: list[HashedCode] = []
        self._offsets = array("H")  # per row: 15 * sum(shifted tail)
        self._norms = array("d")  # per row: its squared norm
        self._roots = array("d")  # per row: sqrt(norm)
        self._weights = array("d")  # per row: 1 / sqrt(norm)
        self._spreads = array("d")  # per row: sqrt(dense norm / norm)
        self._dead: set[int] = set()
        self._postings: dict[int, array[int]] = {}
        self._blocks: list[_Block] = []
        self._open: dict[int, int] = {}  # the block each tier fills

    def __len__(self) -> int:
        return len(self._codes)

    def add(self, code: HashedCode) -> None:
        """Append the next row (rows are numbered in the order they are added)."""
        row = len(self._codes)
        self._codes.append(code)
        self._offsets.append(_SHIFT * sum(code.shifted))
        self._norms.append(code.norm)
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
            self._blocks, self._open = [], {}
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
        self._blocks[at].add(row, code, self._spreads[row])

    def discard(self, row: int) -> None:
        """A deleted row: never among the nearest again."""
        self._dead.add(row)

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
        plan = _Plan(query)
        dots: dict[int, tuple[int, array[int]]] = {}  # by block: its dots and their fields
        if len(self._codes) <= _FLAT:  # one tier, rows in order: sharing rows from its dots
            every = array("H")
            for at, block in enumerate(self._blocks):
                total = block.dots(plan)
                dots[at] = total, block.fields(total)
                every += dots[at][1]
            roots = self._roots
            found = [
                ((dot := count * _TERM_DOT + every[row] - _BIAS) / roots[row], row, dot)
                for row, count in shared.items()
            ]
        else:
            found = self._sharing(query, shared, spread, offset, wanted)
        floor = _floor(found, wanted)
        blocks = sorted(((block.spread, at) for at, block in enumerate(self._blocks)), reverse=True)
        for most, at in blocks:
            if spread * most * (1 + 1e-12) < floor:
                break
            block = self._blocks[at]
            if at in dots:
                total, fields = dots[at]
            else:
                total = block.dots(plan)
                fields = block.fields(total)
            found, floor = self._reaching(block, total, fields, shared, found, floor, wanted)
        found = [entry for entry in found if entry[0] >= floor]
        if not found:
            return []
        found.sort(key=itemgetter(1))
        _, rows, products = zip(*found, strict=True)
        distances = _distances(products, query.norm, map(self._norms.__getitem__, rows))
        return list(zip(rows, distances, strict=True))

    def _reaching(
        self,
        block: _Block,
        total: int,
        fields: array[int],
        shared: Counter[int],
        found: list[tuple[float, int, int]],
        floor: float,
        wanted: int,
    ) -> tuple[list[tuple[float, int, int]], float]:
        """``found`` (whose floor is ``floor``) with the block's rows sharing no bucket
        that can be among the ``wanted`` best, and the floor they set. The rows reaching
        a cut are scored; the cut is the floor once ``wanted`` rows are found, else a
        guess from a sample of the block, lowered until the floor is no higher than it
        (then no row below the cut can be among the best)."""
        rows, roots, dead = block.rows, block.roots, self._dead
        guesses = _guesses(block, fields, wanted - len(found))
        cut = floor if len(found) >= wanted else next(guesses, -math.inf)
        scored: set[int] = set()
        while True:
            for position in block.reaching(total, cut):
                row = rows[position]
                if position in scored or row in shared or row in dead:
                    continue
                scored.add(position)
                dot = fields[position] - _BIAS
                found.append((dot / roots[position], row, dot))
            floor = _floor(found, wanted)
            if floor >= cut:
                return [entry for entry in found if entry[0] >= floor], floor
            cut = floor if len(found) >= wanted else next(guesses, -math.inf)

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


def _distances(products: Iterable[int], norm: int, norms: Iterable[float]) -> list[float]:
    """:func:`pg_cosine_distance` of each dot product and norm with the query's ``norm``
    (every norm positive), the same float operations mapped in C."""
    roots = map(math.sqrt, map(mul, repeat(float(norm)), norms))
    similarities = list(map(truediv, products, roots))
    if similarities and (min(similarities) < -1.0 or max(similarities) > 1.0):
        return [pg_cosine_distance(similarity, 1, 1) for similarity in similarities]
    return list(map(sub, repeat(1.0), similarities))


def _guesses(block: _Block, fields: array[int], need: int) -> Iterator[float]:
    """Cuts to try, highest first, for about ``need`` of the block's rows: the scores
    (dense part alone) of a sample of about :data:`_SAMPLE` rows, from the one about
    ``need`` rows of the block outrank down (a guess; the caller checks it)."""
    step = max(1, len(fields) // _SAMPLE)
    sample = sorted(map(truediv, map(sub, fields[::step], repeat(_BIAS)), block.roots[::step]))
    rank = -(-need // step)
    while rank <= len(sample):
        score = sample[-rank]
        yield score - 2 * _MARGIN * abs(score)  # a floor at this score is no higher
        rank *= 2


def _floor(found: list[tuple[float, int, int]], wanted: int) -> float:
    """The lowest score a row can have and still be within rounding of the ``wanted``-th
    best of ``found`` (no floor while there are fewer)."""
    if len(found) < wanted:
        return -sys.float_info.max
    edge = sorted(map(itemgetter(0), found))[-wanted]
    return edge - _MARGIN * abs(edge)
