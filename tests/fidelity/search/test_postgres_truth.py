"""The fake's text search against PostgreSQL 15's own answers (recorded in postgres.json).

``record_postgres.py`` recorded them from the real Honcho's database: the default
parser's tokens, ``to_tsvector``, the ``@@`` match, ``ts_rank`` (compared exactly: ranks
are float32 and their ties decide the order), ``english_stem`` and the order
``ORDER BY ... LIMIT`` leaves equal keys in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fake_honcho.search.english import plainto_tsquery, to_tsvector
from fake_honcho.search.parser import parse, tokens
from fake_honcho.search.pgsort import top
from fake_honcho.search.rank import rank

TRUTH: dict[str, list[Any]] = json.loads(
    Path(__file__).with_name("postgres.json").read_text(encoding="utf-8")
)


def test_the_recording_covers_every_part() -> None:
    assert {name: len(entries) >= 200 for name, entries in TRUTH.items()} == {
        "parse": True,
        "rank": True,
        "stem": True,
        "sort": True,
    }


@pytest.mark.parametrize("chunk", range(0, len(TRUTH["parse"]), 100))
def test_tokens_are_the_default_parsers(chunk: int) -> None:
    for text, expected in TRUTH["parse"][chunk : chunk + 100]:
        wanted = [tuple(pair) for pair in expected]
        assert [token for token in parse(text) if token[0] != "blank"] == wanted, text
        assert tokens(text) == wanted, text  # the chunked fast path agrees


@pytest.mark.parametrize("chunk", range(0, len(TRUTH["rank"]), 100))
def test_tsvector_match_and_rank_are_postgres_exactly(chunk: int) -> None:
    for doc, query, vector, score, matched in TRUTH["rank"][chunk : chunk + 100]:
        mine = to_tsvector(doc)
        assert mine == vector, doc
        wanted = plainto_tsquery(query)
        assert (bool(wanted) and all(lexeme in mine for lexeme in wanted)) is matched
        positions = {lexeme: mine.get(lexeme, []) for lexeme in wanted}
        assert (rank(positions, wanted) if mine else 0.0) == score, (doc, query)


def test_stems_are_snowball_2_2_as_in_postgres_15() -> None:
    wrong = [
        (word, stem, plainto_tsquery(word))
        for word, stem in TRUTH["stem"]
        if plainto_tsquery(word) != ((stem,) if stem else ())
    ]
    assert wrong == []


def test_ties_come_back_in_the_order_postgres_sort_leaves_them() -> None:
    for rows, limit, expected in TRUTH["sort"]:
        keys = [(-a, -b) for a, b in rows]
        assert top(keys, limit) == expected, (rows, limit)
