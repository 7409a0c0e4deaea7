"""Stand-in for ``deerflow.agents.memory.manager``: this kit's mirror of DeerFlow's base."""

from honcho_backend.manager import MemoryManager, MemoryManagerError

__all__ = ["MemoryManager", "MemoryManagerError"]
