"""The render memo: message JSON sent again from memory, never stale, always bounded."""

from __future__ import annotations

import threading

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.http.render_memo import MEMO_FLOOR, MEMO_SHARE, RenderMemo, render_memo
from fake_honcho.http.wire import PublicRows, dumps
from fake_honcho.store.state import Store

S = "/v3/workspaces/ws/sessions"


def write(client: httpx.Client, session: str, *contents: str) -> list[str]:
    messages = [{"peer_id": "alice", "content": content} for content in contents]
    response = client.post(f"{S}/{session}/messages", json={"messages": messages})
    assert response.status_code == 201, response.text
    return [message["id"] for message in response.json()]


def listed(client: httpx.Client, session: str) -> httpx.Response:
    response = client.post(f"{S}/{session}/messages/list")
    assert response.status_code == 200, response.text
    return response


def test_written_messages_are_listed_from_the_memo_byte_for_byte(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    write(client, "s", "first", 'a "quoted"\nline')
    memo = render_memo(fake.store)
    assert len(memo) == 2  # kept by the write's own response
    first = listed(client, "s").content
    memo.clear()
    assert listed(client, "s").content == first  # rendered afresh: the same bytes
    assert len(memo) == 2


def test_an_updated_message_is_never_sent_stale(client: httpx.Client, fake: FakeHoncho) -> None:
    (mid,) = write(client, "s", "hello")
    listed(client, "s")
    response = client.put(f"{S}/s/messages/{mid}", json={"metadata": {"edited": True}})
    assert response.status_code == 200, response.text
    (item,) = listed(client, "s").json()["items"]
    assert item["metadata"] == {"edited": True}


def test_deleted_messages_leave_the_memo(client: httpx.Client, fake: FakeHoncho) -> None:
    write(client, "gone", "one", "two")
    write(client, "kept", "three")
    assert client.delete(f"{S}/gone").status_code == 202
    assert len(render_memo(fake.store)) == 1


def test_search_results_come_from_the_memo_too(client: httpx.Client, fake: FakeHoncho) -> None:
    write(client, "s", "green tea")
    render_memo(fake.store).clear()
    response = client.post("/v3/workspaces/ws/search", json={"query": "tea"})
    assert [m["content"] for m in response.json()] == ["green tea"]
    assert len(render_memo(fake.store)) == 1


def row(mid: str, content: str) -> dict[str, object]:
    return {
        "id": mid,
        "content": content,
        "peer_id": "p",
        "session_id": "s",
        "workspace_id": "w",
        "metadata": {},
        "created_at": "2026-01-01T00:00:00Z",
        "token_count": 1,
    }


def test_only_the_row_object_rendered_is_served() -> None:
    """A copy of a row (or a row put in its place) is rendered, never served stale JSON."""
    memo = RenderMemo(Store())
    original = row("m1", "before")
    dumps(PublicRows([original], memo=memo))
    assert memo.rendered([original]) != [None]
    changed = {**original, "content": "after"}
    assert memo.rendered([changed]) == [None]
    assert b'"after"' in dumps(PublicRows([changed], memo=memo))


def test_a_late_reader_of_a_replaced_row_cannot_make_the_memo_stale() -> None:
    """A reader that fetched a row before it was replaced renders it after the change."""
    store = Store()
    memo = render_memo(store)
    old = row("m1", "before")
    store.put("messages", "m1", old)
    new = {**old, "content": "after"}
    store.put("messages", "m1", new)  # the memo forgets m1 ...
    dumps(PublicRows([old], memo=memo))  # ... and the late reader keeps the old JSON again
    assert b'"after"' in dumps(PublicRows([new], memo=memo))


def test_the_memo_stays_within_its_limit_dropping_the_oldest_first() -> None:
    memo = RenderMemo(Store())
    rows = [row(f"m{i}", "x" * 100) for i in range(10)]
    one = len(dumps(PublicRows(rows[:1]))) - 2  # without the surrounding brackets
    memo.limit = 3 * one
    dumps(PublicRows(rows, memo=memo))
    assert memo.size == 3 * one
    assert [kept is not None for kept in memo.rendered(rows)] == [False] * 7 + [True] * 3


@pytest.mark.parametrize("limit", [0, 1])
def test_a_limit_below_one_message_keeps_nothing_and_renders_the_same(limit: int) -> None:
    memo = RenderMemo(Store())
    memo.limit = limit
    rows = [row("m1", "hello"), row("m2", "there")]
    assert dumps(PublicRows(rows, memo=memo)) == dumps(PublicRows(rows))
    assert len(memo) == 0 and memo.size == 0


def test_readers_racing_an_editor_never_see_an_edit_undone(fake: FakeHoncho) -> None:
    """Rendering happens outside the store lock, while the editor replaces the row."""
    render_memo(fake.store).limit = 600  # about two messages: eviction races too
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        ids = write(client, "s", "a", "b", "c", "d")
    edits = 150
    seen: list[list[int]] = [[], []]

    def edit() -> None:
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
            for number in range(1, edits + 1):
                for mid in ids:
                    client.put(f"{S}/s/messages/{mid}", json={"metadata": {"n": number}})

    def read(into: list[int]) -> None:
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
            while not into or into[-1] < edits:
                items = listed(client, "s").json()["items"]
                into.append(min(item["metadata"].get("n", 0) for item in items))

    threads = [threading.Thread(target=edit)]
    threads += [threading.Thread(target=read, args=(into,)) for into in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for into in seen:
        assert into == sorted(into) and into[-1] == edits


def test_the_memo_keeps_at_most_a_share_of_the_stored_content() -> None:
    store = Store()
    memo = RenderMemo(store)
    text = "x" * 1_000
    rows = [row(f"m{i}", text) for i in range(2_000)]
    for each in rows:
        store.put("messages", each["id"], each)
    assert memo.bound == MEMO_SHARE * 2_000_000
    dumps(PublicRows(rows, memo=memo))
    assert 0 < memo.size <= memo.bound
    for each in rows[:1_500]:
        store.delete("messages", each["id"])
    assert memo.bound == MEMO_FLOOR  # however little is left
    assert RenderMemo(store).bound == MEMO_FLOOR  # a memo built later counts the rows there
