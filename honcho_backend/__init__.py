"""A DeerFlow-compatible memory backend on top of Honcho v3.

``MANAGER_CLASS`` is what DeerFlow's backend discovery looks for. The
standalone contract (``MemoryManager`` and friends) is in
``honcho_backend.manager``; ``MemoryManagerError`` here is the class the
backend raises (DeerFlow's own when DeerFlow is installed).
"""

from .client import HonchoClient, HonchoRequestError
from .config import HonchoConfig, sanitize_id, session_id_for, stable_id
from .honcho_manager import HonchoMemoryManager, MemoryManagerError

MANAGER_CLASS = HonchoMemoryManager

__all__ = [
    "MANAGER_CLASS",
    "HonchoClient",
    "HonchoConfig",
    "HonchoMemoryManager",
    "HonchoRequestError",
    "MemoryManagerError",
    "sanitize_id",
    "session_id_for",
    "stable_id",
]
