"""The fake's whole state: named collections of JSON rows behind one lock.

Every mutation goes through :meth:`Store.put` or :meth:`Store.delete`, which
notify listeners with the old and new row. Secondary indexes (search, per-session
message order) and the ``--state-file`` change log are such listeners, so the
state can be rebuilt by replaying the change records alone. The store holds no
asyncio objects: several event loops and threads may share one fake.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from fake_honcho.store.jsonb import Unstorable, unstorable

Key = str | tuple[str, ...]
Row = dict[str, Any]
Listener = Callable[[str, Key, Row | None, Row | None], None]
Attachment = TypeVar("Attachment")

#: Honcho's JSONB columns, by collection: a value PostgreSQL refuses there fails the write.
JSON_COLUMNS: dict[str, tuple[str, ...]] = {
    "workspaces": ("metadata", "configuration"),
    "peers": ("metadata", "configuration"),
    "sessions": ("metadata", "configuration"),
    "messages": ("metadata",),
}

# The changes of the transaction running in this context: (collection, key, old row).
_UNDO: ContextVar[list[tuple[str, Key, Row | None]] | None] = ContextVar("undo", default=None)


class Store:
    """Named collections of rows (plain JSON-serialisable dicts), insertion ordered.

    Rows handed out are the stored objects: treat them as read-only and ``put`` a
    changed copy, so listeners see every change.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._collections: dict[str, dict[Key, Row]] = {}
        self._listeners: list[tuple[Listener, frozenset[str] | None]] = []
        self._notified: dict[str, tuple[Listener, ...]] = {}  # collection -> its listeners
        self._attachments: dict[Callable[[Store], Any], Any] = {}

    def subscribe(self, listener: Listener, *, collections: Collection[str] | None = None) -> None:
        """Call ``listener(collection, key, old, new)`` after each change; ``new`` None: deleted.

        With ``collections``, only changes to those collections are passed on: an index
        of one collection then costs nothing when the others change.
        """
        self._listeners.append((listener, None if collections is None else frozenset(collections)))
        self._notified.clear()

    def unsubscribe(self, listener: Listener) -> None:
        self._listeners = [entry for entry in self._listeners if entry[0] != listener]
        self._notified.clear()

    def _listeners_of(self, collection: str) -> tuple[Listener, ...]:
        found = self._notified.get(collection)
        if found is None:
            found = self._notified[collection] = tuple(
                listener for listener, only in self._listeners if only is None or collection in only
            )
        return found

    def attachment(self, factory: Callable[[Store], Attachment]) -> Attachment:
        """The one ``factory(self)`` of this store (e.g. an index), built on first use."""
        found = self._attachments.get(factory)  # a dict read is atomic: no lock once built
        if found is not None:
            return found
        with self.lock:
            found = self._attachments.get(factory)
            if found is None:
                found = self._attachments[factory] = factory(self)
            return found

    def detach(self, factory: Callable[[Store], Any]) -> None:
        """Forget ``factory``'s attachment and unsubscribe the listeners it holds methods of.

        The next :meth:`attachment` call builds a new one from the rows (the memory
        benchmark weighs an index by what detaching it gives back).
        """
        with self.lock:
            found = self._attachments.pop(factory, None)
            if found is not None:
                self._listeners = [
                    entry
                    for entry in self._listeners
                    if getattr(entry[0], "__self__", None) is not found
                ]
                self._notified.clear()

    def get(self, collection: str, key: Key) -> Row | None:
        return self._collections.get(collection, {}).get(key)

    def get_many(self, collection: str, keys: Iterable[Key]) -> list[Row | None]:
        """``[get(collection, key) for key in keys]`` in one call (a page of rows)."""
        table = self._collections.get(collection, {})
        return [table.get(key) for key in keys]

    def rows(self, collection: str) -> Iterator[Row]:
        """Rows of ``collection`` in insertion order, as a snapshot (the store may change)."""
        return iter(list(self._collections.get(collection, {}).values()))

    def items(self, collection: str) -> Iterator[tuple[Key, Row]]:
        return iter(list(self._collections.get(collection, {}).items()))

    def count(self, collection: str) -> int:
        return len(self._collections.get(collection, {}))

    def put(self, collection: str, key: Key, row: Row) -> None:
        """Insert or replace a row; a replaced row keeps its insertion position.

        A row whose JSON columns hold what PostgreSQL refuses is not written:
        :class:`~fake_honcho.store.jsonb.Unstorable`.
        """
        self.put_many(collection, ((key, row),))

    def put_many(self, collection: str, items: Iterable[tuple[Key, Row]]) -> None:
        """:meth:`put` each ``(key, row)`` in turn, with the lock taken once (a message
        write's rows). ``items`` may be lazy: each is taken just before it is written,
        so whatever building a row changes happens in the order a loop of puts has."""
        # The hot path of every write: lookups inlined, no empty table built per call.
        columns = JSON_COLUMNS.get(collection, ())
        with self.lock:
            table = self._collections.get(collection)
            undo = _UNDO.get()
            for key, row in items:
                for column in columns:
                    value = row.get(column)
                    if value and unstorable(value):
                        raise Unstorable(collection, column)
                if table is None:  # made by the first row written, not by a refused one
                    table = self._collections[collection] = {}
                old = table.get(key)
                table[key] = row
                if undo is not None:
                    undo.append((collection, key, old))
                # looked up per row: a listener may subscribe another (an index built)
                listeners = self._notified.get(collection)
                for listener in (
                    listeners if listeners is not None else self._listeners_of(collection)
                ):
                    listener(collection, key, old, row)

    def delete(self, collection: str, key: Key) -> None:
        with self.lock:
            table = self._collections.get(collection, {})
            old = table.pop(key, None)
            if old is None:
                return
            undo = _UNDO.get()
            if undo is not None:
                undo.append((collection, key, old))
            for listener in self._listeners_of(collection):
                listener(collection, key, old, None)

    def transaction(self) -> _Transaction:
        """What runs inside is written whole or, when a row is :class:`Unstorable`, rolled
        back to the last :meth:`commit` (as the server's database transaction is)."""
        return _Transaction(self)

    def commit(self) -> None:
        """Keep what the running transaction wrote so far, whatever follows (the server
        commits some writes before the rest of a request: a message's session and peers)."""
        undo = _UNDO.get()
        if undo is not None:
            undo.clear()

    def _roll_back(self) -> None:
        undo = _UNDO.get()
        if not undo:
            return
        token = _UNDO.set(None)
        try:
            with self.lock:
                for collection, key, old in reversed(undo):
                    if old is None:
                        self.delete(collection, key)
                    else:
                        self.put(collection, key, old)
        finally:
            _UNDO.reset(token)

    def clear(self) -> None:
        """Drop every row, telling listeners about each one (indexes empty themselves)."""
        with self.lock:
            for collection in list(self._collections):
                for key, _row in self.items(collection):
                    self.delete(collection, key)
            self._collections.clear()

    def collections(self) -> list[str]:
        return list(self._collections)


