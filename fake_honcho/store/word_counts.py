"""Token counts of plain text by word: tiktoken's exact count, each word counted once.

tiktoken cuts a text into pieces with its encoding's split pattern, then merges each
piece's bytes; both run on every call, in native code, with no memory of the words it
has seen (for a 236-character message: about 40% of the count is the pattern, 35% the
merges, the rest the list of ids handed back). In ``o200k_base``'s
pattern (and ``cl100k_base``'s), no piece crosses a single space between two
non-blank runs: a piece holds at most one space, at its start, and runs of whitespace
only split off by themselves. So a text whose only whitespace is single spaces counts
as the sum of its space-separated words' counts, each word but the first counted with
the space before it. :class:`WordCounts` remembers those counts, as tokenizers that cache
per word do, in two generations of up to :data:`WORD_LIMIT` words: when the current one is
full it becomes the older one (the one before is dropped), and a word found only there
moves back. A long-running fake whose vocabulary drifts (a chat corpus of invented words
passes 16,000 words in its first thousand messages) so keeps the words in use, where a
table that kept the first words seen would recount every new word whole, in tiktoken,
for as long as the process lives. Any other text is counted whole.
"""

from __future__ import annotations

from collections.abc import Callable

WORD_LIMIT = 1 << 14
"""How many words a generation holds (about 1.5 MB when full; two at most per table)."""
WORD_LENGTH = 64
"""Longer words (links, encoded data) are counted each time, not remembered."""


class _Table(dict[str, int]):
    """``count(prefix + word)`` per word, computed on first use; the dict itself is the
    current generation (a hit is one C-level lookup), ``older`` the one before."""

    def __init__(self, count: Callable[[str], int], prefix: str) -> None:
        super().__init__()
        self._count = count
        self._prefix = prefix
        self.older: dict[str, int] = {}

    def __missing__(self, word: str) -> int:
        counted = self.older.get(word)
        if counted is None:
            counted = self._count(self._prefix + word)
            if len(word) > WORD_LENGTH:
                return counted
        if len(self) >= WORD_LIMIT:
            self.older = dict(self)
            self.clear()
        self[word] = counted
        return counted


class WordCounts:
    """``count`` (an exact token counter of a whole text), by word where that is exact.

    Call it, or its :attr:`count` (the same counter as a plain function: the write path
    counts every message, and a function call costs less than an instance's).
    """

    def __init__(self, count: Callable[[str], int]) -> None:
        self._count = count
        self._spaced = _Table(count, " ")  # a word with the space before it
        self._first = _Table(self._first_less_spaced, "")  # first word, less its spaced count
        self.count = self._counter()

    def _first_less_spaced(self, word: str) -> int:
        return self._count(word) - self._spaced[word]

    def _counter(self) -> Callable[[str], int]:
        whole, first, spaced = self._count, self._first, self._spaced.__getitem__

        def count(text: str) -> int:
            if not by_words(text):
                return whole(text)
            words = text.split(" ")
            return sum(map(spaced, words), first[words[0]])

        return count

    def __call__(self, text: str) -> int:
        return self.count(text)


def by_words(text: str) -> bool:
    """Whether ``text``'s only whitespace is single spaces (or none)."""
    if "  " in text:
        return False
    if text.isascii():  # a flag CPython keeps: no scan
        return (
            "\n" not in text
            and "\t" not in text
            and "\r" not in text
            and "\x0b" not in text
            and "\x0c" not in text
        )
    return text.isprintable()  # no whitespace but U+0020 is printable
