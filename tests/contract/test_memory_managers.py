"""Proof of reuse: MemoryManagerContract applied to three backends (fake or --honcho-url)."""

from __future__ import annotations

import pytest

from contract_tests import Capabilities, ManagerFactory, MemoryManagerContract
from contract_tests.examples import InMemoryMemoryManager, NoopMemoryManager
from contract_tests.examples.honcho import honcho_manager_factory


class TestHonchoMemoryManager(MemoryManagerContract):
    capabilities = Capabilities(ignores_missing_user=True)

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        return honcho_manager_factory()


class TestInMemoryMemoryManager(MemoryManagerContract):
    capabilities = Capabilities(
        remote=False, read_policy=False, fact_crud=True, ignores_missing_user=True
    )

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        return lambda ctx: InMemoryMemoryManager.from_config(
            {"max_context_chars": ctx.context_cap or 2000}
        )


class TestNoopMemoryManager(MemoryManagerContract):
    capabilities = Capabilities(
        remote=False, recall=False, search=False, read_policy=False, ignores_missing_user=True
    )

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        return lambda ctx: NoopMemoryManager.from_config({})
