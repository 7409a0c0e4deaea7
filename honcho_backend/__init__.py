"""A DeerFlow-compatible memory backend on top of Honcho v3.

``MANAGER_CLASS`` is what DeerFlow's backend discovery looks for.
"""

from .client import HonchoClient, HonchoRequestError
from .config import HonchoConfig, sanitize_id, session_id_for, stable_id
from .honcho_manager import HonchoMemoryManager
from .manager import (
    MemoryCallbacks,
    MemoryConflictError,
    MemoryCorruptionError,
    MemoryManager,
    MemoryManagerError,
)

MANAGER_CLASS = HonchoMemoryManager

__all__ = [
    "MANAGER_CLASS",
    "HonchoClient",
    "HonchoConfig",
    "HonchoMemoryManager",
    "HonchoRequestError",
    "MemoryCallbacks",
    "MemoryConflictError",
    "MemoryCorruptionError",
    "MemoryManager",
    "MemoryManagerError",
    "sanitize_id",
    "session_id_for",
    "stable_id",
]