class _Transaction:
    """:meth:`Store.transaction`, as a class: every request opens one, and a generator
    based context manager costs three times as much to enter and leave."""

    __slots__ = ("_store", "_token")

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> None:
        self._token = _UNDO.set([])

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any
    ) -> None:
        try:
            if isinstance(error, Unstorable):
                self._store._roll_back()
        finally:
            _UNDO.reset(self._token)


class _EmptyMetadata(dict[str, Any]):
    """An empty dict that refuses changes, so one instance can serve every row.

    Most messages carry no metadata; sharing a single empty mapping saves a dict per
    row. It is still a ``dict`` (JSON encoding, ``isinstance`` checks and equality
    with ``{}`` behave as usual); any attempt to change it raises ``TypeError``.
    """

    def _refuse(self, *_args: Any, **_kwargs: Any) -> Any:
        raise TypeError("shared empty metadata is read-only; put a changed copy of the row")

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = setdefault = pop = popitem = clear = _refuse


NO_METADATA: dict[str, Any] = _EmptyMetadata()


class _MessageFields:
    """Lends its instance dict to one message row, then goes.

    The dicts of one class's instances share a single key table (PEP 412), so a row
    built as ``_MessageFields(...).__dict__`` holds only its values: about 180 bytes
    where a dict literal of the same ten keys takes about 280. It is still a plain
    ``dict`` with the same keys in the same order, and a key added later (say
    ``_configuration``) works as in any dict.
    """

    def __init__(
        self,
        id: str,
        content: str,
        peer_id: str,
        session_id: str,
        workspace_id: str,
        metadata: dict[str, Any],
        created_at: str,
        token_count: int,
        _seq: int,
        _seq_in_session: int,
    ) -> None:
        # Assigned in the row's key order, which is the order the dict keeps. Counts
        # repeat from row to row, and an int above 256 is otherwise an object (32 bytes)
        # of its own: small ones share one object each (inline, as this runs per message).
        shared = _SHARED_INTS
        self.id = id
        self.content = content
        self.peer_id = peer_id
        self.session_id = session_id
        self.workspace_id = workspace_id
        self.metadata = metadata
        self.created_at = created_at
        self.token_count = (
            shared.setdefault(token_count, token_count)
            if type(token_count) is int and 0 <= token_count < SHARED_INT_LIMIT
            else token_count
        )
        self._seq = _seq
        self._seq_in_session = (
            shared.setdefault(_seq_in_session, _seq_in_session)
            if type(_seq_in_session) is int and 0 <= _seq_in_session < SHARED_INT_LIMIT
            else _seq_in_session
        )


SHARED_INT_LIMIT = 10_000
"""Counts below this share their int objects; at most this many are kept."""
_SHARED_INTS: dict[int, int] = {}


def message_row(*values: Any) -> Row:
    """A new ``messages`` row (see ``docs/architecture.md``) in its compact form.

    ``values`` are the row's ten fields in :data:`MESSAGE_KEYS` order (positional: a
    message write builds ten rows per batch, and keywords cost several times more).
    """
    return _MessageFields(*values).__dict__


MESSAGE_KEYS = tuple(inspect.signature(_MessageFields).parameters)
"""A message row's keys, in order (``_configuration`` may follow)."""


def compact_message(row: Row) -> Row:
    """An equal row in :func:`message_row`'s form (e.g. one read back from a state file);
    ``row`` itself when its keys do not start as a message row's do."""
    keys = tuple(row)
    if keys[: len(MESSAGE_KEYS)] != MESSAGE_KEYS:
        return row
    compact = message_row(*(row[key] for key in MESSAGE_KEYS))
    for key in keys[len(MESSAGE_KEYS) :]:
        compact[key] = row[key]
    return compact


def encode_key(key: Key) -> str | list[str]:
    """JSON form of a key (tuples become lists)."""
    return list(key) if isinstance(key, tuple) else key


def decode_key(raw: str | list[str]) -> Key:
    return tuple(raw) if isinstance(raw, list) else raw
