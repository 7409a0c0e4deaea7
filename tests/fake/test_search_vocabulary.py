"""The vocabulary's runs find exactly the messages holding them, aliases or not."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho.search import SearchIndex
from fake_honcho.search.chars import pg_lower
from fake_honcho.search.vocabulary import Vocabulary
from fake_honcho.store.state import Store

from .test_search import put_message

# Words whose lexemes collide ("cat"/"cats"), stop words, parts of other tokens
# ("ka-ri", "ka2"), digits and case: each may make or break a run's alias.
WORDS = ["cat", "cats", "Cat", "the", "ka", "ka-ri", "ka2", "ri", "42", "café", "dog", "dogs"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join), max_size=14),
    st.integers(min_value=0, max_value=14),
)
def test_each_run_holds_exactly_the_messages_it_occurs_in(contents: list[str], split: int) -> None:
    store = Store()
    index = SearchIndex(store)
    for seq, content in enumerate(contents[:split], start=1):
        put_message(store, seq, content)
    index.search("ws", "x", where=None, limit=1)  # indexes in two steps
    for seq, content in enumerate(contents[split:], start=split + 1):
        put_message(store, seq, content)
    index.search("ws", "x", where=None, limit=1)
    expected: dict[str, set[int]] = {}
    for seq, content in enumerate(contents, start=1):
        for run in re.findall(r"[^\W_]+", pg_lower(content)):
            expected.setdefault(run, set()).add(seq)
    if not expected:
        return
    held = index.workspaces["ws"].vocabulary.runs
    assert {run: set(seqs) for run, seqs in held.items()} == expected


@settings(max_examples=300, deadline=None)
@given(
    runs=st.lists(st.text(alphabet="abé", min_size=1, max_size=9), max_size=40),
    piece=st.text(alphabet="abé", min_size=1, max_size=6),
    starts=st.booleans(),
    ends=st.booleans(),
)
def test_the_runs_fitting_a_piece_are_those_a_scan_finds(
    runs: list[str], piece: str, starts: bool, ends: bool
) -> None:
    """By bisection (starting, ending), by the rarest slice (containing), or exact."""
    vocabulary = Vocabulary()
    for seq, run in enumerate(dict.fromkeys(runs), start=1):
        vocabulary.add(seq, [run], {})
    expected = [
        run
        for run in dict.fromkeys(runs)
        if (
            run == piece
            if starts and ends
            else run.startswith(piece)
            if starts
            else run.endswith(piece)
            if ends
            else piece in run
        )
    ]
    assert sorted(vocabulary.fitting(piece, starts, ends)) == sorted(expected)
    assert sorted(vocabulary.fitting(piece, starts, ends)) == sorted(expected)  # cached
