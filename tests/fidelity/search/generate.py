"""Seeded corpora and queries that exercise Postgres's ``english`` text search.

Messages mix plain words and their inflections (so stemming decides matches), stop
words, punctuation, numbers and versions, e-mail addresses, URLs and hosts, file
paths, hyphenated words, non-ASCII words, repeated terms (``ts_rank`` saturates) and
near/far term pairs (its proximity part). Queries are single words, inflected forms,
multi-word phrases taken from messages, stop-word-only text, substrings (the ``ILIKE``
leg), punctuation (the ILIKE-only switch) and misses. The same seed gives the same
corpus everywhere.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# fmt: off
STEMS = (
    "run", "walk", "talk", "cook", "bake", "hike", "swim", "read", "write", "paint", "travel",
    "garden", "plant", "visit", "call", "email", "meet", "plan", "book", "pack", "drive",
    "fly", "study", "teach", "learn", "play", "sing", "dance", "jump", "climb", "fish",
    "camp", "shop", "clean", "fix", "build", "code", "test", "deploy", "debug", "review",
    "merge", "ship", "order", "deliver", "pay", "save", "spend", "invest", "borrow", "lend",
    "happy", "quick", "slow", "generous", "careful", "easy", "busy", "early", "late", "nice",
    "connect", "relate", "organize", "argue", "agree", "decide", "try", "cry", "die", "lie",
    "apply", "reply", "marry", "carry", "hurry", "worry", "enjoy", "stay", "obey", "sky",
    "city", "country", "party", "story", "family", "berry", "cherry", "puppy", "baby",
    "dog", "cat", "horse", "bird", "mouse", "fox", "wolf", "leaf", "knife", "wife", "life",
    "child", "person", "man", "woman", "tooth", "foot", "goose", "news", "series", "bus",
    "class", "glass", "box", "church", "dish", "wish", "match", "watch", "beach", "coach",
    "nation", "national", "nationality", "relational", "conditional", "rational", "valency",
    "hesitancy", "digitizer", "conformably", "radically", "differently", "vilely", "analogously",
    "formality", "sensitivity", "sensibility", "triplicate", "formative", "formalize",
    "electrical", "hopeful", "goodness", "revival", "allowance", "inference", "airliner",
    "adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent",
    "adoption", "homologous", "communism", "activate", "angularity", "effective", "bowdlerize",
    "probate", "rate", "cease", "controll", "roll", "generate", "general", "generic",
    "universe", "university", "universal", "organ", "organic", "organization", "news",
    "tea", "coffee", "pizza", "pasta", "salad", "bread", "cheese", "apple", "banana", "mango",
    "mountain", "river", "lake", "ocean", "forest", "desert", "island", "valley", "bridge",
    "project", "meeting", "deadline", "budget", "invoice", "ticket", "release", "feature",
    "server", "database", "index", "query", "search", "rank", "token", "parser", "memory",
    "birthday", "holiday", "weekend", "morning", "evening", "tonight", "tomorrow", "yesterday",
    "doctor", "dentist", "lawyer", "teacher", "student", "engineer", "manager", "designer",
)
SUFFIXES = ("", "", "", "s", "es", "ed", "ing", "er", "ers", "est", "ly", "ness", "ful",
            "ation", "ations", "ities", "ies", "ied", "ying", "able", "ment", "ments", "ize",
            "izing", "ized", "ism", "ist", "ists", "al", "ally", "ive", "iveness", "ousness")
STOP_WORDS = (
    "i", "me", "my", "we", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its",
    "they", "them", "their", "what", "which", "who", "this", "that", "these", "those", "am",
    "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "do", "does",
    "did", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while", "of",
    "at", "by", "for", "with", "about", "against", "between", "into", "through", "during",
    "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off",
    "over", "under", "again", "then", "once", "here", "there", "when", "where", "why", "how",
    "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "not",
    "only", "own", "same", "so", "than", "too", "very", "s", "t", "can", "will", "just",
    "don", "should", "now", "would", "could", "also", "really", "maybe",
)
NON_ASCII = ("café", "naïve", "über", "señor", "façade", "résumé", "déjà", "jalapeño", "Zürich",
             "Ærøskøbing", "Straße", "İstanbul", "ΟΔΟΣ", "Привет", "мир", "東京", "日本語",
             "한국어", "مرحبا", "שלום", "नमस्ते", "ประเทศไทย", "coöperate", "naïveté", "Ωmega",
             "emoji🙂ok", "smile😀", "\uff46\uff55\uff4c\uff4c", "ﬁne", "Ⅻ", "x²", "½", "٣٤٥")
PUNCTUATION = (",", ".", "!", "?", ";", ":", "...", " -", " —", "'", '"', "(", ")", "…", "/",
               "&", "+", "*", "#", "%", "@", "$", "~", "_", "=", "<", ">", "|", "[", "]")
TLDS = ("com", "org", "net", "io", "co.uk", "dev")
# fmt: on


def word(rng: random.Random) -> str:
    stem = rng.choice(STEMS)
    suffix = rng.choice(SUFFIXES)
    text = stem + suffix
    roll = rng.random()
    if roll < 0.08:
        return text.capitalize()
    if roll < 0.1:
        return text.upper()
    return text


def special_token(rng: random.Random) -> str:
    """Numbers, versions, addresses, paths, hyphenations, non-ASCII: the rarer types."""
    kind = rng.randrange(17)
    name = rng.choice(STEMS)
    other = rng.choice(STEMS)
    if kind == 0:
        return str(rng.randrange(0, 100000))
    if kind == 1:
        return f"{rng.randrange(10)}.{rng.randrange(100)}"
    if kind == 2:
        return f"{rng.randrange(10)}.{rng.randrange(10)}.{rng.randrange(30)}"
    if kind == 3:
        return f"{name}.{other}@{rng.choice(STEMS)}.{rng.choice(TLDS)}"
    if kind == 4:
        return f"https://www.{name}.{rng.choice(TLDS)}/{other}/{rng.randrange(99)}?q={name}"
    if kind == 5:
        return f"{name}.{rng.choice(TLDS)}"
    if kind == 6:
        return f"/home/{name}/{other}.txt"
    if kind == 7:
        return f"{name}-{other}"
    if kind == 8:
        return f"{name}-{other}-{rng.choice(STEMS)}"
    if kind == 9:
        return f"{rng.randrange(1, 99)}{rng.choice(('nd', 'th', 'rd', 'px', 'kg'))}"
    if kind == 10:
        return f"{name}{rng.randrange(1, 999)}"
    if kind == 11:
        return rng.choice(NON_ASCII)
    if kind == 12:
        sign = rng.choice(("-", "+", ""))
        return f"{sign}{rng.randrange(100)}.{rng.randrange(100)}e{rng.randrange(9)}"
    if kind == 13:
        return f"{name}_{other}"
    if kind == 14:
        return f"<b>{name}</b>" if rng.random() < 0.5 else f"&amp;{name}"
    if kind == 15:
        return f"{name}'s"
    return f"{name}{rng.choice(PUNCTUATION)}{other}"


def sentence(rng: random.Random, low: int = 3, high: int = 16) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(low, high)):
        roll = rng.random()
        if roll < 0.35:
            parts.append(rng.choice(STOP_WORDS))
        elif roll < 0.85:
            parts.append(word(rng))
        else:
            parts.append(special_token(rng))
        if rng.random() < 0.12:
            parts[-1] += rng.choice(PUNCTUATION)
    if parts and rng.random() < 0.15:
        parts.extend([parts[rng.randrange(len(parts))]] * rng.randint(1, 4))  # repeats
    text = " ".join(parts)
    return text[:1].upper() + text[1:] + rng.choice((".", "!", "?", "", "..."))


def message(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(STOP_WORDS)
    if roll < 0.1:
        return word(rng)
    return " ".join(sentence(rng) for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))))


@dataclass
class Corpus:
    seed: int
    sessions: list[str]
    peers: list[str]
    # Batches in write order: (session, [(peer, content), ...]).
    batches: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)

    def messages(self) -> list[tuple[str, str, str]]:
        return [(sid, peer, text) for sid, batch in self.batches for peer, text in batch]


def corpus(seed: int, size: int = 300) -> Corpus:
    rng = random.Random(seed)
    sessions = [f"s{n}" for n in range(rng.randint(1, 5))]
    peers = [f"p{n}" for n in range(rng.randint(1, 4))]
    made = Corpus(seed, sessions, peers)
    written = 0
    while written < size:
        count = min(size - written, rng.choice((1, 1, 2, 5, 10, 20, 50, 100)))
        batch = [(rng.choice(peers), message(rng)) for _ in range(count)]
        if rng.random() < 0.2 and batch:  # a batch of identical messages: all ties
            batch = [(peer, batch[0][1]) for peer, _ in batch]
        made.batches.append((rng.choice(sessions), batch))
        written += count
    return made


def queries(seed: int, texts: list[str], count: int = 120) -> list[str]:
    rng = random.Random(seed * 7919 + 1)
    found: list[str] = []
    while len(found) < count:
        roll = rng.random()
        text = rng.choice(texts)
        words = text.split()
        if roll < 0.25:
            found.append(word(rng))
        elif roll < 0.35:
            found.append(rng.choice(STEMS))
        elif roll < 0.55 and words:
            start = rng.randrange(len(words))
            found.append(" ".join(words[start : start + rng.randint(1, 4)]))
        elif roll < 0.7:
            found.append(" ".join(word(rng) for _ in range(rng.randint(2, 4))))
        elif roll < 0.75:
            found.append(" ".join(rng.choice(STOP_WORDS) for _ in range(rng.randint(1, 3))))
        elif roll < 0.82 and text:
            start = rng.randrange(len(text))
            found.append(text[start : start + rng.randint(2, 8)])  # a substring
        elif roll < 0.88:
            found.append(rng.choice(NON_ASCII))
        elif roll < 0.94:
            found.append(special_token(rng))
        else:
            found.append(f"{word(rng)} {rng.choice(STOP_WORDS)} {word(rng)}")
    return [query for query in found if query.strip()]
