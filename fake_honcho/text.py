"""Text handling shared by search and message creation.

* :func:`words` / :func:`terms`: the tokeniser. Words are runs of Unicode word
  characters, case-folded. Search terms are words minus PostgreSQL's English stop
  words, reduced by a light English stemmer (plural, ``-ing``, ``-ed``, ``-ly``) so
  that ``hiking`` finds ``hikes`` as Postgres' ``english`` configuration does for
  common words. It is not Snowball: rare inflections may stem differently.
* :func:`token_count`: Honcho counts tokens with tiktoken's ``o200k_base``. The fake
  approximates it without the vocabulary: the text is split with the GPT-4o
  pre-tokeniser's rules (letter runs with an optional leading space, digit groups of
  up to three, punctuation runs, whitespace runs), each piece is a token, and a
  letter piece longer than 8 letters costs one more token per further started 8.
  For English prose this lands within a few percent of the real count; empty
  content is 0 tokens, as in Honcho.
* :func:`has_special_chars` and :func:`ilike`: the server's switch to plain
  substring search, and SQL ``ILIKE '%query%'`` semantics (``%``/``_`` wildcards).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

WORD = re.compile(r"\w+")

# PostgreSQL's `english` stop word list (share/tsearch_data/english.stop).
STOP_WORDS = frozenset(
    [
        "i",
        "me",
        "my",
        "myself",
        "we",
        "our",
        "ours",
        "ourselves",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "he",
        "him",
        "his",
        "himself",
        "she",
        "her",
        "hers",
        "herself",
        "it",
        "its",
        "itself",
        "they",
        "them",
        "their",
        "theirs",
        "themselves",
        "what",
        "which",
        "who",
        "whom",
        "this",
        "that",
        "these",
        "those",
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "a",
        "an",
        "the",
        "and",
        "but",
        "if",
        "or",
        "because",
        "as",
        "until",
        "while",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "in",
        "out",
        "on",
        "off",
        "over",
        "under",
        "again",
        "further",
        "then",
        "once",
        "here",
        "there",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "s",
        "t",
        "can",
        "will",
        "just",
        "don",
        "should",
        "now",
    ]
)

# Honcho's test for "this query needs exact matching" (src/utils/search.py).
SPECIAL_CHARS = re.compile(r"[~`!@#$%^&*()_+=\[\]{};':\"\\|,.<>/?-]")

_LETTERS_PER_TOKEN = 8


def _pretokeniser(letter: str, digit: str, word: str, space: str) -> re.Pattern[str]:
    """The GPT-4o pre-tokeniser's pieces, with letter runs cut every 8 letters.

    Cutting long runs into pieces of at most 8 letters makes a long word cost a token
    per started 8 letters in the same single pass that counts the pieces. Only the
    contractions ignore case: a pattern-wide IGNORECASE would slow every class test.
    """
    return re.compile(
        rf"""(?i:'(?:s|t|re|ve|m|ll|d))|[^\r\n{word}]?{letter}{{1,{_LETTERS_PER_TOKEN}}}"""
        rf"""|{digit}{{1,3}}| ?[^{space}{word}]+[\r\n]*|[{space}]*[\r\n]+|[{space}]+"""
    )


_PRETOKEN = _pretokeniser(r"[^\W\d_]", r"\d", r"\w", r"\s")
# The same rules for ASCII-only text, spelled as plain ranges, run about a fifth
# faster. Unicode \s also matches the ASCII separators \x1c-\x1f, so they are listed.
_PRETOKEN_ASCII = _pretokeniser("[a-zA-Z]", "[0-9]", "a-zA-Z0-9_", r"\t\n\x0b\x0c\r\x1c-\x1f ")


def words(text: str) -> Iterator[str]:
    """Case-folded word tokens of ``text``, stop words included, in order."""
    for match in WORD.finditer(text.casefold()):
        yield match.group()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer, applied alike to indexed words and query words."""
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    for suffix in ("ing", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix != "ly" and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def terms(text: str) -> list[str]:
    """Search terms of ``text``: stemmed words without stop words, in order."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


def has_special_chars(query: str) -> bool:
    return SPECIAL_CHARS.search(query) is not None


@lru_cache(maxsize=1024)
def ilike(query: str) -> Callable[[str], bool]:
    """A test for ``text ILIKE '%query%'`` (``%`` any run, ``_`` any one character)."""
    if "%" not in query and "_" not in query:
        needle = query.lower()
        return lambda text: needle in text.lower()
    parts = []
    for char in query:
        if char == "%":
            parts.append(".*")
        elif char == "_":
            parts.append(".")
        else:
            parts.append(re.escape(char))
    search = re.compile("".join(parts), re.IGNORECASE | re.DOTALL).search
    return lambda text: search(text) is not None


def token_count(text: str) -> int:
    """Approximate ``len(tiktoken.get_encoding("o200k_base").encode(text))``.

    Pieces are counted with ``subn``, so no list of them is built.
    """
    return (_PRETOKEN_ASCII if text.isascii() else _PRETOKEN).subn("", text)[1]
