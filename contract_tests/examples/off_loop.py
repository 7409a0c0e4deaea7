"""A base for local backends whose async methods run the sync ones off the event loop."""

from __future__ import annotations

from honcho_backend.manager import MemoryManager
from honcho_backend.off_loop import OffLoopMixin

__all__ = ["OffLoopMemoryManager"]


class OffLoopMemoryManager(OffLoopMixin, MemoryManager):
    """The contract's base with ``aadd``/``aget_context``/``asearch`` in a worker thread.

    The base class runs the sync method on the caller's loop; a backend whose sync
    methods touch a disk, a database or a lock held elsewhere then stalls every other
    task of the agent. Subclass this, or mix :class:`~honcho_backend.off_loop.OffLoopMixin`
    into your own base (``class Mine(OffLoopMixin, MemoryManager)``).
    """
