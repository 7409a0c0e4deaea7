"""Reusable pytest contract suites for Honcho and DeerFlow-style memory backends.

The suites are mixins (names not starting with ``Test``): subclass one in a
test module to opt in. The pytest plugin (``contract_tests.plugin``, loaded
through the ``pytest11`` entry point) provides the fixtures they use.
"""

import pytest

# Rich assert messages in the suites even with plugin autoload disabled.
pytest.register_assert_rewrite(
    "contract_tests.api_contract",
    "contract_tests.guard",
    "contract_tests.memory_contract",
)

from contract_tests.api_contract import HonchoAPIContract  # noqa: E402
from contract_tests.capabilities import Capabilities  # noqa: E402
from contract_tests.memory_contract import (  # noqa: E402
    ManagerContext,
    ManagerFactory,
    MemoryManagerContract,
)
from contract_tests.settle import Settler, SettleTimeout  # noqa: E402
from contract_tests.snapshot import HonchoSnapshot, normalise  # noqa: E402
from contract_tests.target import HonchoTarget  # noqa: E402

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
