"""Rows grouped by part of their key (a workspace's sessions, a session's members).

The store keys sessions and peers by ``(workspace, id)`` and memberships by
``(workspace, session, peer)``, in one collection each. Answering "this workspace's
sessions" or "this session's members" by scanning the collection made requests
slower as other workspaces and sessions accumulated (a message write asks who is in
its session). A :class:`GroupIndex` is a store listener that keeps each group's rows,
so those answers cost only the group's size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import final

from fake_honcho.store.state import Key, Row, Store

__all__ = [
    "PEER_SESSIONS",
    "SESSION_MEMBERS",
    "WORKSPACE_PEERS",
    "WORKSPACE_SESSIONS",
    "GroupIndex",
    "Grouping",
    "grouped",
    "session_members",
]


@dataclass(frozen=True)
class Grouping:
    """Group ``collection``'s rows by the key parts at ``group``, naming each by ``member``.

    A grouping is its own index factory (``store.attachment(grouping)``).
    """

    collection: str
    group: tuple[int, ...]
    member: int

    def __call__(self, store: Store) -> GroupIndex:
        return GroupIndex(store, self)


SESSION_MEMBERS = Grouping("session_peers", group=(0, 1), member=2)
PEER_SESSIONS = Grouping("session_peers", group=(0, 2), member=1)
WORKSPACE_SESSIONS = Grouping("sessions", group=(0,), member=1)
WORKSPACE_PEERS = Grouping("peers", group=(0,), member=1)


@final
class GroupIndex:
    """Group -> member id -> row, each group in store order (a replaced row keeps its place)."""

    def __init__(self, store: Store, grouping: Grouping) -> None:
        self.grouping = grouping
        self._groups: dict[tuple[str, ...], dict[str, Row]] = {}
        self._width = max(*grouping.group, grouping.member) + 1
        with store.lock:
            for key, row in store.items(grouping.collection):
                self._on_change(grouping.collection, key, None, row)
            store.subscribe(self._on_change, collections=(grouping.collection,))

    def rows(self, group: tuple[str, ...]) -> Mapping[str, Row]:
        """The group's rows by member id (read-only; empty for an unknown group)."""
        return self._groups.get(group, {})

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if not (isinstance(key, tuple) and len(key) == self._width):
            return
        group = tuple(key[at] for at in self.grouping.group)
        member = key[self.grouping.member]
        if new is not None:
            self._groups.setdefault(group, {})[member] = new
            return
        rows = self._groups.get(group)
        if rows is not None:
            rows.pop(member, None)
            if not rows:
                del self._groups[group]


def grouped(store: Store, grouping: Grouping, *group: str) -> Mapping[str, Row]:
    """``grouping``'s rows in ``group`` (e.g. ``grouped(store, WORKSPACE_SESSIONS, ws)``)."""
    index: GroupIndex = store.attachment(grouping)
    return index.rows(group)


def session_members(
    store: Store, workspace_id: str, session_id: str, *, active: bool = True
) -> list[Row]:
    """A session's membership rows in join order (only current members by default)."""
    rows = grouped(store, SESSION_MEMBERS, workspace_id, session_id).values()
    return [row for row in rows if not active or row.get("left_at") is None]
