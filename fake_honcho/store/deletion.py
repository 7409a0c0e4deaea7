"""What a deletion removes, run when the server's deriver gets to it.

Honcho answers ``DELETE`` of a session or a workspace with a 202 and queues the deletion
for its deriver (``enqueue_deletion``): until that runs, a deleted session is only
inactive (its messages, members and their configuration still read back) and a deleted
workspace is all there (a second ``DELETE`` answers 202 again). The fake's deriver runs
these (register entry ``deletion-at-once``); ``real_bugs="correct"`` runs them at once.
"""

from __future__ import annotations

from typing import Any

from fake_honcho.store.grouping import session_members
from fake_honcho.store.message_index import message_index
from fake_honcho.store.state import Row, Store

__all__ = ["delete_session_rows", "delete_workspace_rows"]


def delete_session_rows(store: Store, ws: str, sid: str) -> None:
    """The session's messages, its memberships (members who left included) and its row,
    so its name can be created again (``crud/session.py delete_session``, a hard delete)."""
    with store.lock:
        for mid in list(message_index(store).session_ids(ws, sid)):
            store.delete("messages", mid)
        for member in session_members(store, ws, sid, active=False):
            store.delete("session_peers", (ws, sid, member["peer_id"]))
        if store.get("sessions", (ws, sid)) is not None:
            store.delete("sessions", (ws, sid))


def delete_workspace_rows(store: Store, ws: str) -> None:
    """Every row of the workspace, in every collection (its queued work included)."""
    with store.lock:
        for collection in store.collections():
            for key, row in store.items(collection):
                if _belongs_to(ws, collection, key, row):
                    store.delete(collection, key)


def _belongs_to(ws: str, collection: str, key: Any, row: Row) -> bool:
    if collection == "workspaces":
        return key == ws
    if isinstance(key, tuple) and key and key[0] == ws:
        return True
    return isinstance(row, dict) and row.get("workspace_id") == ws
