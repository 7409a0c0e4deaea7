"""HonchoAPIContract against this run's target: the fake by default, or --honcho-url."""

from contract_tests import HonchoAPIContract


class TestHonchoAPI(HonchoAPIContract):
    pass
