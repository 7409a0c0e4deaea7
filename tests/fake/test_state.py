"""The store: its shared read-only empty metadata and its change listeners."""

from __future__ import annotations

import json
import math
import random
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.store.ids import _BYTE_TO_SYMBOL, IdFactory
from fake_honcho.store.jsonb import Unstorable
from fake_honcho.store.state import (
    MESSAGE_KEYS,
    NO_METADATA,
    Key,
    Row,
    Store,
    compact_message,
    message_row,
)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.__setitem__("k", 1),
        lambda d: d.update(k=1),
        lambda d: d.setdefault("k", 1),
        lambda d: d.pop("k", None),
        lambda d: d.clear(),
    ],
)
def test_shared_empty_metadata_refuses_changes(change: Callable[[dict[str, Any]], object]) -> None:
    with pytest.raises(TypeError, match="read-only"):
        change(NO_METADATA)
    assert NO_METADATA == {} and json.dumps(NO_METADATA) == "{}"


def test_messages_without_metadata_can_still_be_given_metadata(fake: FakeHoncho) -> None:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        path = "/v3/workspaces/w/sessions/s/messages"
        created = client.post(path, json={"messages": [{"peer_id": "a", "content": "x"}] * 2})
        first, second = (message["id"] for message in created.json())
        updated = client.put(f"{path}/{first}", json={"metadata": {"k": 1}})
        assert updated.json()["metadata"] == {"k": 1}
        listed = client.post(f"{path}/list").json()["items"]
        assert [m["metadata"] for m in listed] == [{"k": 1}, {}]
        assert client.get(f"{path}/{second}").json()["metadata"] == {}


