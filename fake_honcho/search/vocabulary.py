"""The runs of letters and digits a workspace's messages hold, found by substring.

The ``ILIKE`` leg of a search needs, for each run of its query, the stored runs that
contain it (or start or end with it, where the query continues past it). Scanning
every run costs as much as the vocabulary is long on every query, so each run is also
filed under the three-character slices of ``"\\n" + run + "\\n"`` (the newlines mark
its ends): a piece's candidates are the runs filed under all of its own slices (the
two rarest suffice), and a plain string test confirms each. Filing is incremental, so
a write never rebuilds anything; pieces too short to have a slice scan the runs.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

_EDGE = "\n"
_CACHE_LIMIT = 1024


def _slices(text: str) -> set[str]:
    return {text[at : at + 3] for at in range(len(text) - 2)}


class Vocabulary:
    """Every run seen, the sequence numbers of the messages holding it, and its slices."""

    __slots__ = ("_cache", "_slices", "_words", "runs")

    def __init__(self) -> None:
        self.runs: dict[str, array[int]] = {}  # run -> sequence numbers holding it, ascending
        self._words: list[str] = []  # the runs in arrival order: a slice files their numbers
        self._slices: dict[str, array[int]] = {}
        self._cache: dict[tuple[str, bool, bool], tuple[str, ...]] = {}

    def add(self, run: str, seq: int) -> None:
        holders = self.runs.get(run)
        if holders is None:
            holders = self.runs[run] = array("I")
            self._file(run)
        if not holders or holders[-1] != seq:
            holders.append(seq)

    def _file(self, run: str) -> None:
        number = len(self._words)
        self._words.append(run)
        self._cache.clear()
        slices = self._slices
        for piece in _slices(_EDGE + run + _EDGE):
            found = slices.get(piece)
            if found is None:
                slices[piece] = array("I", (number,))
            else:
                found.append(number)

    def fitting(self, piece: str, starts: bool, ends: bool) -> tuple[str, ...]:
        """The runs containing ``piece`` (at their start / end if asked)."""
        if starts and ends:
            return (piece,) if piece in self.runs else ()
        key = (piece, starts, ends)
        found = self._cache.get(key)
        if found is None:
            found = tuple(self._confirmed(piece, starts, ends))
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[key] = found
        return found

    def _confirmed(self, piece: str, starts: bool, ends: bool) -> Iterable[str]:
        needle = (_EDGE if starts else "") + piece + (_EDGE if ends else "")
        words = self._words
        if len(needle) < 3:
            candidates: Iterable[str] = words
        else:
            filed: list[array[int]] = []
            for part in _slices(needle):
                under = self._slices.get(part)
                if under is None:
                    return ()
                filed.append(under)
            filed.sort(key=len)
            numbers: Iterable[int] = filed[0]
            if len(filed) > 1:
                numbers = set(filed[0]).intersection(filed[1])
            candidates = [words[number] for number in numbers]
        if starts:
            return [word for word in candidates if word.startswith(piece)]
        if ends:
            return [word for word in candidates if word.endswith(piece)]
        return [word for word in candidates if piece in word]
