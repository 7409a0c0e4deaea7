"""``token_count`` against counts a real Honcho 3.0.12 gave (``tokens_real.json``).

The reference is the server's own tiktoken, recorded by ``tokens_record.py``; the fake
counts with tiktoken too, but with the vocabulary it ships (``fake_honcho/store/vocabulary/``,
rebuilt by ``tokens_vocabulary.py``), so these tests hold one against the other.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho
from fake_honcho.store.tokens import (
    ENCODING,
    VOCABULARY,
    load,
    special_token_error,
    token_count,
)
from fake_honcho.store.word_counts import WORD_LENGTH, WORD_LIMIT, WordCounts, by_words

from .tokens_vocabulary import ranks_from_js_tiktoken, tiktoken_definition

RECORDED: list[dict[str, Any]] = json.loads(
    Path(__file__).with_name("tokens_real.json").read_text(encoding="utf-8")
)
COUNTED = [entry for entry in RECORDED if "token_count" in entry]
REFUSED = [entry for entry in RECORDED if "status" in entry]


def test_the_recording_is_varied() -> None:
    texts = [entry["content"] for entry in COUNTED]
    assert "" in texts and any(len(text) >= 25000 for text in texts)
    assert any("\u4e00" <= char <= "\u9fff" for text in texts for char in text)  # CJK
    assert any(ord(char) >= 0x1F600 for text in texts for char in text)  # emoji
    assert len(REFUSED) >= 2


def test_counts_equal_the_real_servers() -> None:
    wrong = [
        (
            entry["content"][:40],
            token_count(entry["content"].replace("\x00", "")),
            entry["token_count"],
        )
        for entry in COUNTED
        if token_count(entry["content"].replace("\x00", "")) != entry["token_count"]
    ]
    assert not wrong, f"{len(wrong)} of {len(COUNTED)} differ, e.g. {wrong[:3]}"


def test_stored_messages_carry_the_real_count() -> None:
    with (
        FakeHoncho(seed=1) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        path = "/v3/workspaces/w/sessions/s/messages"
        for start in range(0, len(COUNTED), 100):
            chunk = COUNTED[start : start + 100]
            items = [{"peer_id": "p1", "content": entry["content"]} for entry in chunk]
            answer = client.post(path, json={"messages": items})
            assert answer.status_code == 201, answer.text
            assert [row["token_count"] for row in answer.json()] == [
                entry["token_count"] for entry in chunk
            ]


@pytest.mark.parametrize("entry", REFUSED, ids=lambda entry: repr(entry["content"][:30]))
def test_special_tokens_are_refused_as_the_real_server_does(entry: dict[str, Any]) -> None:
    with (
        FakeHoncho(seed=1) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        item = {"peer_id": "p1", "content": entry["content"]}
        answer = client.post("/v3/workspaces/w/sessions/s/messages", json={"messages": [item]})
    assert (answer.status_code, answer.json()["detail"]) == (entry["status"], entry["detail"])


def test_lone_surrogates_count_as_replacement_characters() -> None:
    assert token_count("a\ud800b") == token_count("a\ufffdb")


def test_only_whole_special_tokens_are_refused() -> None:
    assert special_token_error("<|endoftext") is None
    assert special_token_error("x <|endofprompt|> <|endoftext|>") is not None
    assert "'<|endofprompt|>'" in (special_token_error("x <|endofprompt|> <|endoftext|>") or "")


def test_the_shipped_vocabulary_is_tiktokens_own() -> None:
    """The rank file has the sha256 the installed tiktoken expects of o200k_base, and the
    split pattern and special tokens are the ones it declares."""
    expected = tiktoken_definition()
    shipped = json.loads((VOCABULARY / f"{ENCODING}.json").read_text(encoding="utf-8"))
    assert {key: shipped[key] for key in expected} == expected
    ranks = (VOCABULARY / f"{ENCODING}.tiktoken").read_bytes()
    assert hashlib.sha256(ranks).hexdigest() == expected["sha256"]


def test_js_tiktoken_rows_become_tiktoken_rank_lines() -> None:
    """js-tiktoken's rows are ``<tag> <first rank> <token> <token> ...``."""
    a, b, c = (base64.b64encode(token).decode() for token in (b"a", b"b", b" the"))
    rows = f"! 0 {a} {b}\\n! 7 {c}"  # a JSON string: its rows split by an escaped newline
    module = 'module.exports = {"bpe_ranks": "' + rows + '"};'
    assert ranks_from_js_tiktoken(module) == f"{a} 0\n{b} 1\n{c} 7\n".encode()


def _tiktoken_count(text: str) -> int:
    """tiktoken's own count of the whole text (lone surrogates read as U+FFFD)."""
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return len(load().encode_ordinary(text))


_PIECES = st.sampled_from(
    [" ", "  ", "\n", "\t", "\r\n", "\u00a0", "\u3000", "\u200b", "a", "Z", "é", "ß", "Ж",
     "中文", "😀", "\u0301", "'s", "'LL", "'", "7", "123456", "١٢", ".", ",", "!?", "/", "-",
     "<|endoftext|>", "word", "Word", "WORD", "wörd", "x" * 70]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
@example("a\t \tb")
@example("a\n \nb")
@example("a\r \rb")
@example("a\x0b \x0bb")
@example("a\x0c \x0cb")
@example("a\u3000 \u3000b")
@example("a  b")
def test_counting_by_word_is_tiktokens_whole_count(text: str) -> None:
    """A text of single-spaced words is counted word by word (remembered counts); any
    text, whatever its spacing, counts as tiktoken counts it whole."""
    assert token_count(text) == _tiktoken_count(text)


def test_word_counting_matches_tiktoken_on_chat_text() -> None:
    from bench.corpus import conversation

    texts = [entry["content"].replace("\x00", "") for entry in COUNTED] + list(conversation(3000))
    assert all(by_words(text) for text in texts[-100:])  # the corpus takes the word path
    assert [token_count(text) for text in texts] == [_tiktoken_count(text) for text in texts]


def test_remembered_words_are_bounded_and_recent() -> None:
    counted: list[str] = []

    def count(text: str) -> int:
        counted.append(text)
        return _tiktoken_count(text)

    counts = WordCounts(count)
    words = [f"w{number}" for number in range(2 * WORD_LIMIT + 500)]
    text = " ".join(words)
    assert counts(text) == _tiktoken_count(text)
    counts("y" * (WORD_LENGTH + 1) + " " + "z" * (WORD_LENGTH + 1))
    table = counts._spaced
    assert len(table) == 500 and len(table.older) == WORD_LIMIT  # two generations at most
    assert "z" * (WORD_LENGTH + 1) not in table
    counted.clear()
    recent = " ".join(words[-WORD_LIMIT:])  # the older generation's words move back
    assert counts(recent) == _tiktoken_count(recent)
    assert counted == [words[-WORD_LIMIT]]  # only the first word's unspaced count is new
