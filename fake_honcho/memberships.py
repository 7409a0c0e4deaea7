"""Session memberships by session and by peer, kept in step with the store.

Every message write asks who is in its session (to plan joins and to queue the
deriver's work), so a scan of all memberships made each write slower as sessions
accumulated. The index answers from the session's own members instead.
"""

from __future__ import annotations

from fake_honcho.state import Key, Row, Store

__all__ = ["Memberships", "memberships"]

COLLECTION = "session_peers"  # keyed (workspace_id, session_id, peer_id)
Groups = dict[tuple[str, str], dict[str, Row]]


class Memberships:
    """``session_peers`` rows grouped by session (in join order) and by peer."""

    def __init__(self, store: Store) -> None:
        self._by_session: Groups = {}  # (workspace, session) -> peer -> row
        self._by_peer: Groups = {}  # (workspace, peer) -> session -> row
        with store.lock:
            for key, row in store.items(COLLECTION):
                self._on_change(COLLECTION, key, None, row)
            store.subscribe(self._on_change)

    def of_session(self, workspace_id: str, session_id: str, *, active: bool = True) -> list[Row]:
        """The session's membership rows in join order (current members only by default)."""
        rows = self._by_session.get((workspace_id, session_id), {}).values()
        return [row for row in rows if not active or row.get("left_at") is None]

    def of_peer(self, workspace_id: str, peer_id: str) -> dict[str, Row]:
        """Session id -> the peer's membership row there, left sessions included (read-only)."""
        return self._by_peer.get((workspace_id, peer_id), {})

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if collection != COLLECTION or not (isinstance(key, tuple) and len(key) == 3):
            return
        workspace_id, session_id, peer_id = key
        by_session = (workspace_id, session_id)
        by_peer = (workspace_id, peer_id)
        if new is not None:
            # A replaced row keeps its place, as it does in the store.
            self._by_session.setdefault(by_session, {})[peer_id] = new
            self._by_peer.setdefault(by_peer, {})[session_id] = new
            return
        _forget(self._by_session, by_session, peer_id)
        _forget(self._by_peer, by_peer, session_id)


def _forget(groups: Groups, group: tuple[str, str], key: str) -> None:
    members = groups.get(group)
    if members is not None:
        members.pop(key, None)
        if not members:
            del groups[group]


def memberships(store: Store) -> Memberships:
    """The store's membership index, attached on first use."""
    return store.attachment(Memberships)
