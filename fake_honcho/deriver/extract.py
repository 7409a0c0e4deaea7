"""Rule-based extraction of explicit conclusions from first-person statements.

The real deriver asks an LLM for "facts literally stated by the peer". The fake
reads the same kind of fact with fixed patterns ("I prefer green tea" becomes
"alice prefers green tea"), so a test can predict every conclusion exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

FactKind = Literal["identity", "location", "work", "preference", "dislike", "plan"]

MAX_OBJECT_WORDS = 12

_ABBREVIATIONS = ("st", "dr", "mr", "ms", "mrs", "jr")
# Sentence ends: punctuation not right after an abbreviation. Each branch starts with a
# character class and the abbreviation checks look back from the first mark, so the
# scanner skips ordinary characters instead of running six look-behinds at each one.
_CLAUSE_SPLIT = re.compile(
    r"[.!?]"
    + "".join(rf"(?<!\b{abbreviation}[.!?])" for abbreviation in _ABBREVIATIONS)
    + r"[.!?]*(?=\s|$)|[;\n]+|,?\s+(?:and|but)\s+(?=(?:i|i'm|my)\b)",
    re.IGNORECASE,
)
#: Every rule (and the bare-name rule) starts with "i", "my" or "call me": a clause can
#: only match if it starts with one of these (``re.IGNORECASE`` also equates the dotted
#: capital I and the dotless small i, U+0130 and U+0131, with "i").
_RULE_INITIALS = frozenset("iImMcC\u0130\u0131")
_FILLER = re.compile(
    r"^(?:and|but|so|also|well|actually|honestly|oh|btw|by the way|yeah|yes|no|hi|hello|hey)"
    r"\b[,!]?\s*",
    re.IGNORECASE,
)
_VAGUE_NOUNS = {"bit", "little", "lot", "fan", "big", "huge"}
_PRONOUNS = {
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "i'm": "they're",
    "i've": "they've",
    "i'll": "they'll",
    "i'd": "they'd",
}
_PRONOUN_WORD = re.compile(r"\b(?:i'm|i've|i'll|i'd|i|me|my|mine|myself)\b", re.IGNORECASE)

# (kind, pattern matched at the start of a clause, template). ``{p}`` is the observed peer,
# ``{x}`` the captured object, ``{v}`` a captured verb turned third person.
_RULE_SPECS: list[tuple[FactKind, str, str]] = [
    (
        "dislike",
        r"^i (?:really )?(?:don't|do not) (?:like|enjoy|love) (?P<x>.+)",
        "{p} dislikes {x}",
    ),
    ("dislike", r"^i (?:really )?(?P<v>dislike|hate|detest|loathe) (?P<x>.+)", "{p} {v} {x}"),
    ("dislike", r"^i (?:can't|cannot) stand (?P<x>.+)", "{p} can't stand {x}"),
    ("identity", r"^my name is (?P<x>.+)", "{p}'s name is {x}"),
    ("identity", r"^(?:i'm|i am) called (?P<x>.+)", "{p} is called {x}"),
    ("identity", r"^call me (?P<x>.+)", "{p} goes by {x}"),
    ("identity", r"^(?:i'm|i am) (?P<x>\d+) years old", "{p} is {x} years old"),
    ("location", r"^i (?:currently )?live in (?P<x>.+)", "{p} lives in {x}"),
    ("location", r"^(?:i'm|i am) (?:currently )?living in (?P<x>.+)", "{p} lives in {x}"),
    ("location", r"^(?:i'm|i am) (?P<v>from|based in) (?P<x>.+)", "{p} is {v} {x}"),
    ("location", r"^i (?:just )?moved to (?P<x>.+)", "{p} moved to {x}"),
    ("work", r"^i work (?P<v>as|at|for|in|on) (?P<x>.+)", "{p} works {v} {x}"),
    (
        "work",
        r"^(?:i'm|i am) (?:employed|working) (?P<v>as|at|for) (?P<x>.+)",
        "{p} works {v} {x}",
    ),
    ("work", r"^my job is (?P<x>.+)", "{p}'s job is {x}"),
    ("plan", r"^(?:i'm|i am) (?:planning|going|hoping) to (?P<x>.+)", "{p} plans to {x}"),
    ("plan", r"^i (?:plan|intend) to (?P<x>.+)", "{p} plans to {x}"),
    ("plan", r"^i want to (?P<x>.+)", "{p} wants to {x}"),
    ("plan", r"^(?:i will|i'll) (?P<x>.+)", "{p} plans to {x}"),
    (
        "preference",
        r"^i (?:really |absolutely )?(?P<v>prefer|like|love|enjoy|adore) (?P<x>.+)",
        "{p} {v} {x}",
    ),
    (
        "preference",
        r"^my favou?rite (?P<v>[\w-]+(?: [\w-]+)?) is (?P<x>.+)",
        "{p}'s favorite {v} is {x}",
    ),
    ("identity", r"^(?:i'm|i am) (?P<v>an?) (?P<x>.+)", "{p} is {v} {x}"),
]
_RULES = [
    (kind, re.compile(pattern, re.IGNORECASE), template) for kind, pattern, template in _RULE_SPECS
]
_NAME = re.compile(r"^(?i:i'm|i am) (?P<x>[A-Z][\w-]*)$")
_VERB_GROUP = re.compile(r"\(\?P<v>(?P<alternatives>.*?)\) ")


@dataclass(frozen=True)
class Fact:
    """One explicit fact about a peer: kind, third-person sentence and bare predicate."""

    kind: FactKind
    content: str
    predicate: str


def extract_facts(text: str, peer: str) -> list[Fact]:
    """Every first-person fact in ``text``, phrased about ``peer``, in order, without repeats."""
    facts: list[Fact] = []
    seen: set[str] = set()
    for clause in _clauses(text):
        fact = _match(clause, peer)
        if fact is not None and normalize(fact.content) not in seen:
            seen.add(normalize(fact.content))
            facts.append(fact)
    return facts


def fact_of(content: str, peer: str) -> Fact | None:
    """The fact a conclusion about ``peer`` states, when it reads as one the rules write.

    The inverse of :func:`extract_facts` on its output: "alice prefers green tea" is a
    ``preference``. Dreams use it to classify conclusions they did not derive.
    """
    if not content.startswith(peer):
        return None
    rest = content[len(peer) :]
    for kind, reading in _READINGS:
        if reading.match(rest):
            predicate = rest.removeprefix("'s").lstrip()
            return Fact(kind=kind, content=content, predicate=predicate)
    return None


def normalize(content: str) -> str:
    """Comparison key for de-duplication: case and spacing do not make a new fact."""
    return " ".join(content.lower().split())


def _clauses(text: str) -> list[str]:
    text = text.replace("\u2019", "'").replace("\u00a0", " ")
    clauses = []
    for raw in _split(text):
        clause = " ".join(raw.split())
        while True:
            stripped = _FILLER.sub("", clause, count=1)
            if stripped == clause:
                break
            clause = stripped
        if clause:
            clauses.append(clause)
    return clauses


def _split(text: str) -> list[str]:
    """``_CLAUSE_SPLIT.split(text)``, trying the pattern only where a match can start.

    ``re`` tests a pattern that starts with a character class at every position (about
    20 ns a character, some 70 us for a 700-character message). A match starts at a
    mark (``.!?;`` or a newline) or where whitespace, or a comma and whitespace, comes
    before "and"/"but" and then "i" or "my"; ASCII text finds those with ``str.find``
    (lowercasing keeps its positions) and matches there, in order, as ``split`` would.
    """
    if not text.isascii():
        return _CLAUSE_SPLIT.split(text)
    starts = [at for mark in _MARKS for at in _positions(text, mark)]
    lower = text.lower()
    for word in ("and", "but"):
        for at in _positions(lower, word):
            after = at + 3
            while after < len(lower) and lower[after].isspace():
                after += 1
            if at == 0 or after == at + 3 or lower[after : after + 1] not in ("i", "m"):
                continue  # not "<space>and<space>i..." or "...my": no separator here
            start = at
            while start > 0 and text[start - 1].isspace():
                start -= 1
            if start < at:  # a match may start anywhere in the run (after a mark's match)
                comma = start > 0 and text[start - 1] == ","
                starts += range(start - 1 if comma else start, at)
    pieces: list[str] = []
    begin = 0
    for at in sorted(starts):
        found = _CLAUSE_SPLIT.match(text, at) if at >= begin else None
        if found is not None:
            pieces.append(text[begin:at])
            begin = found.end()
    pieces.append(text[begin:])
    return pieces


_MARKS = ".!?;\n"


def _positions(text: str, needle: str) -> list[int]:
    found = []
    at = text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _match(clause: str, peer: str) -> Fact | None:
    if clause[0] not in _RULE_INITIALS:
        return None
    name = _NAME.match(clause)
    if name:
        return _fact("identity", "{p}'s name is {x}", peer, name.group("x"), None)
    for kind, pattern, template in _RULES:
        found = pattern.match(clause)
        if found is None:
            continue
        groups = found.groupdict()
        obj = _clean_object(groups["x"])
        if not obj or (kind == "identity" and obj.split()[0].lower() in _VAGUE_NOUNS):
            return None
        return _fact(kind, template, peer, obj, groups.get("v"))
    return None


def _fact(kind: FactKind, template: str, peer: str, obj: str, verb: str | None) -> Fact:
    if verb is not None and template.startswith("{p} {v}"):
        verb = _third_person(verb.lower())
    content = template.format(p=peer, x=obj, v=(verb or "").lower())
    predicate = content[len(peer) :].removeprefix("'s").lstrip()
    return Fact(kind=kind, content=content, predicate=predicate)


def _clean_object(raw: str) -> str:
    words = raw.strip(" \t\"'()[],:-").split()[:MAX_OBJECT_WORDS]
    text = " ".join(words).rstrip(",:-\"')(")
    return _PRONOUN_WORD.sub(lambda m: _PRONOUNS[m.group(0).lower()], text)


def _third_person(verb: str) -> str:
    return verb + "s"


def _reading(pattern: str, template: str) -> re.Pattern[str]:
    """A pattern matching what ``template`` writes after the peer's name.

    ``{v}`` matches the verbs the rule's pattern captures (turned third person where the
    template does that), ``{x}`` any object.
    """
    verbs = _VERB_GROUP.search(pattern)
    verb = verbs["alternatives"] if verbs else ""
    if template.startswith("{p} {v}"):
        verb = "|".join(_third_person(word) for word in verb.split("|"))
    rest = re.escape(template.removeprefix("{p}"))
    rest = rest.replace(re.escape("{v}"), f"(?:{verb})").replace(re.escape("{x}"), "(?P<x>.+)")
    return re.compile(rest + "$")


_READINGS = [(kind, _reading(pattern, template)) for kind, pattern, template in _RULE_SPECS]
