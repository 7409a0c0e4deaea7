"""Conclusions (Honcho's ``documents``): rows in the store plus an index per (observer, observed).

Rows live in the ``conclusions`` collection keyed ``(workspace, id)``. The index is
a store listener, so it follows every change, including a replayed ``--state-file``
log and ``store.clear()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from fake_honcho.store.state import Key, Row, Store

COLLECTION = "conclusions"
PUBLIC_FIELDS = ("id", "content", "observer_id", "observed_id", "session_id", "level", "created_at")
#: From 3.2 (``Feature.CONCLUSION_ATTRIBUTION``) a conclusion also says what it was derived
#: from and how often, before ``created_at`` as pull request 952's model orders them.
ATTRIBUTED_FIELDS = (*PUBLIC_FIELDS[:-1], "source_ids", "times_derived", "created_at")

Pair = tuple[str, str, str]


def public(row: Row) -> Row:
    """The wire shape of a conclusion (Honcho 3.0.12 ``Conclusion``)."""
    return {field: row.get(field) for field in PUBLIC_FIELDS}


def attributed(row: Row) -> Row:
    """The wire shape of a conclusion from 3.2 on: with ``source_ids`` and ``times_derived``."""
    shown = {field: row.get(field) for field in ATTRIBUTED_FIELDS}
    shown["times_derived"] = row.get("times_derived", 1)
    return shown


def recency_key(row: Row) -> tuple[str, int]:
    """Sort key for "newest first": creation time, then creation order for equal times."""
    return (row["created_at"], row["_seq"])


@dataclass
class NewConclusion:
    workspace_id: str
    id: str
    content: str
    observer_id: str
    observed_id: str
    session_id: str | None
    created_at: str
    level: str = "explicit"
    message_created_at: str | None = None
    source_ids: list[str] | None = None
    times_derived: int = 1


class Conclusions:
    """Reads and writes conclusions; keeps the per-pair index and the creation counter."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._by_pair: dict[Pair, dict[str, None]] = {}
        self._by_text: dict[tuple[Pair, str | None, str], dict[str, None]] = {}
        self._by_workspace: dict[str, dict[str, None]] = {}
        self._last_seq = 0
        for key, row in store.items(COLLECTION):
            self._on_change(COLLECTION, key, None, row)
        store.subscribe(self._on_change, collections=(COLLECTION,))

    def add(self, new: NewConclusion) -> Row:
        """Store one conclusion and return its row. Call under ``store.lock``."""
        row: Row = {
            "id": new.id,
            "content": new.content,
            "observer_id": new.observer_id,
            "observed_id": new.observed_id,
            "session_id": new.session_id,
            "level": new.level,
            "created_at": new.created_at,
            "workspace_id": new.workspace_id,
            "times_derived": new.times_derived,
            "_seq": self._last_seq + 1,
            "_message_created_at": new.message_created_at,
        }
        if new.source_ids:  # derived conclusions only: explicit ones have none
            row["source_ids"] = list(new.source_ids)
        self.store.put(COLLECTION, (row["workspace_id"], new.id), row)
        return row

    def bump(self, row: Row) -> Row:
        """Count one more independent derivation of an existing conclusion."""
        updated = {**row, "times_derived": row.get("times_derived", 1) + 1}
        self.store.put(COLLECTION, (row["workspace_id"], row["id"]), updated)
        return updated

    def get(self, workspace_id: str, conclusion_id: str) -> Row | None:
        return self.store.get(COLLECTION, (workspace_id, conclusion_id))

    def delete(self, workspace_id: str, conclusion_id: str) -> None:
        self.store.delete(COLLECTION, (workspace_id, conclusion_id))

    def of_pair(self, workspace_id: str, observer: str, observed: str) -> list[Row]:
        """Conclusions ``observer`` holds about ``observed``, in creation order."""
        keys = self._by_pair.get((workspace_id, observer, observed), {})
        return list(self._rows(workspace_id, keys))

    def in_workspace(self, workspace_id: str) -> list[Row]:
        return list(self._rows(workspace_id, self._by_workspace.get(workspace_id, {})))

    def find_same(
        self, workspace_id: str, observer: str, observed: str, session_id: str | None, content: str
    ) -> Row | None:
        """The oldest conclusion of the pair in that session saying the same, as Honcho matches.

        Honcho's exact-match dedup key is the content trimmed and lower-cased, the level
        and, for explicit conclusions, the session: a repeat in another session is new.
        """
        key = ((workspace_id, observer, observed), session_id, same_text(content))
        return next(self._rows(workspace_id, self._by_text.get(key, {})), None)

    def _rows(self, workspace_id: str, ids: dict[str, None]) -> Iterator[Row]:
        for conclusion_id in list(ids):
            row = self.store.get(COLLECTION, (workspace_id, conclusion_id))
            if row is not None:
                yield row

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        row = new or old
        assert row is not None and isinstance(key, tuple)
        workspace_id, conclusion_id = key
        pair = (workspace_id, row["observer_id"], row["observed_id"])
        if old is not None:
            self._by_text.get(_text_key(pair, old), {}).pop(conclusion_id, None)
        if new is None:
            self._by_pair.get(pair, {}).pop(conclusion_id, None)
            self._by_workspace.get(workspace_id, {}).pop(conclusion_id, None)
            return
        self._by_text.setdefault(_text_key(pair, new), {})[conclusion_id] = None
        self._by_pair.setdefault(pair, {})[conclusion_id] = None
        self._by_workspace.setdefault(workspace_id, {})[conclusion_id] = None
        self._last_seq = max(self._last_seq, int(new.get("_seq", 0)))


def same_text(content: str) -> str:
    """Honcho's dedup form of a conclusion: ``lower(trim(content))``."""
    return content.strip().lower()


def _text_key(pair: Pair, row: Row) -> tuple[Pair, str | None, str]:
    return (pair, row.get("session_id"), same_text(row["content"]))
