"""The ``token_count`` approximation of tiktoken's o200k_base."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho.text import _PRETOKEN, token_count


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("Hello world", 2),
        ("Hello, world!", 4),
        ("The quick brown fox jumps over the lazy dog.", 10),
        ("12345", 2),
    ],
)
def test_token_count_matches_o200k_on_plain_text(text: str, tokens: int) -> None:
    assert token_count(text) == tokens


def test_token_count_grows_with_long_words_and_length() -> None:
    assert token_count("antidisestablishmentarianism") > 1
    assert token_count(" ".join(["word"] * 200)) == 200


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_fast_path_counts_like_the_unicode_rules(text: str) -> None:
    """ASCII text takes a faster pattern; it must count exactly as the general one does."""
    assert token_count(text) == len(_PRETOKEN.findall(text))


@pytest.mark.parametrize(
    ("word", "tokens"), [("abcdefgh", 1), ("abcdefghi", 2), ("a" * 16, 2), ("a" * 17, 3)]
)
def test_long_letter_runs_cost_a_token_per_started_eight_letters(word: str, tokens: int) -> None:
    assert token_count(word) == tokens
    assert token_count(f"say {word}") == tokens + 1
