"""Inside real DeerFlow the backend subclasses DeerFlow's own ``MemoryManager``.

These run only where DeerFlow (``deerflow-harness``, Python 3.12+) is importable;
elsewhere ``test_deerflow_contract.py`` holds the backend to DeerFlow's recorded
contract instead.
"""

from __future__ import annotations

import importlib.util
import logging
from types import SimpleNamespace
from typing import Any

import pytest

import honcho_backend
from honcho_backend import manager

from .conftest import ManagerFactory, MockHoncho
from .deerflow_contract import describe_method, normalise, recorded, recorded_params


def _host() -> Any:
    return pytest.importorskip(
        "deerflow.agents.memory.manager",
        reason="DeerFlow (deerflow-harness, Python 3.12+) is not installed",
    )


def test_backend_subclasses_the_host_contract() -> None:
    host = _host()
    assert issubclass(honcho_backend.MANAGER_CLASS, host.MemoryManager)
    assert honcho_backend.MemoryManagerError is host.MemoryManagerError
    backend = honcho_backend.MANAGER_CLASS.from_config(
        {"base_url": "http://127.0.0.1:9", "failure_policy": {"read": "fail_closed"}}
    )
    backend.close()
    with pytest.raises(host.MemoryManagerError):
        backend.get_context("alice")


def test_installed_deerflow_matches_the_recorded_contract() -> None:
    host = _host()
    contract = recorded()["classes"]["MemoryManager"]
    for name, method in contract["methods"].items():
        want = {
            **method,
            "params": recorded_params(method),
            "returns": normalise(method["returns"]),
        }
        assert describe_method(host.MemoryManager, name) == want, name


def test_real_deerflow_hook_keeps_clarifications_without_warnings(
    honcho: MockHoncho, make_manager: ManagerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    host = _host()
    hooks = {"should_keep_hidden_message": host._host_default_should_keep_hidden_message}
    hidden = SimpleNamespace(
        type="human",
        content="<memory>x</memory>",
        id="m__memory",
        additional_kwargs={"hide_from_ui": True, "dynamic_context_reminder": True},
    )
    with caplog.at_level(logging.WARNING, logger="honcho_backend"):
        make_manager(hooks=hooks).add("t", [hidden], user_id="alice")
    assert honcho.posted() == []
    assert caplog.records == []


@pytest.mark.skipif(
    importlib.util.find_spec("deerflow") is not None, reason="DeerFlow is installed here"
)
def test_standalone_mirror_without_deerflow() -> None:
    assert issubclass(honcho_backend.MANAGER_CLASS, manager.MemoryManager)
    assert honcho_backend.MemoryManagerError is manager.MemoryManagerError
