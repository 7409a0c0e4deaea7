"""The store: its shared read-only empty metadata and its change listeners."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.state import NO_METADATA, Key, Row, Store


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
