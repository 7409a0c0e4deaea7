"""``fake-honcho proxy --redact``: private text out of a recording, its measure kept.

Message contents (and every other ``content``: conclusions, summaries, chat answers,
streamed deltas), search and chat queries, representations, peer cards and every string
in a ``metadata`` object are replaced by a placeholder of the same length in characters
and the same token count (o200k_base, as :mod:`fake_honcho.tokens` and Honcho count), so
token limits, context budgets and summaries' thresholds still decide alike. The same text
always gets the same placeholder (a recording's filters and searches keep pointing at the
same values), chosen by a hash of the text, so it reveals nothing but its measure.

A placeholder is words of one token each, of lengths 2 to 16 with their leading space,
and, where the text has more tokens than half its length, a run of ``q!`` pairs (one
token a character). Text with more tokens than characters (some scripts, emoji) gets the
placeholder of its length with the most tokens that allows. A special token's spelling
stays (Honcho refuses text holding one, so the replay must see it).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from fake_honcho.drift.traffic import Body, Exchange
from fake_honcho.store.tokens import SPECIAL_TOKENS, token_count

__all__ = ["TEXT_KEYS", "Redactor", "placeholder"]

#: JSON keys whose string values (or lists of strings) are private text.
TEXT_KEYS = frozenset(
    {"content", "query", "search_query", "representation", "peer_card", "delta", "text"}
)
#: JSON keys whose whole value is private (every string inside it).
PRIVATE_TREES = frozenset({"metadata"})
#: Query parameters that carry private text.
TEXT_PARAMS = frozenset({"search_query", "query"})

_SPECIAL = re.compile("(" + "|".join(re.escape(token) for token in SPECIAL_TOKENS) + ")")

# One-token words (with their leading space), by length.
_WORDS = {
    2: (" a", " I"),
    3: (" to", " of"),
    4: (" the", " and"),
    5: (" have", " time"),
    6: (" about",),
    7: (" people", " little"),
    8: (" between", " because"),
    9: (" children", " national"),
    10: (" important", " something"),
    11: (" experience", " government"),
    12: (" development", " information"),
    13: (" particularly", " relationship"),
    14: (" international",),
    15: (" responsibility",),
    16: (" characteristics",),
}
_LONGEST = max(_WORDS)


def _lengths(length: int, words: int) -> list[int] | None:
    """``words`` word lengths summing to ``length`` (each in ``_WORDS``), or None."""
    if not _reachable(length, words):
        return None
    sizes = []
    for left in range(words, 0, -1):
        size = next(s for s in sorted(_WORDS, reverse=True) if _reachable(length - s, left - 1))
        sizes.append(size)
        length -= size
    return sizes


def _reachable(length: int, words: int) -> bool:
    if words <= 1:
        return length in _WORDS if words else length == 0
    return 2 * words <= length <= _LONGEST * words


def placeholder(text: str) -> str:
    """A stand-in for ``text``: same length, same token count where one can be built.

    The spelling of a special token (``<|endoftext|>``) is kept as it is: it is no private
    text, and Honcho refuses a message or a query that holds one."""
    if _SPECIAL.search(text):
        return "".join(
            part if _SPECIAL.fullmatch(part) else _stand_in(part) for part in _SPECIAL.split(text)
        )
    return _stand_in(text)


def _stand_in(text: str) -> str:
    length, tokens = len(text), token_count(text)
    rng = random.Random(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
    dense = max(0, 2 * tokens - length)  # characters of one token each
    for extra in range(0, 3):  # a word boundary may merge: try one dense character more
        words = tokens - dense - extra
        sizes = _lengths(length - dense - extra, words) if words >= 0 else None
        if sizes is None:
            continue
        rng.shuffle(sizes)
        run = ("q!" * (dense + extra))[: dense + extra]
        candidate = run + "".join(rng.choice(_WORDS[size]) for size in sizes)
        if token_count(candidate) == tokens:
            return candidate
    if length and tokens > length:  # more tokens than characters: the densest we can
        return ("q!" * length)[:length]
    return _fallback(length)


def _fallback(length: int) -> str:
    return ("x" * length)[:length]


class Redactor:
    """Redacts JSON bodies, SSE streams and query strings, one placeholder per text."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def text(self, value: str) -> str:
        if value not in self._known:
            self._known[value] = placeholder(value)
        return self._known[value]

    def json(self, data: Any, key: str | None = None, private: bool = False) -> Any:
        if isinstance(data, dict):
            return {k: self.json(v, k, private or k in PRIVATE_TREES) for k, v in data.items()}
        if isinstance(data, list):
            return [self.json(item, key, private) for item in data]
        if isinstance(data, str) and (private or key in TEXT_KEYS):
            return self.text(data)
        return data

    def stream(self, body: str) -> str:
        """An SSE stream with each ``data:`` line's JSON redacted."""
        return "\n".join(self._event_line(line) for line in body.split("\n"))

    def _event_line(self, line: str) -> str:
        if not line.startswith("data:"):
            return line
        try:
            return "data: " + json.dumps(self.json(json.loads(line[5:].strip())))
        except ValueError:  # data that is not JSON: private text as a whole
            return "data: " + self.text(line[5:].strip())

    def params(self, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(k, self.text(v) if k in TEXT_PARAMS else v) for k, v in pairs]

    def exchange(self, exchange: Exchange) -> Exchange:
        """``exchange`` with its private text replaced (bodies, SSE streams, query strings)."""

        def body(part: Body, stream: bool) -> Body:
            if part.kind == "json":
                return Body("json", self.json(part.value))
            if part.kind == "text" and stream:
                return Body("text", self.stream(part.value))
            return part

        target = exchange.target
        if exchange.query:
            target = f"{exchange.path}?{urlencode(self.params(exchange.query))}"
        return replace(
            exchange,
            target=target,
            request=body(exchange.request, False),
            response=body(exchange.response, exchange.streamed),
        )
