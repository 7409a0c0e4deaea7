"""The journal middleware: what it reads, replays, and records, and when."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_honcho.harness.journal import BODY_SCOPE_KEY, Journal, JournalMiddleware

Message = dict[str, Any]


def _drive(chunks: list[Message], journal: Journal) -> tuple[list[Message], list[int], Any]:
    """Run one request whose client sends ``chunks``; returns what the app received,
    the journal's length as each response message left, and the app's scope body."""
    seen: list[Message] = []
    lengths: list[int] = []
    scope: dict[str, Any] = {"type": "http", "method": "POST", "path": "/p", "query_string": b"q=1"}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(await receive())
        seen.append(await receive())  # past the body: what the client does next
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b"a", "more_body": True})
        await send({"type": "http.response.body", "body": b"b"})

    incoming = iter([*chunks, {"type": "http.disconnect"}])

    async def receive() -> Message:
        return next(incoming)

    async def send(message: Message) -> None:
        lengths.append(len(journal))

    asyncio.run(JournalMiddleware(app, journal)(scope, receive, send))
    return seen, lengths, scope.get(BODY_SCOPE_KEY)


def test_a_body_in_chunks_is_replayed_whole_and_journaled_before_the_last_chunk() -> None:
    journal = Journal()
    chunks = [
        {"type": "http.request", "body": b'{"a":', "more_body": True},
        {"type": "http.request", "body": b"1}", "more_body": False},
    ]
    seen, lengths, body = _drive(chunks, journal)
    assert seen == [
        {"type": "http.request", "body": b'{"a":1}', "more_body": False},
        {"type": "http.disconnect"},
    ]
    assert body == b'{"a":1}'
    assert lengths == [0, 0, 1]  # recorded as the last chunk leaves, and only once
    [entry] = journal
    assert (entry.method, entry.path, entry.query_string, entry.status) == (
        "POST",
        "/p",
        "q=1",
        201,
    )
    assert entry.body == b'{"a":1}'


def test_a_client_gone_before_its_body_ended_is_journaled_with_what_arrived() -> None:
    journal = Journal()
    seen, _lengths, body = _drive(
        [{"type": "http.request", "body": b"part", "more_body": True}], journal
    )
    assert seen == [{"type": "http.disconnect"}, {"type": "http.disconnect"}]
    assert body is None
    assert [entry.body for entry in journal] == [b"part"]
