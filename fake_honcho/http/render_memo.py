"""Rendered JSON of message rows, kept for the next time the same rows are sent.

Agents read the same recent messages turn after turn (a session's last page, a
context window, a search hit), and rendering a message is most of what a list
request costs. :mod:`fake_honcho.http.wire` keeps each message row it renders here and
reuses the bytes while the row stays the stored one.

An entry is served only for the very row object it was rendered from: stored rows
are never changed in place (a change puts a new row), and the memo also forgets a
message as soon as the store replaces or deletes it. The memo drops its oldest
entries first to stay within :attr:`RenderMemo.bound`: ``limit`` bytes of rendered JSON
(:data:`MEMO_BYTES` unless set; 0 turns it off), and no more than :data:`MEMO_SHARE`
of the stored content once that exceeds :data:`MEMO_FLOOR`, so a small store never
holds its messages twice over.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import final

from fake_honcho.store.state import Key, Row, Store

__all__ = ["MEMO_BYTES", "MEMO_FLOOR", "MEMO_SHARE", "RenderMemo", "render_memo"]

MEMO_BYTES = 4_000_000
"""Rendered bytes a fake keeps at most: about 5,000 typical messages, a few percent of 100,000."""
MEMO_SHARE = 0.25
"""Rendered bytes kept per character of stored content, above :data:`MEMO_FLOOR`."""
MEMO_FLOOR = 256_000
"""Rendered bytes any store may keep (a few hundred messages), however little it holds."""


@final
class RenderMemo:
    """A row object -> its JSON, oldest first, within :attr:`bound` bytes.

    Entries are found by the row object's ``id()`` (a page's lookups are then one pass in
    C). The memo keeps each entry's row alive, so no other object can take its ``id()``
    while the entry lasts; one entry per message id, the last rendered.
    """

    def __init__(self, store: Store) -> None:
        self.limit = MEMO_BYTES
        self._json: OrderedDict[int, bytes] = OrderedDict()  # id(row) -> JSON, oldest first
        self._rows: dict[int, Row] = {}  # id(row) -> the row, alive while its entry is
        self._by_message: dict[str, int] = {}  # message id -> id(row) of its entry
        self._size = 0
        self._lock = threading.Lock()
        with store.lock:
            self._content = sum(len(row["content"]) for row in store.rows("messages"))
            store.subscribe(self._on_change, collections=("messages",))

    def rendered(self, rows: Iterable[Row]) -> list[bytes | None]:
        """For each row, the JSON rendered from that very row object, if it is still kept."""
        return list(map(self._json.get, map(id, rows)))

    def keep(self, rendered: Iterable[tuple[Row, bytes]]) -> None:
        """Keep each row's JSON (a response's rows at once: one lock, one bound)."""
        with self._lock:
            size = self._size
            for row, json in rendered:
                size -= self._drop(row["id"])
                key = id(row)
                self._json[key] = json
                self._rows[key] = row
                self._by_message[row["id"]] = key
                size += len(json)
            if size > MEMO_FLOOR or size > self.limit:  # else within bounds: skip computing it
                bound = self.bound
                while size > bound:
                    size -= self._forget(next(iter(self._json)))
            self._size = size

    def clear(self) -> None:
        with self._lock:
            self._json.clear()
            self._rows.clear()
            self._by_message.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._json)

    @property
    def bound(self) -> int:
        """Bytes the memo may keep now: ``limit``, or less while the store holds little."""
        return min(self.limit, max(MEMO_FLOOR, int(self._content * MEMO_SHARE)))

    @property
    def size(self) -> int:
        """Bytes of rendered JSON kept."""
        return self._size

    def _drop(self, message_id: str) -> int:
        """Forget the message's entry, if any; the bytes freed. Call with the lock held."""
        key = self._by_message.get(message_id)
        return 0 if key is None else self._forget(key)

    def _forget(self, key: int) -> int:
        """Forget the entry of the row whose ``id()`` is ``key``; the bytes freed."""
        json = self._json.pop(key)  # before the row goes: its id() stays its own until then
        row = self._rows.pop(key)
        del self._by_message[row["id"]]
        return len(json)

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if old is None:  # inserted: nothing kept yet
            if new is not None:
                self._content += len(new["content"])
            return
        self._content += (0 if new is None else len(new["content"])) - len(old["content"])
        with self._lock:  # replaced or deleted
            self._size -= self._drop(old["id"])


def render_memo(store: Store) -> RenderMemo:
    """The store's render memo, attached on first use."""
    return store.attachment(RenderMemo)
