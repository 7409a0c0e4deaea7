"""Insertion-ordered message ids per session: a Store listener.

Listing a session's messages reads its own ordered ids instead of scanning every
stored message. A list holds a short session's ids and a deque a long one's: about 8
bytes per message, where an ordered dict would take several times that (a deque alone
costs some 700 bytes however few ids it holds, too much for sessions of a few
messages). Messages only leave a session in bulk (the session or its workspace is
deleted, oldest first), so removal finds each id at the front. A peer's messages,
needed only by the toy dialectic, are gathered from the sessions on demand rather
than kept in a second index. The index is attached to a store on first use and
rebuilt from the rows already there, so it also follows ``--state-file`` replays and
``fake.reset()``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, MutableSequence, Sequence

from fake_honcho.store.state import Key, Row, Store

LIST_UNTIL = 128
"""A session's ids are a list until it holds this many, then a deque."""


class MessageIndex:
    """Message ids in insertion (``_seq``) order, by workspace and session."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.by_workspace: dict[str, dict[str, MutableSequence[str]]] = {}
        self.last_seq = 0
        with store.lock:
            for row in sorted(store.rows("messages"), key=lambda r: r["_seq"]):
                self._add(row)
            store.subscribe(self._on_change, collections=("messages",))

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if old is None:
            if new is not None:
                self._add(new)
        elif new is None:
            self._remove(old)

    def _add(self, row: Row) -> None:
        sessions = self.by_workspace.get(row["workspace_id"])
        if sessions is None:
            sessions = self.by_workspace[row["workspace_id"]] = {}
        ids = sessions.get(row["session_id"])
        if ids is None:
            ids = sessions[row["session_id"]] = []
        elif len(ids) == LIST_UNTIL and type(ids) is list:
            ids = sessions[row["session_id"]] = deque(ids)  # removal from the front stays O(1)
        ids.append(row["id"])
        if row["_seq"] > self.last_seq:
            self.last_seq = row["_seq"]

    def _remove(self, row: Row) -> None:
        sessions = self.by_workspace.get(row["workspace_id"], {})
        ids = sessions.get(row["session_id"])
        if ids is None:
            return
        ids.remove(row["id"])  # found at once at the front, where bulk deletes start (a
        # list's shift is short: LIST_UNTIL ids at most)
        if not ids:
            del sessions[row["session_id"]]
            if not sessions:
                del self.by_workspace[row["workspace_id"]]

    def session_ids(self, workspace_id: str, session_id: str) -> Sequence[str]:
        """The session's message ids, oldest first (read-only: do not change it)."""
        return self.by_workspace.get(workspace_id, {}).get(session_id, ())

    def peer_ids(self, workspace_id: str, peer_id: str) -> list[str]:
        """Ids of the messages ``peer_id`` wrote in the workspace, oldest first."""
        get = self.store.get
        written = [
            row
            for ids in self.by_workspace.get(workspace_id, {}).values()
            for mid in ids
            if (row := get("messages", mid)) is not None and row["peer_id"] == peer_id
        ]
        written.sort(key=lambda row: row["_seq"])
        return [row["id"] for row in written]

    def rows(self, ids: Iterable[str]) -> Iterator[Row]:
        """The rows of ``ids`` in order (a snapshot of the ids, safe under changes)."""
        for mid in list(ids):
            row = self.store.get("messages", mid)
            if row is not None:
                yield row

    def session_messages(self, workspace_id: str, session_id: str) -> list[Row]:
        """A session's messages, oldest first."""
        return list(self.rows(self.session_ids(workspace_id, session_id)))

    def next_seq(self) -> int:
        """The next global message sequence number (call under the store lock)."""
        self.last_seq += 1
        return self.last_seq


def message_index(store: Store) -> MessageIndex:
    """The store's message index, attached on first use."""
    return store.attachment(MessageIndex)
