"""The ``MemoryManagerContract`` factory for ``HonchoMemoryManager`` (and its subclasses)."""

from __future__ import annotations

from typing import Any

from contract_tests.memory_contract import ManagerContext, ManagerFactory
from honcho_backend import HonchoMemoryManager

__all__ = ["honcho_backend_config", "honcho_manager_factory"]


def honcho_backend_config(ctx: ManagerContext) -> dict[str, Any]:
    """``backend_config`` for the test: one workspace per user under ``ctx.namespace``."""
    config: dict[str, Any] = {
        "base_url": ctx.target.base_url,
        "allow_insecure_http": True,
        "workspace_prefix": f"{ctx.namespace}-",
        "failure_policy": {"read": ctx.read_policy},
        "storage_path": ctx.storage_path,
    }
    if ctx.target.api_key:
        config["api_key"] = ctx.target.api_key.get_secret_value()
    if ctx.context_cap is not None:
        config["max_injection_chars"] = ctx.context_cap
    return config


def honcho_manager_factory(
    manager_class: type[HonchoMemoryManager] = HonchoMemoryManager,
) -> ManagerFactory:
    """A factory building ``manager_class`` against the test's target, through its transport."""

    def build(ctx: ManagerContext) -> HonchoMemoryManager:
        return manager_class.from_config(honcho_backend_config(ctx), transport=ctx.transport)

    return build
