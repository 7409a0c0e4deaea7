"""HonchoAPIContract against this run's target: the fake by default, or --honcho-url.

The suite module users run with ``pytest --pyargs contract_tests.suites.api``, collected
here too so the kit's own run covers it.
"""

from contract_tests.suites.api import TestHonchoAPI

__all__ = ["TestHonchoAPI"]
