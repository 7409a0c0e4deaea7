"""Seeded, realistic-looking chat text: the same seed gives the same messages everywhere.

Content words are pseudo-words built from syllables and drawn with a Zipf (s = 1)
distribution over a 20,000-word vocabulary, mixed with real English stop words at
about the rate they occur in conversation, plus a few accented words so that JSON
encoding sees some non-ASCII text. User turns are one to four sentences, assistant
turns four to thirty (a research agent answers at length).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

# fmt: off
STOP_WORDS = (
    "the", "and", "to", "of", "a", "in", "is", "it", "you", "that", "for", "on", "we", "this",
    "with", "be", "are", "as", "have", "was", "not", "but", "can", "so", "if", "at", "or", "from",
    "my", "your", "what", "will", "do", "they", "an", "about", "there", "how", "just", "our",
    "would",
)
SYLLABLES = (
    "ka", "ri", "to", "ne", "sa", "mu", "lo", "ve", "di", "pa", "ro", "te", "bi", "gu", "la", "me",
    "zo", "fi", "na", "ku", "se", "po", "ha", "ly", "xi", "qua", "tre", "bro", "sta", "ple", "gri",
    "dor", "fen", "mar", "vin", "tal", "cor", "pen", "sul",
)
# fmt: on
ACCENTED = ["café", "naïve", "über", "señor", "façade", "résumé", "déjà", "jalapeño"]
STOP_WORD_RATE = 0.35
VOCABULARY_SIZE = 20_000
#: Query terms skip the most frequent content words: in a real corpus those are generic
#: verbs and nouns ("get", "use", "thing") that nobody searches for on their own.
QUERY_HEAD_SKIPPED = 100


@dataclass(frozen=True)
class Vocabulary:
    words: tuple[str, ...]
    cumulative: tuple[float, ...]


def build_vocabulary(seed: int = 7, size: int = VOCABULARY_SIZE) -> Vocabulary:
    rng = random.Random(seed)
    seen: set[str] = set(STOP_WORDS)
    words: list[str] = []
    while len(words) < size:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((1, 2, 2, 3, 3, 4))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    for position, accented in zip(range(150, size, 997), ACCENTED, strict=False):
        words[position] = accented
    weights = [1.0 / rank for rank in range(1, size + 1)]
    return Vocabulary(tuple(words), tuple(itertools.accumulate(weights)))


def _with_stop_words(vocabulary: Vocabulary) -> Vocabulary:
    """The content distribution with stop words taking ``STOP_WORD_RATE`` of the mass."""
    content_mass = vocabulary.cumulative[-1]
    stop_weight = content_mass * STOP_WORD_RATE / (1 - STOP_WORD_RATE) / len(STOP_WORDS)
    stops = [stop_weight * (i + 1) for i in range(len(STOP_WORDS))]
    shifted = [stops[-1] + c for c in vocabulary.cumulative]
    return Vocabulary((*STOP_WORDS, *vocabulary.words), (*stops, *shifted))


class TextGenerator:
    """Messages and search queries from one seeded random stream."""

    def __init__(self, seed: int = 1, vocabulary: Vocabulary | None = None) -> None:
        self.rng = random.Random(seed)
        self.vocabulary = vocabulary or build_vocabulary()
        self._running_text = _with_stop_words(self.vocabulary)

    def paragraph(self, low: int, high: int) -> str:
        """``low``..``high`` sentences of 4..18 words (one draw of words for the lot)."""
        rng = self.rng
        lengths = [rng.randint(4, 18) for _ in range(rng.randint(low, high))]
        text = self._running_text
        words = rng.choices(text.words, cum_weights=text.cumulative, k=sum(lengths))
        sentences = []
        start = 0
        for length in lengths:
            sentence = words[start : start + length]
            start += length
            if length > 9 and rng.random() < 0.4:
                sentence[length // 2] += ","
            sentence[0] = sentence[0].capitalize()
            sentences.append(" ".join(sentence) + rng.choice(".....?!"))
        return " ".join(sentences)

    def user_message(self) -> str:
        return self.paragraph(1, 4)

    def assistant_message(self) -> str:
        return self.paragraph(4, 30)

    def message(self, index: int) -> str:
        """Alternating user and assistant turns, as a conversation stores them."""
        return self.user_message() if index % 2 == 0 else self.assistant_message()

    def query(self) -> str:
        """One to three content words, Zipf-weighted, skipping the vocabulary's head."""
        tail = self.vocabulary.words[QUERY_HEAD_SKIPPED:]
        offset = self.vocabulary.cumulative[QUERY_HEAD_SKIPPED - 1]
        cumulative = [c - offset for c in self.vocabulary.cumulative[QUERY_HEAD_SKIPPED:]]
        return " ".join(self.rng.choices(tail, cum_weights=cumulative, k=self.rng.randint(1, 3)))


_longest: dict[int, tuple[str, ...]] = {}


def conversation(count: int, seed: int = 3) -> tuple[str, ...]:
    """``count`` alternating user/assistant messages, generated once per process.

    Every prefix is stable: the first 1,000 of a 100,000-message corpus are the
    1,000-message corpus, so benchmarks can grow one store step by step and share
    the longest corpus generated so far.
    """
    have = _longest.get(seed, ())
    if len(have) < count:
        text = TextGenerator(seed)
        have = _longest[seed] = tuple(text.message(i) for i in range(count))
    return have[:count]
