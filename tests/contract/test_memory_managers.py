"""Proof of reuse: MemoryManagerContract applied to three backends (fake or --honcho-url)."""

from __future__ import annotations

import pytest

from contract_tests import Capabilities, ManagerContext, ManagerFactory, MemoryManagerContract
from contract_tests.examples import InMemoryMemoryManager, NoopMemoryManager
from honcho_backend import HonchoMemoryManager


def honcho_manager(ctx: ManagerContext) -> HonchoMemoryManager:
    """HonchoMemoryManager with one workspace per user under the test's namespace."""
    config = {
        "base_url": ctx.target.base_url,
        "api_key": ctx.target.api_key,
        "allow_insecure_http": True,
        "workspace_prefix": f"{ctx.namespace}-",
        "failure_policy": {"read": ctx.read_policy},
        "storage_path": ctx.storage_path,
    }
    if ctx.context_cap is not None:
        config["max_injection_chars"] = ctx.context_cap
    return HonchoMemoryManager.from_config(config, transport=ctx.transport)


class TestHonchoMemoryManager(MemoryManagerContract):
    capabilities = Capabilities()

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        return honcho_manager


class TestInMemoryMemoryManager(MemoryManagerContract):
    capabilities = Capabilities(remote=False, read_policy=False, fact_crud=True)

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        return lambda ctx: InMemoryMemoryManager.from_config(
            {"max_context_chars": ctx.context_cap or 2000}
        )


class TestNoopMemoryManager(MemoryManagerContract):
    capabilities = Capabilities(remote=False, recall=False, search=False, read_policy=False)

    @pytest.fixture
    def memory_manager_factory(self) -> ManagerFactory:
        return lambda ctx: NoopMemoryManager.from_config({})
