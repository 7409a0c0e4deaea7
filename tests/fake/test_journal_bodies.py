"""The journal keeps every body byte for byte, however it stores it."""

from __future__ import annotations

import json
import sys
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.harness.journal import JournalEntry

PATH = "/v3/workspaces/w/sessions/s/messages"
LONG = "I prefer green tea in the morning and coffee after lunch, most days. " * 6


def _batch(*contents: str) -> dict[str, Any]:
    return {"messages": [{"peer_id": "alice", "content": text} for text in contents]}


@pytest.mark.parametrize(
    "raw",
    [
        # as httpx and the SDK send it: compact, UTF-8, only JSON's own escapes
        json.dumps(
            _batch(LONG, 'quote " and \\ and\nnewline ' + LONG, "naïve café 日本 " + LONG, "short"),
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode(),
        # as json.dumps sends it by default: \\u escapes and spaces
        json.dumps(_batch(LONG, "naïve café 日本 " + LONG) | {"extra": LONG}).encode(),
        # the same long text twice, and as a metadata key
        json.dumps(
            {"messages": [{"peer_id": "a", "content": LONG, "metadata": {LONG: LONG}}] * 2},
            ensure_ascii=False,
        ).encode(),
    ],
    ids=["sdk", "ascii-escaped", "repeated"],
)
def test_message_bodies_are_journaled_byte_for_byte(fake: FakeHoncho, raw: bytes) -> None:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        response = client.post(PATH, content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 201, response.text
    entry = fake.requests[-1]
    assert entry.body == raw
    assert entry.json == json.loads(raw)


def test_stored_content_is_not_held_twice(fake: FakeHoncho) -> None:
    """The journal refers to the stored content instead of keeping a second copy."""
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        client.post(PATH, json=_batch(LONG * 3 + "one", LONG * 3 + "two"))
    rows = sorted(fake.store.rows("messages"), key=lambda row: row["_seq"])
    kept = [piece for piece in fake.requests[-1]._packed if isinstance(piece, str)]
    assert [id(text) for text in kept] == [id(row["content"]) for row in rows]


def test_large_bodies_without_decoded_strings_are_still_kept_exactly(
    fake: FakeHoncho,
) -> None:
    raw = b"{not json " + b"x" * 5000
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        client.post(PATH, content=raw, headers={"content-type": "application/json"})
    assert fake.requests[-1].body == raw


def test_a_lone_surrogate_in_a_long_string_is_kept_exactly() -> None:
    """``"\\ud800..."`` decodes to a string with no UTF-8 form: it stays in the bytes."""
    raw = json.dumps({"content": LONG * 2, "metadata": {"note": "\ud800" + LONG}}).encode()
    entry = JournalEntry("POST", PATH, "", raw, 201, decoded=json.loads(raw))
    assert entry.body == raw


def test_the_bytes_between_strings_are_kept_once_per_body(fake: FakeHoncho) -> None:
    """A batch's messages repeat the same keys between their contents."""
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        client.post(PATH, json=_batch(*(f"{i} {LONG}" for i in range(6))))
    pieces = fake.requests[-1]._packed
    between = [piece for piece in pieces[1:-1] if isinstance(piece, bytes)]
    assert len(between) == 5
    assert len({id(piece) for piece in between}) == 1


def test_a_body_nested_deeper_than_the_recursion_limit_is_kept_exactly() -> None:
    depth = sys.getrecursionlimit() + 100
    raw = b"[" * depth + json.dumps(LONG * 3).encode() + b"]" * depth
    decoded: Any = LONG * 3
    for _ in range(depth):
        decoded = [decoded]
    assert JournalEntry("POST", PATH, "", raw, 201, decoded=decoded).body == raw


def test_one_message_bodies_keep_their_content_by_reference(fake: FakeHoncho) -> None:
    """Agents often write a message per request: the journal must not hold it twice."""
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        sent = [
            client.post(PATH, json=_batch(text)).request.content
            for text in ("first " + LONG[:200], "second " + LONG[:200])
        ]
    first, second = fake.requests[-2:]
    assert [first.body, second.body] == sent
    rows = sorted(fake.store.rows("messages"), key=lambda row: row["_seq"])
    assert [id(first._packed[1]), id(second._packed[1])] == [id(row["content"]) for row in rows]
    assert first._packed[0] is second._packed[0]  # the same framing, one object
