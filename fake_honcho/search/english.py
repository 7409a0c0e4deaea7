"""The ``english`` text-search configuration: ``to_tsvector`` and ``plainto_tsquery``.

Which token types are indexed and by which dictionary (``\\dF+ english`` on the real
server): words, hyphenated words and their letter parts go to ``english_stem``
(lower-cased, the english stop words dropped, Snowball English stemming); numbers,
e-mail addresses, URLs, hosts, paths and versions to ``simple`` (lower-cased as they
are); tags, entities, protocol heads and blanks are not indexed. A stop word still
takes a position; an unindexed token does not. A token of 2,047 bytes or more is
skipped; one over 1,000 bytes is lower-cased but not stemmed. Positions stop at
16,383, and a lexeme keeps at most 255 distinct positions.

Stemming is PyStemmer 2.2.0.3, the Snowball 2.2.0 release that PostgreSQL 15 embeds
(the Snowball 3 stemmers differ on English words such as ``added`` and ``-ologist``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from fake_honcho.search.chars import pg_lower
from fake_honcho.search.parser import chunk_tokens, chunks, simple_runs, tokens

_STEMMED = frozenset(("asciiword", "word", "asciihword", "hword", "hword_asciipart", "hword_part"))
_SIMPLE = frozenset(
    (
        "numword",
        "numhword",
        "hword_numpart",
        "email",
        "url",
        "host",
        "url_path",
        "file",
        "sfloat",
        "float",
        "int",
        "uint",
        "version",
    )
)
MAX_TOKEN_BYTES = 2047
MAX_STEMMED_BYTES = 1000
MAX_POSITION = 16383
MAX_POSITIONS = 255

# PostgreSQL 15's english stop words (src/backend/snowball/stopwords/english.stop, the
# Snowball project's English list); checked against ts_lexize('english_stem', w) on the
# real server, which drops exactly these 127.
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

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=16384)
def _stem(word: str) -> str | None:
    """``english_stem`` of an already lower-cased word (None: a stop word)."""
    if word in STOP_WORDS:
        return None
    return _stemmer.stemWord(word)


def _lexeme(kind: str, token: str) -> tuple[bool, str | None]:
    """(indexed at all, lexeme or None for a stop word) of one token."""
    if kind in _STEMMED:
        size = len(token) if token.isascii() else len(token.encode())
        if size >= MAX_TOKEN_BYTES:
            return False, None
        if size > MAX_STEMMED_BYTES:
            return True, pg_lower(token)
        return True, _stem(pg_lower(token))
    if kind in _SIMPLE:
        size = len(token) if token.isascii() else len(token.encode())
        if size >= MAX_TOKEN_BYTES:
            return False, None
        return True, pg_lower(token)
    return False, None


# Entries each cache keeps before it starts over: enough for a conversation's working
# vocabulary, small beside the messages (an entry costs ~150-200 bytes).
_CACHE_LIMIT = 32_768
_by_chunk: dict[tuple[str, bool], tuple[str | None, ...]] = {}


def _chunk_lexemes(chunk: str, after_blank: bool) -> tuple[str | None, ...]:
    """One position per indexed token of the chunk: its lexeme, or None (a stop word)."""
    key = (chunk, after_blank)
    found = _by_chunk.get(key)
    if found is None:
        found = _indexed(chunk_tokens(chunk, after_blank))
        if len(_by_chunk) >= _CACHE_LIMIT:
            _by_chunk.clear()
        _by_chunk[key] = found
    return found


def _indexed(found: Iterable[tuple[str, str]]) -> tuple[str | None, ...]:
    kept: list[str | None] = []
    for kind, token in found:
        indexed, lexeme = _lexeme(kind, token)
        if indexed:
            kept.append(lexeme)
    return tuple(kept)


_by_run: dict[str, str | None] = {}


def _run_lexeme(run: str) -> str | None:
    """The lexeme of an ASCII letter run (None: a stop word) or digit run, cached."""
    lexeme = run if run[0] < "A" else _stem(run.lower())
    if len(_by_run) >= _CACHE_LIMIT:
        _by_run.clear()
    _by_run[run] = lexeme
    return lexeme


def run_lexeme(run: str) -> str | None:
    """The lexeme a lower-cased ASCII letter or digit run indexes as on its own (None:
    a stop word, or a run of another kind, whose token the parser alone can tell)."""
    if not run.isascii() or not run.isalnum():
        return None
    if run.isalpha():
        return _stem(run)
    return run if run.isdigit() else None


def _stream(text: str) -> list[str | None]:
    """The lexeme (or None for a stop word) at each position 1, 2, ... of ``text``."""
    runs = simple_runs(text)
    if runs is not None:
        known = _by_run
        return [known[run] if run in known else _run_lexeme(run) for run in runs]
    cut = chunks(text)
    if cut is None:
        return list(_indexed(tokens(text)))
    stream: list[str | None] = []
    for chunk, after_blank in cut:
        stream.extend(_chunk_lexemes(chunk, after_blank))
    return stream


def lexemes(text: str) -> list[tuple[str, int]]:
    """(lexeme, position) for each indexed token of ``text``, in order (before merging)."""
    return [
        (lexeme, min(position, MAX_POSITION))
        for position, lexeme in enumerate(_stream(text), start=1)
        if lexeme is not None
    ]


def to_tsvector(text: str) -> dict[str, list[int]]:
    """``to_tsvector('english', text)``: each lexeme with its sorted positions."""
    stream = _stream(text)
    vector: dict[str, list[int]] = {}
    if len(stream) < MAX_POSITION:  # no position is clamped, so none repeats
        for position, lexeme in enumerate(stream, start=1):
            if lexeme is not None:
                positions = vector.get(lexeme)
                if positions is None:
                    vector[lexeme] = [position]
                elif len(positions) < MAX_POSITIONS:
                    positions.append(position)
        return vector
    for lexeme, position in lexemes(text):
        positions = vector.setdefault(lexeme, [])
        if not positions or (
            len(positions) < MAX_POSITIONS
            and positions[-1] != MAX_POSITION
            and positions[-1] != position
        ):
            positions.append(position)
    return vector


def plainto_tsquery(text: str) -> tuple[str, ...]:
    """``plainto_tsquery('english', text)``: the AND-ed lexemes in order (may repeat).

    Empty when the text holds only stop words or nothing indexable; such a query matches
    no document (the server notes "text-search query doesn't contain lexemes").
    """
    return tuple(lexeme for lexeme in _stream(text) if lexeme is not None)


def terms(text: str) -> list[str]:
    """The english lexemes of ``text`` in order (for callers that compare texts loosely)."""
    return list(plainto_tsquery(text))
