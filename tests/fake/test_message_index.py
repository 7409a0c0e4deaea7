"""The per-session message index, and a peer's messages gathered across sessions."""

from __future__ import annotations

from fake_honcho.store.message_index import LIST_UNTIL, MessageIndex
from fake_honcho.store.state import Store


def _put(store: Store, seq: int, session: str, peer: str, workspace: str = "w") -> None:
    mid = f"m{seq}"
    row = {"id": mid, "workspace_id": workspace, "session_id": session, "peer_id": peer}
    store.put("messages", mid, {**row, "_seq": seq})


def test_sessions_keep_insertion_order_and_peers_are_gathered_oldest_first() -> None:
    store = Store()
    index = MessageIndex(store)
    for seq, (session, peer) in enumerate(
        [("s1", "a"), ("s2", "a"), ("s1", "b"), ("s2", "b"), ("s1", "a")], start=1
    ):
        _put(store, seq, session, peer)
    _put(store, 6, "s1", "a", workspace="other")
    assert list(index.session_ids("w", "s1")) == ["m1", "m3", "m5"]
    assert index.peer_ids("w", "a") == ["m1", "m2", "m5"]
    assert index.peer_ids("other", "a") == ["m6"]
    assert index.next_seq() == 7


def test_deletes_in_any_order_and_a_rebuilt_index_agrees() -> None:
    store = Store()
    index = MessageIndex(store)
    for seq in range(1, 6):
        _put(store, seq, "s", "a")
    store.delete("messages", "m3")
    store.delete("messages", "m1")
    assert list(index.session_ids("w", "s")) == ["m2", "m4", "m5"]
    assert list(MessageIndex(store).session_ids("w", "s")) == ["m2", "m4", "m5"]
    for mid in ("m2", "m4", "m5"):
        store.delete("messages", mid)
    assert list(index.session_ids("w", "s")) == []
    assert index.by_workspace == {}


def test_a_long_session_keeps_its_order_across_the_switch_to_a_deque() -> None:
    """Short sessions hold a list (a deque costs ~700 B however few ids it holds)."""
    store = Store()
    index = MessageIndex(store)
    count = LIST_UNTIL + 5
    for seq in range(1, count + 1):
        _put(store, seq, "long", "a")
    _put(store, count + 1, "short", "a")
    expected = [f"m{seq}" for seq in range(1, count + 1)]
    assert list(index.session_ids("w", "long")) == expected
    assert type(index.session_ids("w", "short")) is list
    assert type(index.session_ids("w", "long")) is not list
    for seq in range(1, count + 1):  # deleted oldest first, as a session deletion does
        store.delete("messages", f"m{seq}")
    assert list(index.session_ids("w", "long")) == []
    assert list(index.session_ids("w", "short")) == [f"m{count + 1}"]
