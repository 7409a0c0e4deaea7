"""``pytest --pyargs contract_tests.suites.api [--honcho-url URL]``: the Honcho wire contract."""

from contract_tests import HonchoAPIContract


class TestHonchoAPI(HonchoAPIContract):
    """Every test of the suite, against this run's target (``--honcho-url``, else the fake)."""
