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
from heapq import nsmallest
from itertools import compress, islice, pairwise, repeat
from operator import lt
from typing import TypeVar

K = TypeVar("K")
_SORT_ALL = 256  # rows up to which sorting them all beats picking the smallest


def top(keys: Sequence[K], limit: int) -> list[int]:
    """Indexes of the first ``limit`` rows of ``ORDER BY key LIMIT limit``, in order.

    ``keys`` are the rows' sort keys in the order the scan produced them; the keys need
    only ``<`` and ``==``.
    """
    count = len(keys)
    if count == 0 or limit <= 0:
        return []
    if count > 2 * limit:
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
    rows = range(len(keys))
    if len(keys) > _SORT_ALL:  # the few smallest, without sorting the rest (ties by row)
        order = nsmallest(taken + 1, rows, key=keys.__getitem__)  # type: ignore[arg-type]
    else:
        order = sorted(rows, key=keys.__getitem__)  # type: ignore[arg-type]
    head = [keys[row] for row in order[: taken + 1]]
    if all(a < b for a, b in pairwise(head)):  # type: ignore[operator]
        return order[:taken]
    if len(keys) <= 2 * limit and (len(keys) < 7 or order == list(rows)):
        # The quicksort's insertion sort (below 7 rows) is stable, and rows already in
        # order come back as they are: both are the stable order ``sorted`` gave.
        return order[:taken]
    return top(keys, limit)[:taken]


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
    out: "reversed a > b" is ``keys[a] < keys[b]``.
    """
    heap: list[int] = []

    def sift_down(row: int, size: int) -> None:  # tuplesort_heap_replace_top
        key = keys[row]
        hole = 0
        child = 1
        while child < size:
            if child + 1 < size and keys[heap[child]] < keys[heap[child + 1]]:  # type: ignore[operator]
                child += 1
            if key >= keys[heap[child]]:  # type: ignore[operator]
                break
            heap[hole] = heap[child]
            hole = child
            child = 2 * hole + 1
        heap[hole] = row

    count = min(limit, len(keys))
    for row in range(count):  # tuplesort_heap_insert
        key = keys[row]
        heap.append(row)
        j = row
        while j > 0:
            parent = (j - 1) >> 1
            if key <= keys[heap[parent]]:  # type: ignore[operator]
                break
            heap[j] = heap[parent]
            j = parent
        heap[j] = row
    if count == limit:
        root = keys[heap[0]]
        # The root only falls, so a row not below it now never gets in: test the rest in C.
        rest = range(limit, len(keys))
        below = map(lt, islice(keys, limit, None), repeat(root))  # type: ignore[arg-type]
        for row in compress(rest, below):
            if keys[row] < root:  # type: ignore[operator]
                sift_down(row, limit)
                root = keys[heap[0]]
    size = len(heap)
    while size > 1:  # unheapify: the root (largest left) goes to the freed end slot
        top_row = heap[0]
        size -= 1
        sift_down(heap[size], size)
        heap[size] = top_row
    return heap
