"""The order PostgreSQL's ``ORDER BY ... LIMIT n`` gives rows whose sort keys tie.

Honcho orders search hits by rank and ``created_at`` only, and every message of one
batch shares its ``created_at``, so equal keys are common; the server then returns
them in whatever order its sort leaves them. That order is deterministic given the
order rows arrive in: PostgreSQL 15's ``tuplesort.c`` keeps the rows in memory and

* sorts them with its quicksort (``src/include/lib/sort_template.h``: insertion sort
  below 7 rows, an early return when already in order, median-of-three pivots, ninthers
  above 40, equal keys swapped to the ends and back) when at most ``2 * n`` arrive;
* otherwise switches to a bounded heap of ``n`` rows (the largest at the root, a new
  row replacing it only when strictly smaller), then unheapifies it.

This module replays both on the rows' keys (smaller key = earlier row), a
reimplementation of those algorithms' steps, so a tie comes back where the server puts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, pairwise, repeat
from operator import le, lt
from typing import TypeVar

K = TypeVar("K")
_BLOCK = 32  # rows the bounded heap tests against one root at a time


def top(keys: Sequence[K], limit: int) -> list[int]:
    """Indexes of the first ``limit`` rows of ``ORDER BY key LIMIT limit``, in order.

    ``keys`` are the rows' sort keys in the order the scan produced them; the keys need
    only ``<`` and ``==``.
    """
    count = len(keys)
    if count == 0 or limit <= 0:
        return []
    if _heap_sorted(count, limit):
        return _bounded_heap(keys, limit)
    rows = list(range(count))
    _quicksort(keys, rows, 0, count)
    return rows[:limit]


def first(keys: Sequence[K], limit: int, taken: int) -> list[int]:
    """``top(keys, limit)[:taken]`` (``taken <= limit``), without replaying the sort
    when no tie reaches those rows.

    Every correct sort puts the same rows first unless two of the ``taken + 1`` smallest
    keys are equal (then which of them comes first, or makes the cut, is the sort's
    doing), so only then are the server's steps replayed, unless the quicksort would
    keep them stable (fewer than 7 rows, or rows already in order).
    """
    count = len(keys)
    if not _heap_sorted(count, limit):  # the server quicksorts them all
        order = sorted(range(count), key=keys.__getitem__)  # type: ignore[arg-type]
        if (
            _distinct([keys[row] for row in order[: taken + 1]])
            or count < 7
            or order == list(range(count))
        ):
            # The quicksort's insertion sort (below 7 rows) is stable, and rows already
            # in order come back as they are: both are the stable order ``sorted`` gave.
            return order[:taken]
        return top(keys, limit)[:taken]
    head = _smallest(keys, taken + 1)
    if not _distinct(head):
        return _bounded_heap(keys, limit)[:taken]
    if taken == 0:
        return []
    # No tie: each of the ``taken`` smallest keys is one row's.
    rows = list(compress(range(count), map(le, keys, repeat(head[taken - 1]))))  # type: ignore[arg-type]
    rows.sort(key=keys.__getitem__)  # type: ignore[arg-type]
    return rows


def _heap_sorted(count: int, limit: int) -> bool:
    """Whether the server sorts ``count`` rows for ``LIMIT limit`` with its bounded heap
    (more than twice the limit), not its quicksort."""
    return count > 2 * limit


def _distinct(ordered: list[K]) -> bool:
    """Whether sorted ``ordered`` holds no key twice."""
    return all(a < b for a, b in pairwise(ordered))  # type: ignore[operator]


def _smallest(keys: Sequence[K], count: int) -> list[K]:
    """The ``count`` smallest of ``keys`` (at least ``count`` of them), in order.

    A cut (the ``count``-th smallest of a sample: the last rows, the newest in a plan's
    order) is no lower than the answer's last key, so C drops every key above it, and
    those equal to it are only counted: ties are common, and a tie needs no sorting.
    """
    cut = sorted(keys[-4 * count :])[count - 1]  # type: ignore[index,type-var]
    below = sorted(compress(keys, map(lt, keys, repeat(cut))))  # type: ignore[arg-type,type-var]
    return below[:count] + [cut] * (count - len(below))


def _cmp(keys: Sequence[K], a: int, b: int) -> int:
    left, right = keys[a], keys[b]
    if left < right:  # type: ignore[operator]
        return -1
    return 0 if left == right else 1


def _med3(keys: Sequence[K], rows: list[int], a: int, b: int, c: int) -> int:
    ka, kb, kc = rows[a], rows[b], rows[c]
    if _cmp(keys, ka, kb) < 0:
        if _cmp(keys, kb, kc) < 0:
            return b
        return c if _cmp(keys, ka, kc) < 0 else a
    if _cmp(keys, kb, kc) > 0:
        return b
    return a if _cmp(keys, ka, kc) < 0 else c


def _swapn(rows: list[int], a: int, b: int, n: int) -> None:
    for i in range(n):
        rows[a + i], rows[b + i] = rows[b + i], rows[a + i]


def _quicksort(keys: Sequence[K], rows: list[int], a: int, n: int) -> None:
    """Sort ``rows[a:a+n]`` by key, step for step as ``sort_template.h`` does."""
    while True:
        if n < 7:
            for m in range(a + 1, a + n):
                low = m
                while low > a and keys[rows[low]] < keys[rows[low - 1]]:  # type: ignore[operator]
                    rows[low], rows[low - 1] = rows[low - 1], rows[low]
                    low -= 1
            return
        if all(not keys[rows[m]] < keys[rows[m - 1]] for m in range(a + 1, a + n)):  # type: ignore[operator]
            return
        middle = a + n // 2
        if n > 7:
            low, high = a, a + n - 1
            if n > 40:
                d = n // 8
                low = _med3(keys, rows, low, low + d, low + 2 * d)
                middle = _med3(keys, rows, middle - d, middle, middle + d)
                high = _med3(keys, rows, high - 2 * d, high - d, high)
            middle = _med3(keys, rows, low, middle, high)
        rows[a], rows[middle] = rows[middle], rows[a]
        pa = pb = a + 1
        pc = pd = a + n - 1
        while True:
            while pb <= pc and (r := _cmp(keys, rows[pb], rows[a])) <= 0:
                if r == 0:
                    rows[pa], rows[pb] = rows[pb], rows[pa]
                    pa += 1
                pb += 1
            while pb <= pc and (r := _cmp(keys, rows[pc], rows[a])) >= 0:
                if r == 0:
                    rows[pc], rows[pd] = rows[pd], rows[pc]
                    pd -= 1
                pc -= 1
            if pb > pc:
                break
            rows[pb], rows[pc] = rows[pc], rows[pb]
            pb += 1
            pc -= 1
        pn = a + n
        d1 = min(pa - a, pb - pa)
        _swapn(rows, a, pb - d1, d1)
        d1 = min(pd - pc, pn - pd - 1)
        _swapn(rows, pb, pn - d1, d1)
        d1 = pb - pa
        d2 = pd - pc
        if d1 <= d2:
            if d1 > 1:
                _quicksort(keys, rows, a, d1)
            if d2 <= 1:
                return
            a, n = pn - d2, d2
        else:
            if d2 > 1:
                _quicksort(keys, rows, pn - d2, d2)
            if d1 <= 1:
                return
            n = d1


def _bounded_heap(keys: Sequence[K], limit: int) -> list[int]:
    """``make_bounded_heap`` + ``sort_bounded_heap``: a max-heap of the best ``limit``.

    The server runs the heap with the sort direction reversed; here that is written
    out: "reversed a > b" is ``keys[a] < keys[b]``. Each slot's key is kept beside its
    row (``held``), so a step compares keys without looking them up.
    """
    count = min(limit, len(keys))
    heap: list[int] = []
    held: list[K] = []
    for row in range(count):  # tuplesort_heap_insert
        key = keys[row]
        heap.append(row)
        held.append(key)
        j = row
        while j > 0:
            parent = (j - 1) >> 1
            above = held[parent]
            if key <= above:  # type: ignore[operator]
                break
            heap[j] = heap[parent]
            held[j] = above
            j = parent
        heap[j] = row
        held[j] = key
    if count == limit:
        # The root only falls, so a row not below it now never gets in: C tests each
        # block of rows against the root the block starts with.
        for start in range(limit, len(keys), _BLOCK):
            root = held[0]
            block = keys[start : start + _BLOCK]
            below = map(lt, block, repeat(root))  # type: ignore[arg-type]
            rows = range(start, start + len(block))
            for row, key in compress(zip(rows, block, strict=True), below):
                if key < root:  # type: ignore[operator]
                    _sift_down(heap, held, row, key, limit)
                    root = held[0]
    size = len(heap)
    while size > 1:  # unheapify: the root (largest left) goes to the freed end slot
        top_row = heap[0]
        size -= 1
        _sift_down(heap, held, heap[size], held[size], size)
        heap[size] = top_row
    return heap


def _sift_down(heap: list[int], held: list[K], row: int, key: K, size: int) -> None:
    """``tuplesort_heap_replace_top``: ``row`` (its key ``key``) replaces the root of
    ``heap[:size]`` and sinks to its place (``held``: the slots' keys)."""
    hole = 0
    child = 1
    while child < size:
        below = held[child]
        if child + 1 < size:
            right = held[child + 1]
            if below < right:  # type: ignore[operator]
                child += 1
                below = right
        if key >= below:  # type: ignore[operator]
            break
        heap[hole] = heap[child]
        held[hole] = below
        hole = child
        child = 2 * hole + 1
    heap[hole] = row
    held[hole] = key
