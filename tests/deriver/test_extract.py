"""The rule-based extraction of explicit facts from first-person statements."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.corpus import conversation
from fake_honcho.deriver.extract import _CLAUSE_SPLIT, _split, extract_facts, fact_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I prefer green tea.", [("preference", "alice prefers green tea")]),
        ("I really love hiking", [("preference", "alice loves hiking")]),
        ("My favorite color is blue", [("preference", "alice's favorite color is blue")]),
        ("My name is Alice Smith", [("identity", "alice's name is Alice Smith")]),
        ("Hi, I'm Alice!", [("identity", "alice's name is Alice")]),
        ("I'm a software engineer", [("identity", "alice is a software engineer")]),
        ("I am 31 years old", [("identity", "alice is 31 years old")]),
        ("I live in Paris", [("location", "alice lives in Paris")]),
        ("I'm from Lagos", [("location", "alice is from Lagos")]),
        ("I work as a nurse at St. Mary's", [("work", "alice works as a nurse at St. Mary's")]),
        ("I'm planning to visit my sister", [("plan", "alice plans to visit their sister")]),
        ("I want to learn Rust", [("plan", "alice wants to learn Rust")]),
        ("I don't like cilantro", [("dislike", "alice dislikes cilantro")]),
        ("I hate Mondays", [("dislike", "alice hates Mondays")]),
        ("I can't stand loud music", [("dislike", "alice can't stand loud music")]),
        ("The weather is nice today.", []),
        ("I'm a bit tired", []),
        ("Do you like tea?", []),
    ],
)
def test_patterns(text: str, expected: list[tuple[str, str]]) -> None:
    facts = extract_facts(text, "alice")
    assert [(fact.kind, fact.content) for fact in facts] == expected
    # Dreams classify a conclusion from its text alone: the same fact comes back.
    assert [fact_of(fact.content, "alice") for fact in facts] == facts


@pytest.mark.parametrize(
    "content", ["Alice prefers tea", "alice collects stamps", "bob prefers tea", "alice is"]
)
def test_text_the_rules_do_not_write_is_no_fact(content: str) -> None:
    assert fact_of(content, "alice") is None


def test_several_clauses_in_order_without_repeats() -> None:
    text = "I like tea and I live in Oslo. Also, I LIKE  tea; my job is teaching"
    assert [fact.content for fact in extract_facts(text, "bo")] == [
        "bo likes tea",
        "bo lives in Oslo",
        "bo's job is teaching",
    ]


def test_predicate_drops_the_subject() -> None:
    facts = extract_facts("My name is Ada. I prefer tea", "ada")
    assert [fact.predicate for fact in facts] == ["name is Ada", "prefers tea"]


def test_long_objects_are_cut_to_twelve_words() -> None:
    (fact,) = extract_facts("I like " + " ".join(f"w{n}" for n in range(20)), "x")
    assert fact.content == "x likes " + " ".join(f"w{n}" for n in range(12))


def test_sentences_end_at_marks_not_after_abbreviations() -> None:
    text = "I saw Dr. Who!? I live in St. Ives... Call me Al.I like tea; I hate Mr. Ed!!"
    assert [fact.content for fact in extract_facts(text, "al")] == [
        "al lives in St. Ives",
        "al goes by Al.they like tea",  # no space after the mark: not a sentence end
        "al hates Mr. Ed",
    ]


def test_a_dotted_or_dotless_i_starts_a_clause_like_i() -> None:
    # re.IGNORECASE equates both with "i", so the quick first-letter check must too.
    assert [fact.content for fact in extract_facts("\u0130 like tea", "x")] == ["x likes tea"]
    assert [fact.content for fact in extract_facts("\u0131 like tea", "x")] == ["x likes tea"]


# Pieces that meet the splitter's edge cases: marks after abbreviations, runs of marks,
# "and"/"but" inside words, before "i"/"my" or not, after a comma, across odd whitespace.
SPLIT_PIECES = [
    "I",
    "i",
    "my",
    "My",
    "mine",
    "I'm",
    "and",
    "And",
    "AND",
    "band",
    "but",
    "But",
    "st.",
    "Dr.",
    "mrs.",
    "Jr!",
    "Ms",
    ".",
    "..",
    "?!",
    "!",
    ";",
    "\n",
    ",",
    ",,",
    " ",
    "  ",
    "\t",
    "\x0b",
    "\x1c",
    "x",
    "is",
    "e.g.",
    "a.b",
    "my.",
    "i,",
    "café",
    "\u2028",
]


@settings(max_examples=2000)
@given(st.lists(st.tuples(st.sampled_from(SPLIT_PIECES), st.sampled_from(["", " ", "  "]))))
def test_clauses_split_where_the_pattern_splits(parts: list[tuple[str, str]]) -> None:
    text = "".join(piece + space for piece, space in parts)
    assert _split(text) == _CLAUSE_SPLIT.split(text)


@pytest.mark.parametrize(
    "text",
    [
        "x.\n but I'm here",  # a mark's match ends inside the whitespace before "but"
        "x;  and my day",
        "ok,\tBUT i said",
        "Dr. and I left. St. but my car",
        "band I and mine but myself",
    ],
)
def test_clauses_split_where_the_pattern_splits_at_edges(text: str) -> None:
    assert _split(text) == _CLAUSE_SPLIT.split(text)


def test_clauses_of_long_messages_split_where_the_pattern_splits() -> None:
    for text in conversation(300):
        assert _split(text) == _CLAUSE_SPLIT.split(text)
