"""Insertion-ordered message ids per session and per author: a Store listener.

Listing a session's messages, or a peer's, reads its own ordered id set instead of
scanning every stored message. Ordered dicts serve as ordered sets: appends, deletes
and (reverse) iteration are all cheap. The index is attached to a store on first
use and rebuilt from the rows already there, so it also follows ``--state-file``
replays and ``fake.reset()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fake_honcho.state import Key, Row, Store

_OrderedIds = dict[str, None]


class MessageIndex:
    """Message ids in insertion (``_seq``) order, grouped by session and by author."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.by_session: dict[tuple[str, str], _OrderedIds] = {}
        self.by_peer: dict[tuple[str, str], _OrderedIds] = {}
        self.last_seq = 0
        with store.lock:
            for row in sorted(store.rows("messages"), key=lambda r: r["_seq"]):
                self._add(row)
            store.subscribe(self._on_change)

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if collection != "messages":
            return
        if old is not None and new is None:
            self._remove(old)
        elif old is None and new is not None:
            self._add(new)

    def _add(self, row: Row) -> None:
        mid, ws = row["id"], row["workspace_id"]
        self.by_session.setdefault((ws, row["session_id"]), {})[mid] = None
        self.by_peer.setdefault((ws, row["peer_id"]), {})[mid] = None
        self.last_seq = max(self.last_seq, row["_seq"])

    def _remove(self, row: Row) -> None:
        mid, ws = row["id"], row["workspace_id"]
        _discard(self.by_session, (ws, row["session_id"]), mid)
        _discard(self.by_peer, (ws, row["peer_id"]), mid)

    def session_ids(self, workspace_id: str, session_id: str) -> _OrderedIds:
        return self.by_session.get((workspace_id, session_id), {})

    def peer_ids(self, workspace_id: str, peer_id: str) -> _OrderedIds:
        return self.by_peer.get((workspace_id, peer_id), {})

    def rows(self, ids: _OrderedIds, *, reverse: bool = False) -> Iterator[Row]:
        """The rows of ``ids`` in order (a snapshot of the ids, safe under changes)."""
        ordered = list(reversed(ids)) if reverse else list(ids)
        for mid in ordered:
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


def _discard(table: dict[Any, _OrderedIds], group: Any, mid: str) -> None:
    ids = table.get(group)
    if ids is not None:
        ids.pop(mid, None)
        if not ids:
            del table[group]


def message_index(store: Store) -> MessageIndex:
    """The store's message index, attached on first use."""
    return store.attachment(MessageIndex)
