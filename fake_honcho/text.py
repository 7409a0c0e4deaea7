"""Token counting for message creation (search's text handling is fake_honcho.search).

* :func:`token_count`: Honcho counts tokens with tiktoken's ``o200k_base``. The fake
  approximates it without the vocabulary: the text is split with the GPT-4o
  pre-tokeniser's rules (letter runs with an optional leading space, digit groups of
  up to three, punctuation runs, whitespace runs), each piece is a token, and a
  letter piece longer than 8 letters costs one more token per further started 8.
  For English prose this lands within a few percent of the real count; empty
  content is 0 tokens, as in Honcho.
"""

from __future__ import annotations

import re

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


def token_count(text: str) -> int:
    """Approximate ``len(tiktoken.get_encoding("o200k_base").encode(text))``.

    Pieces are counted with ``subn``, so no list of them is built.
    """
    return (_PRETOKEN_ASCII if text.isascii() else _PRETOKEN).subn("", text)[1]
