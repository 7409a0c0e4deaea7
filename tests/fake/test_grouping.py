"""Grouped rows agree with the store, so requests need not scan other workspaces."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho
from fake_honcho.store.grouping import (
    PEER_SESSIONS,
    SESSION_MEMBERS,
    WORKSPACE_SESSIONS,
    GroupIndex,
    grouped,
    session_members,
)
from fake_honcho.store.state import Store

from .conftest import record_scans

KEYS = st.tuples(st.sampled_from(["w1", "w2"]), st.sampled_from("abc"), st.sampled_from("xyz"))
CHANGES = st.lists(st.tuples(KEYS, st.sampled_from([None, "2026-01-01T00:00:00Z", "delete"])))


@settings(max_examples=200, deadline=None)
@given(CHANGES)
def test_groups_answer_as_a_scan_of_the_store_would(
    changes: list[tuple[tuple[str, str, str], str | None]],
) -> None:
    store = Store()
    for grouping in (SESSION_MEMBERS, PEER_SESSIONS, WORKSPACE_SESSIONS):
        store.attachment(grouping)  # kept in step from here on
    for key, left_at in changes:
        if left_at == "delete":
            store.delete("session_peers", key)
            store.delete("sessions", key[:2])
        else:
            store.put("session_peers", key, {"peer_id": key[2], "left_at": left_at})
            store.put("sessions", key[:2], {"id": key[1]})
    scan = list(store.items("session_peers"))
    for ws in ("w1", "w2"):
        sessions = [key[1] for key, _row in store.items("sessions") if key[0] == ws]
        assert list(grouped(store, WORKSPACE_SESSIONS, ws)) == sessions
        assert list(GroupIndex(store, WORKSPACE_SESSIONS).rows((ws,))) == sessions  # rebuilt
        for sid in "abc":
            in_session = [row for key, row in scan if key[:2] == (ws, sid)]
            assert session_members(store, ws, sid, active=False) == in_session
            assert session_members(store, ws, sid) == [
                row for row in in_session if row["left_at"] is None
            ]
        for pid in "xyz":
            assert grouped(store, PEER_SESSIONS, ws, pid) == {
                key[1]: row for key, row in scan if (key[0], key[2]) == (ws, pid)
            }


def test_requests_read_their_own_workspace_rather_than_scan_the_store(
    client: httpx.Client, fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = "/v3/workspaces/ws"

    def write(workspace: str, session: str) -> None:
        body = {"messages": [{"peer_id": "alice", "content": "green tea"}]}
        path = f"/v3/workspaces/{workspace}/sessions/{session}/messages"
        response = client.post(path, json=body)
        assert response.status_code == 201, response.text

    def read() -> None:
        for path, body in [
            (f"{w}/sessions/list", None),
            (f"{w}/peers/list", None),
            (f"{w}/peers/alice/sessions", None),
            (f"{w}/search", {"query": "tea", "filters": {"peer_perspective": "alice"}}),
            (f"{w}/peers/alice/chat", {"query": "what does alice like?"}),
        ]:
            response = client.post(path, json=body)
            assert response.status_code == 200, response.text

    for number in range(3):
        write(f"other{number}", "s0")
        write("ws", f"s{number}")
    read()  # the indexes attach on first use, reading the rows already stored
    scanned = record_scans(fake, monkeypatch)
    write("ws", "s0")  # alice is a member already
    write("ws", "s9")  # a new session: alice joins it
    read()
    assert client.post(f"{w}/sessions/list").json()["total"] == 4
    assert scanned == []
