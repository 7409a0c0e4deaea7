"""Reusable pytest contract suites for Honcho and DeerFlow-style memory backends.

The suites are mixins (names not starting with ``Test``): subclass one in a
test module to opt in. The pytest plugin (``contract_tests.plugin``, loaded
through the ``pytest11`` entry point) provides the fixtures they use.

The names below are imported on first use, so pytest loading the plugin in a
project that never uses the suites costs next to nothing. Without the ``contract``
extra, importing the package (or a name from it) is one ``ImportError`` naming it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from fake_honcho._extras import CONTRACT, PYTEST, require

require("contract_tests", "contract", PYTEST)

import pytest  # noqa: E402 (after the extra's check)

# Rich assert messages in the suites even with plugin autoload disabled.
pytest.register_assert_rewrite(
    "contract_tests.api_contract",
    "contract_tests.guard",
    "contract_tests.memory_contract",
)

if TYPE_CHECKING:
    from contract_tests.api_contract import HonchoAPIContract
    from contract_tests.capabilities import Capabilities
    from contract_tests.memory_contract import (
        ManagerContext,
        ManagerFactory,
        MemoryManagerContract,
    )
    from contract_tests.settle import Settler, SettleTimeout
    from contract_tests.snapshot import HonchoSnapshot, normalise
    from contract_tests.target import HonchoTarget

_HOMES = {
    "Capabilities": "capabilities",
    "HonchoAPIContract": "api_contract",
    "HonchoSnapshot": "snapshot",
    "HonchoTarget": "target",
    "ManagerContext": "memory_contract",
    "ManagerFactory": "memory_contract",
    "MemoryManagerContract": "memory_contract",
    "SettleTimeout": "settle",
    "Settler": "settle",
    "normalise": "snapshot",
}

__all__ = [
    "Capabilities",
    "HonchoAPIContract",
    "HonchoSnapshot",
    "HonchoTarget",
    "ManagerContext",
    "ManagerFactory",
    "MemoryManagerContract",
    "SettleTimeout",
    "Settler",
    "normalise",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'contract_tests' has no attribute {name!r}")
    require("contract_tests", "contract", CONTRACT)
    return getattr(importlib.import_module(f"contract_tests.{home}"), name)
