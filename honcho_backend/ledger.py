"""What each thread's Honcho session already holds, in bounded memory.

DeerFlow passes the full history on every turn. The ledger remembers the keys
of recently stored messages per thread so only the new tail is sent. Both the
number of threads (LRU) and the keys per thread are capped.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from .messages import Outgoing

__all__ = ["BoundedLRU", "ThreadLedger", "ThreadState"]

K = TypeVar("K")
V = TypeVar("V")

KEYS_PER_THREAD = 256
ALIGN_RUN = 3
"""Consecutive messages that must match to align the history with the session."""
_LOCK_STRIPES = 64


class BoundedLRU(Generic[K, V]):
    """A thread-safe mapping that forgets its least recently used entries."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)


class ThreadState:
    """What one Honcho session is known to hold.

    ``keys`` are message keys known to be stored: those this process sent and
    the watermarks recovered from message metadata. ``stored`` are
    fingerprints (author + content) of the session's newest messages, oldest
    first, as read from Honcho on first sight of the thread.
    """

    def __init__(self, keys: Iterable[str] = (), stored: Sequence[str] = ()) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._stored = list(stored)
        self.remember(keys)

    def remember(self, keys: Iterable[str]) -> None:
        for key in keys:
            self._keys[key] = None
            self._keys.move_to_end(key)
        while len(self._keys) > KEYS_PER_THREAD:
            self._keys.popitem(last=False)

    def unsent(
        self, outgoing: Sequence[Outgoing], fingerprint: Callable[[Outgoing], str]
    ) -> list[Outgoing]:
        """The messages after the last one the session is known to hold.

        The newest key match is exact. Failing that (a session written by
        another client), the session's newest stored messages are aligned with
        the history: a few in a row must match, so a repeated "yes" is not
        mistaken for the old one. Failing that too, anything stored recently
        is skipped by fingerprint.
        """
        for index in range(len(outgoing) - 1, -1, -1):
            if outgoing[index].key in self._keys:
                return list(outgoing[index + 1 :])
        if not self._stored:
            return list(outgoing)
        prints = [fingerprint(message) for message in outgoing]
        for index in range(len(prints) - 1, -1, -1):
            run = min(ALIGN_RUN, index + 1, len(self._stored))
            if prints[index - run + 1 : index + 1] == self._stored[-run:]:
                return list(outgoing[index + 1 :])
        stored = set(self._stored)
        return [
            message for message, mark in zip(outgoing, prints, strict=True) if mark not in stored
        ]


class ThreadLedger:
    """Per-thread ``ThreadState``s (LRU-bounded) plus striped per-thread locks."""

    def __init__(self, max_threads: int) -> None:
        self._states: BoundedLRU[tuple[str, str], ThreadState] = BoundedLRU(max_threads)
        self._locks = [threading.Lock() for _ in range(_LOCK_STRIPES)]

    def __len__(self) -> int:
        return len(self._states)

    def lock_for(self, thread: tuple[str, str]) -> threading.Lock:
        """Serialises writes to one session, so concurrent adds never send a message twice."""
        stripe = zlib.crc32("\0".join(thread).encode("utf-8")) % _LOCK_STRIPES
        return self._locks[stripe]

    def get(self, thread: tuple[str, str]) -> ThreadState | None:
        return self._states.get(thread)

    def put(self, thread: tuple[str, str], state: ThreadState) -> None:
        self._states.put(thread, state)

    def forget(self, thread: tuple[str, str]) -> None:
        """Drop what is known, so the next write re-reads the session first."""
        self._states.pop(thread)
