"""PostgreSQL's default text-search parser: text -> (token type, token) pairs.

:func:`parse` runs the rules of :mod:`.grammar` the way the server does (a stack of
saved positions: ``push`` tries an alternative, ``pop`` backs out of it to the next
rule). A character-by-character machine is slow in Python, so :func:`tokens` cuts the
text first, where that cannot change the result:

* without ``<`` no token spans ASCII whitespace (only tags and comments do), and the
  blank run between two chunks swallows, at a chunk's start, the characters a blank
  swallows (anything but letters, digits and ``< - + & /``); so each chunk is parsed
  on its own after that prefix, and the text's very first chunk as it stands;
* a chunk of ASCII letter runs and digit runs (not touching each other) separated by
  punctuation that only ends a word (``,`` ``!`` ``'`` ``)``..., a ``.`` not followed by
  a letter, digit, ``_``, ``.`` or ``/``) is its runs as ``asciiword`` and ``uint``
  tokens, which is what the machine gives for it (the tests compare both on it).
"""

from __future__ import annotations

import re

from fake_honcho.search.chars import ALNUM, ALPHA, DIGIT, SPACE, SPECIAL, XDIGIT, classes
from fake_honcho.search.grammar import (
    BINGO,
    CLEAR,
    CLRALL,
    MERGE,
    POP,
    PUSH,
    RERUN,
    STATE,
    STATES,
    Rule,
)

Token = tuple[str, str]
"""(token type alias, token text), e.g. ``("asciiword", "Cats")``."""

_BASE = STATE["Base"]
_URLPATH_FIRST = STATE["URLPathFirst"]
_URL_REJECTS = frozenset('"<>\\^`{|}')
_CHUNK = re.compile(r"[^\t\n\v\f\r ]+")
# Punctuation that ends an ASCII word or number and starts nothing: after it the parser
# is in a blank, which it also swallows. ("." is such only when no letter, digit,
# "_", "." or "/" follows it.)
_ENDS = r"""[!"#$%'()*,:;=>?\[\\\]^`{|}]"""
_FAST = re.compile(rf"(?:[A-Za-z]+(?![0-9])|[0-9]+(?![A-Za-z])|{_ENDS}|\.(?![A-Za-z0-9_./]))+")
_RUN = re.compile(r"[A-Za-z]+|[0-9]+")
# A whole text of such chunks (runs of at most 1,000 characters, so none is too long
# for a dictionary) is its runs: two regexes instead of a loop over its chunks.
_SIMPLE_CHARS = re.compile(r"""[A-Za-z0-9\t\n\v\f\r !"#$%'()*,:;=>?\[\\\]^`{|}.]*""")
_NOT_SIMPLE = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]|\.[A-Za-z0-9.]")
_LONG_RUN = re.compile(r"[A-Za-z0-9]{1001}")
_BLANK_STOPS = frozenset("<-+&/")


class _Frame:
    """One saved parser position (``TParserPosition``), in characters."""

    __slots__ = ("length", "pos", "pushed", "state")

    def __init__(self, state: int, pos: int, length: int) -> None:
        self.state = state
        self.pos = pos
        self.length = length  # characters of the token so far
        self.pushed = -1  # index of the rule that pushed the next frame

    def copy(self) -> _Frame:
        return _Frame(self.state, self.pos, self.length)


