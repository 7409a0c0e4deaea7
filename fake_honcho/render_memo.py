"""Rendered JSON of message rows, kept for the next time the same rows are sent.

Agents read the same recent messages turn after turn (a session's last page, a
context window, a search hit), and rendering a message is most of what a list
request costs. :mod:`fake_honcho.wire` keeps each message row it renders here and
reuses the bytes while the row stays the stored one.

An entry is served only for the very row object it was rendered from: stored rows
are never changed in place (a change puts a new row), and the memo also forgets a
message as soon as the store replaces or deletes it. The memo is bounded by
``limit`` bytes of rendered JSON (:data:`MEMO_BYTES` unless set), and drops its oldest
entries first; a ``limit`` of 0 turns it off.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import final

from fake_honcho.state import Key, Row, Store

__all__ = ["MEMO_BYTES", "RenderMemo", "render_memo"]

MEMO_BYTES = 4_000_000
"""Rendered bytes a fake keeps: about 5,000 typical messages, a few percent of 100,000."""


@final
class RenderMemo:
    """Message id -> (the row rendered, its JSON), oldest first, within ``limit`` bytes."""

    def __init__(self, store: Store) -> None:
        self.limit = MEMO_BYTES
        self._entries: OrderedDict[str, tuple[Row, bytes]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        store.subscribe(self._on_change, collections=("messages",))

    def rendered(self, rows: Iterable[Row]) -> list[bytes | None]:
        """For each row, the JSON rendered from that very row object, if it is still kept."""
        entries = self._entries
        found: list[bytes | None] = []
        for row in rows:
            message_id = row.get("id")
            entry = entries.get(message_id) if type(message_id) is str else None
            found.append(entry[1] if entry is not None and entry[0] is row else None)
        return found

    def keep(self, row: Row, rendered: bytes) -> None:
        with self._lock:
            self._drop(row["id"])
            self._entries[row["id"]] = (row, rendered)
            self._size += len(rendered)
            while self._size > self.limit:
                _id, (_row, oldest) = self._entries.popitem(last=False)
                self._size -= len(oldest)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """Bytes of rendered JSON kept."""
        return self._size

    def _drop(self, message_id: str) -> None:
        entry = self._entries.pop(message_id, None)
        if entry is not None:
            self._size -= len(entry[1])

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if old is not None:  # replaced or deleted
            with self._lock:
                self._drop(old["id"])


def render_memo(store: Store) -> RenderMemo:
    """The store's render memo, attached on first use."""
    return store.attachment(RenderMemo)