def test_listeners_hear_only_the_collections_they_asked_for() -> None:
    store = Store()
    heard: list[tuple[str, str]] = []

    def everything(collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        heard.append(("all", collection))

    def messages_only(collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        heard.append(("messages", collection))

    store.subscribe(everything)
    store.put("peers", "p", {})  # notified before the second listener exists ...
    store.subscribe(messages_only, collections=["messages"])
    store.put("peers", "p", {})  # ... and after: the filter is worked out afresh
    store.put("messages", "m", {})
    store.unsubscribe(everything)
    store.delete("messages", "m")
    assert heard == [
        ("all", "peers"),
        ("all", "peers"),
        ("all", "messages"),
        ("messages", "messages"),
        ("messages", "messages"),
    ]


def test_put_many_is_a_loop_of_puts_taken_lazily() -> None:
    """Listeners, the undo log and a refused row midway come out as with one put per row,
    and each row is built only after the one before it was written."""

    def write(many: bool) -> tuple[list[object], list[str]]:
        store = Store()
        heard: list[object] = []
        store.subscribe(lambda c, k, old, new: heard.append((c, k, old, new)))
        store.put("messages", "m1", {"id": "m1", "metadata": {}})
        built: list[str] = []

        def rows() -> Iterator[tuple[Key, Row]]:
            for key, metadata in (
                ("m1", {"a": 1}),
                ("m2", {}),
                ("m3", {"x": math.nan}),
                ("m4", {}),
            ):
                built.append(f"{key} after {store.count('messages')}")
                yield key, {"id": key, "metadata": metadata}

        with pytest.raises(Unstorable), store.transaction():
            store.commit()
            if many:
                store.put_many("messages", rows())
            else:
                for key, row in rows():
                    store.put("messages", key, row)
        heard.append(sorted(map(str, store.items("messages"))))
        return heard, built

    assert write(many=True) == write(many=False)
    heard, built = write(many=True)
    assert built == ["m1 after 1", "m2 after 1", "m3 after 2"]  # m4 never built
    assert heard[-1] == ["('m1', {'id': 'm1', 'metadata': {}})"]  # rolled back to the commit


def test_a_refused_first_row_makes_no_collection() -> None:
    """A state file lists collections in the order their first row was written."""
    store = Store()
    with pytest.raises(Unstorable):
        store.put("messages", "m1", {"id": "m1", "metadata": {"x": math.nan}})
    store.put("peers", "p1", {"id": "p1"})
    store.put("messages", "m2", {"id": "m2", "metadata": {}})
    assert store.collections() == ["peers", "messages"]


def test_seeded_ids_are_random_bytes_of_the_seed() -> None:
    """A seed names the same ids as ``Random(seed).randbytes`` (unchanged by how they are drawn)."""
    ids, rng = IdFactory(5), random.Random(5)
    expected = [rng.randbytes(21).translate(_BYTE_TO_SYMBOL).decode() for _ in range(50)]
    assert [ids() for _ in range(50)] == expected
    assert len({IdFactory()() for _ in range(50)}) == 50


def test_a_detached_attachment_stops_listening_and_is_built_anew() -> None:
    class Counter:
        def __init__(self, store: Store) -> None:
            self.seen = store.count("messages")
            store.subscribe(self.on_change)

        def on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
            self.seen += 1

    store = Store()
    first = store.attachment(Counter)
    store.put("messages", "m1", {"id": "m1"})
    store.detach(Counter)
    store.put("messages", "m2", {"id": "m2"})
    assert first.seen == 1
    second = store.attachment(Counter)
    assert second is not first and second.seen == 2
    store.detach(Counter)
    store.detach(Counter)  # detaching what is not attached does nothing


def test_message_rows_are_plain_dicts_in_their_compact_form(fake: FakeHoncho) -> None:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        path = "/v3/workspaces/w/sessions/s/messages"
        client.post(path, json={"messages": [{"peer_id": "a", "content": "x"}] * 2})
        client.post(
            path, json={"messages": [{"peer_id": "a", "content": "y", "configuration": {}}]}
        )
    rows = list(fake.store.rows("messages"))
    for row in rows[:2]:
        assert type(row) is dict and row == dict(row)
        assert list(row)[-2:] == ["_seq", "_seq_in_session"]
    assert json.loads(json.dumps(rows[0])) == rows[0]


def test_message_rows_take_less_memory_than_dict_literals() -> None:
    """Their key table is shared, so each row holds little more than its values."""
    fields: dict[str, Any] = {
        "id": "m1",
        "content": "x",
        "peer_id": "p",
        "session_id": "s",
        "workspace_id": "w",
        "metadata": NO_METADATA,
        "created_at": "2026-01-01T00:00:00Z",
        "token_count": 1,
        "_seq": 1,
        "_seq_in_session": 1,
    }
    plain = dict(fields)

    def traced(make: Callable[[], Row]) -> int:
        tracemalloc.start()
        try:
            rows = [make() for _ in range(1_000)]
            return tracemalloc.get_traced_memory()[0] // len(rows)
        finally:
            tracemalloc.stop()

    assert message_row(*fields.values()) == plain
    assert traced(lambda: message_row(*fields.values())) < 0.75 * traced(lambda: dict(plain))


def test_a_message_row_needs_every_field() -> None:
    with pytest.raises(TypeError):
        message_row("m1", "x")


def test_a_replayed_message_row_is_compacted_with_its_extra_keys(tmp_path: Any) -> None:
    path = tmp_path / "state.ndjson"
    with FakeHoncho(state_file=path) as fake:
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
            config = {"reasoning": {"enabled": False}}
            body = {"messages": [{"peer_id": "a", "content": "x", "configuration": config}]}
            client.post("/v3/workspaces/w/sessions/s/messages", json=body)
        (before,) = fake.store.rows("messages")
    with FakeHoncho(state_file=path) as fake:
        (after,) = fake.store.rows("messages")
    assert after == before and list(after) == [*MESSAGE_KEYS, "_configuration"]
    assert compact_message(after) == after
    assert compact_message({"id": "x"}) == {"id": "x"}


def test_message_rows_share_their_counts() -> None:
    fields: dict[str, Any] = dict.fromkeys(MESSAGE_KEYS, "")
    # Built at run time: equal int literals in one function would be one object anyway.
    counts = {"token_count": int("1001"), "_seq_in_session": int("4001")}
    first = message_row(*{**fields, **counts}.values())
    counts = {"token_count": int("1001"), "_seq_in_session": int("4001")}
    second = message_row(*{**fields, **counts}.values())
    assert first["token_count"] is second["token_count"]
    assert first["_seq_in_session"] is second["_seq_in_session"]
    beyond = message_row(*{**fields, "token_count": 10**9, "_seq_in_session": -1}.values())
    assert beyond["token_count"] == 10**9 and beyond["_seq_in_session"] == -1


def test_stored_non_ascii_content_carries_no_utf8_copy(fake: FakeHoncho) -> None:
    """Validation must not leave a UTF-8 copy on the content string (CPython keeps one
    on the string once anything asks for it), so a message costs its content once."""
    content = "naïve café 日本 " * 40
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        body = {"messages": [{"peer_id": "a", "content": content}]}
        response = client.post("/v3/workspaces/w/sessions/s/messages", json=body)
        too_long = client.post(
            "/v3/workspaces/w/sessions/s/messages",
            json={"messages": [{"peer_id": "a", "content": "é" * 25_001}]},
        )
    assert response.status_code == 201
    assert too_long.status_code == 422
    assert too_long.json()["detail"][0]["type"] == "string_too_long"
    (row,) = fake.store.rows("messages")
    fresh = row["content"].encode().decode()
    assert sys.getsizeof(row["content"]) == sys.getsizeof(fresh)
