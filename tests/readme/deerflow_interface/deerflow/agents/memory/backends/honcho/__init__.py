"""Stand-in for DeerFlow's ``backends/honcho`` package: its module paths and names."""

from .honcho_manager import HonchoMemoryManager

MANAGER_CLASS = HonchoMemoryManager
