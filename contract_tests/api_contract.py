"""``HonchoAPIContract``: the Honcho v3 wire contract (placeholder, filled in below)."""

from __future__ import annotations

from contract_tests.guard import ContractSuite

__all__ = ["HonchoAPIContract"]


class HonchoAPIContract(ContractSuite):
    __contract_suite__ = True