class _Machine:
    """One run of the rules over ``text`` (a nested one for hosts and URL paths)."""

    def __init__(self, text: str, kinds: bytes, start: int = 0) -> None:
        self.text = text
        self.kinds = kinds
        self.end = len(text)
        self.stack = [_Frame(_BASE, start, 0)]
        self.ignore = False
        self.wanthost = False

    def _test(self, rule: Rule, pos: int) -> bool:
        test = rule[0]
        at_end = pos >= self.end
        if test == "eof":
            return at_end
        if test == "*":
            return True
        if test == "stophost":
            if self.wanthost:
                self.wanthost = False
                return True
            return False
        if test == "ignore":
            return self.ignore
        if test == "host":
            return not at_end and self._nested(pos, _BASE, "host", wanthost=True)
        if test == "urlpath":
            return not at_end and self._nested(pos, _URLPATH_FIRST, "url_path")
        if at_end:
            # Past the end only "not alnum" holds: the server tests a NUL there.
            return test == "notalnum"
        char = self.text[pos]
        if test == "eq":
            return char == rule[1]
        kind = self.kinds[pos]
        if test == "asclet":
            return kind & ALPHA != 0 and char < "\x80"
        if test == "alpha":
            return kind & ALPHA != 0
        if test == "digit":
            return kind & DIGIT != 0
        if test == "alnum":
            return kind & ALNUM != 0
        if test == "notalnum":
            return kind & ALNUM == 0
        if test == "special":
            return kind & SPECIAL != 0
        if test == "space":
            return kind & SPACE != 0
        if test == "xdigit":
            return kind & XDIGIT != 0
        if test == "urlchar":
            return " " < char < "\x7f" and char not in _URL_REJECTS
        raise AssertionError(f"unknown test {test}")

    def _nested(self, pos: int, state: int, wanted: str, *, wanthost: bool = False) -> bool:
        """A nested parse from ``pos``: does its first token have type ``wanted``?"""
        inner = _Machine(self.text, self.kinds, pos)
        inner.wanthost = wanthost
        if state != _BASE:
            inner.stack.append(_Frame(state, pos, 0))
        found = inner.next_token()
        if found is None or found[0] != wanted:
            return False
        top = self.stack[-1]
        top.pos += len(found[1])
        top.length += len(found[1])
        return True

    def _special(self, name: str, top: _Frame) -> None:
        if name == "hyphen":
            top.pos -= top.length
        elif name == "furl":
            self.wanthost = True
            top.pos -= top.length
        elif name == "verversion":
            top.pos -= top.length
            top.length = 0
        elif name == "tags":
            start = top.pos - top.length
            tag = self.text[start : top.pos].lower()
            if (top.length == 8 and tag == "</script") or (top.length == 7 and tag == "</style"):
                self.ignore = False
            elif (top.length == 7 and tag == "<script") or (top.length == 6 and tag == "<style"):
                self.ignore = True

    def next_token(self) -> Token | None:
        """The next token (``TParserGet``), or None at the end of the text."""
        stack = self.stack
        top = stack[-1]
        if top.pos >= self.end:
            return None
        start = top.pos
        top.pushed = -1
        while top.pos <= self.end:
            rules = STATES[top.state]
            first = 0
            if top.pushed >= 0:
                first, top.pushed = top.pushed + 1, -1
            index = first
            while not self._test(rules[index], top.pos):
                index += 1
            rule = rules[index]
            flags = rule[2]
            if rule[5]:
                self._special(rule[5], top)
            token: Token | None = None
            if flags & BINGO:
                token = (rule[4], self.text[start : start + top.length])
                top.length = 0
            if flags & POP:
                stack.pop()
                top = stack[-1]
            elif flags & PUSH:
                top.pushed = index
                top = top.copy()
                stack.append(top)
            elif flags & CLEAR:
                del stack[-2]
            elif flags & CLRALL:
                del stack[:-1]
            elif flags & MERGE:
                inner = stack.pop()
                top = stack[-1]
                top.pos, top.length = inner.pos, inner.length
            if rule[3] >= 0:
                top.state = rule[3]
            if token is not None:
                return token
            if top.pos >= self.end and not flags & RERUN:
                return None
            if flags & (RERUN | POP):
                continue
            if top.pos < self.end:
                top.pos += 1
                top.length += 1
        return None


def parse(text: str) -> list[Token]:
    """Every token of ``text``, blanks included, as ``ts_parse('default', text)`` gives."""
    machine = _Machine(text, classes(text))
    found: list[Token] = []
    while (token := machine.next_token()) is not None:
        found.append(token)
    return found


def _after_blank(chunk: str) -> str:
    """``chunk`` without the characters a blank run ending before it swallows."""
    kinds = classes(chunk)
    for at, char in enumerate(chunk):
        if kinds[at] & ALNUM or char in _BLANK_STOPS:
            return chunk[at:]
    return ""


def chunk_tokens(chunk: str, after_blank: bool) -> tuple[Token, ...]:
    """The non-blank tokens of one whitespace-free chunk of a text without ``<``.

    ``after_blank``: the chunk follows whitespace (any chunk but a text's first).
    Not cached here: indexing caches each chunk's lexemes (``english``), which is
    what repeats.
    """
    if after_blank:
        chunk = _after_blank(chunk)
    if _FAST.fullmatch(chunk):
        return tuple(("uint" if run[0] < "A" else "asciiword", run) for run in _RUN.findall(chunk))
    return tuple(token for token in parse(chunk) if token[0] != "blank")


def simple_runs(text: str) -> list[str] | None:
    """The tokens of a text made only of fast-path chunks (each run one token), or None."""
    if _SIMPLE_CHARS.fullmatch(text) is None or _NOT_SIMPLE.search(text) is not None:
        return None
    if len(text) > 1000 and _LONG_RUN.search(text) is not None:
        return None
    return _RUN.findall(text)


def chunks(text: str) -> list[tuple[str, bool]] | None:
    """``text`` cut for :func:`chunk_tokens`; None when it holds ``<`` (parse it whole)."""
    if "<" in text:
        return None
    parts = _CHUNK.findall(text)
    cut = [(part, True) for part in parts]
    if cut and text[:1] == parts[0][:1]:
        cut[0] = (parts[0], False)
    return cut


def tokens(text: str) -> list[Token]:
    """The tokens of ``text`` that are not blanks, in order (``ts_parse`` without blanks)."""
    cut = chunks(text)
    if cut is None:
        return [token for token in parse(text) if token[0] != "blank"]
    found: list[Token] = []
    for chunk, after_blank in cut:
        found.extend(chunk_tokens(chunk, after_blank))
    return found
