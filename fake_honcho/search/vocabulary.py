"""The runs of letters and digits a workspace's messages hold, found by substring.

The ``ILIKE`` leg of a search needs, for each run of its query, the stored runs that
contain it, or start or end with it where the query continues past it (a run inside
the query must be a whole stored run). Scanning every run would cost as much as the
vocabulary is long on every query, so the runs are also kept

* in two orders, by their text and by their text reversed: the runs starting (ending)
  with a piece are one contiguous stretch of the first (second), found by bisection;
* filed under their two- and three-character slices: a piece of two or three
  characters is its runs' slice; a longer one's runs are among those filed under its
  rarest slice, and a string test confirms each (one character scans the runs).

All of it is kept up to date run by run, so a write never rebuilds anything.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, insort
from collections.abc import Collection, Mapping, Sequence

from fake_honcho.search.english import run_lexeme

_CACHE_LIMIT = 1024
_SLICE = 3
_LAST = "\U0010ffff"  # sorts after every character a run holds (it is not alphanumeric)


def _slices(text: str, size: int = _SLICE) -> set[str]:
    return {text[at : at + size] for at in range(len(text) - size + 1)}


class Vocabulary:
    """Every run seen, the sequence numbers of the messages holding it, and its orders."""

    __slots__ = (
        "_aliases",
        "_by_end",
        "_by_start",
        "_cache",
        "_claims",
        "_ends",
        "_slices",
        "_words",
        "runs",
    )

    def __init__(self) -> None:
        # run -> sequence numbers holding it, ascending (an alias's may repeat)
        self.runs: dict[str, array[int]] = {}
        self._aliases: dict[str, str] = {}  # run -> the lexeme whose occurrences it shares
        self._claims: dict[str, str] = {}  # lexeme -> the run sharing its occurrences
        self._words: list[str] = []  # the runs in arrival order: the others hold numbers
        self._by_start: list[str] = []  # the runs, sorted
        self._by_end: list[str] = []  # the runs reversed, sorted
        self._ends: list[str] = []  # the runs themselves, in the order of _by_end
        self._slices: dict[str, array[int]] = {}
        self._cache: dict[tuple[str, bool, bool], list[str]] = {}

    def settle(self, runs: Collection[str], lexemes: Collection[str]) -> None:
        """Before a message's occurrences are added: end the aliases it breaks (a run
        without its lexeme, or the lexeme without its run)."""
        aliases, claims = self._aliases, self._claims
        broken = [run for run in runs if run in aliases and aliases[run] not in lexemes]
        broken += [claims[word] for word in lexemes if word in claims and claims[word] not in runs]
        for run in broken:
            if run in aliases:
                del claims[aliases.pop(run)]
                self.runs[run] = array("I", dict.fromkeys(self.runs[run]))

    def add(self, seq: int, runs: Collection[str], fresh: Mapping[str, array[int]]) -> None:
        """Message ``seq``'s distinct runs; ``fresh``: the lexemes it is the first to hold,
        with their occurrences' sequence numbers (a new run whose lexeme is one of them
        shares that array for as long as the two keep occurring together)."""
        for run in runs:
            holders = self.runs.get(run)
            if holders is None:
                self._file(run)
                lexeme = run_lexeme(run)
                shared = fresh.get(lexeme) if lexeme is not None else None
                if lexeme is not None and shared is not None and lexeme not in self._claims:
                    self.runs[run] = shared
                    self._aliases[run] = lexeme
                    self._claims[lexeme] = run
                else:
                    self.runs[run] = array("I", (seq,))
            elif run not in self._aliases:
                holders.append(seq)

    def _file(self, run: str) -> None:
        number = len(self._words)
        self._words.append(run)
        self._cache.clear()
        insort(self._by_start, run)
        backwards = run[::-1]
        at = bisect_left(self._by_end, backwards)
        self._by_end.insert(at, backwards)
        self._ends.insert(at, run)
        slices = self._slices
        for piece in _slices(run) | _slices(run, 2):
            found = slices.get(piece)
            if found is None:
                slices[piece] = array("I", (number,))
            else:
                found.append(number)

    def fitting(self, piece: str, starts: bool, ends: bool) -> list[str]:
        """The runs containing ``piece`` (at their start / end if asked)."""
        if starts and ends:
            return [piece] if piece in self.runs else []
        key = (piece, starts, ends)
        found = self._cache.get(key)
        if found is None:
            if starts:
                found = self._starting(piece)
            elif ends:
                found = self._ending(piece)
            else:
                found = self._containing(piece)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[key] = found
        return found

    def _starting(self, piece: str) -> list[str]:
        order = self._by_start
        return order[bisect_left(order, piece) : bisect_left(order, piece + _LAST)]

    def _ending(self, piece: str) -> list[str]:
        order, backwards = self._by_end, piece[::-1]
        return self._ends[bisect_left(order, backwards) : bisect_left(order, backwards + _LAST)]

    def _containing(self, piece: str) -> list[str]:
        """The runs containing ``piece``: those filed under it (a slice or a pair), those
        filed under its rarest slice that contain it, or (one character) a scan."""
        words = self._words
        if len(piece) < 2:
            return [word for word in words if piece in word]
        if len(piece) <= _SLICE:
            return [words[number] for number in self._slices.get(piece, ())]
        slices = self._slices
        rarest: Sequence[int] = slices.get(piece[:_SLICE], ())  # () for a slice unseen
        for at in range(1, len(piece) - _SLICE + 1):
            under: Sequence[int] = slices.get(piece[at : at + _SLICE], ())
            if len(under) < len(rarest):
                rarest = under
        # Testing each run filed under the rarest slice costs less than intersecting
        # it with the next rarest first (which holds at least as many).
        return [word for word in map(words.__getitem__, rarest) if piece in word]
