"""The membership index agrees with the store, so writes need not scan every session."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho
from fake_honcho.memberships import memberships
from fake_honcho.state import Store

KEYS = st.tuples(st.sampled_from(["w1", "w2"]), st.sampled_from("abc"), st.sampled_from("xyz"))
CHANGES = st.lists(st.tuples(KEYS, st.sampled_from([None, "2026-01-01T00:00:00Z", "delete"])))


@settings(max_examples=200, deadline=None)
@given(CHANGES)
def test_the_index_answers_as_a_scan_of_the_store_would(
    changes: list[tuple[tuple[str, str, str], str | None]],
) -> None:
    store = Store()
    index = memberships(store)
    for key, left_at in changes:
        if left_at == "delete":
            store.delete("session_peers", key)
        else:
            store.put("session_peers", key, {"peer_id": key[2], "left_at": left_at})
    rows = store.items("session_peers")
    scan = [(key, row) for key, row in rows if isinstance(key, tuple)]
    for ws in ("w1", "w2"):
        for sid in "abc":
            in_session = [row for key, row in scan if key[:2] == (ws, sid)]
            assert index.of_session(ws, sid, active=False) == in_session
            assert index.of_session(ws, sid) == [r for r in in_session if r["left_at"] is None]
        for pid in "xyz":
            assert index.of_peer(ws, pid) == {
                key[1]: row for key, row in scan if (key[0], key[2]) == (ws, pid)
            }


def test_a_message_write_reads_only_its_own_session_members(
    client: httpx.Client, fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch
) -> None:
    def write(session: str) -> None:
        body = {"messages": [{"peer_id": "alice", "content": "hi"}]}
        response = client.post(f"/v3/workspaces/ws/sessions/{session}/messages", json=body)
        assert response.status_code == 201, response.text

    for number in range(5):
        write(f"s{number}")
    scanned: list[str] = []
    real_items = fake.store.items

    def counting_items(collection: str) -> Any:
        scanned.append(collection)
        return real_items(collection)

    monkeypatch.setattr(fake.store, "items", counting_items)
    write("s0")  # a member already
    write("s9")  # a new session: its author joins
    assert "session_peers" not in scanned
