"""Reference backends for adopting ``MemoryManagerContract``: a no-op and an in-memory one."""

from contract_tests.examples.in_memory import InMemoryMemoryManager
from contract_tests.examples.noop import NoopMemoryManager

__all__ = ["InMemoryMemoryManager", "NoopMemoryManager"]
