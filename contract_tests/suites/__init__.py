"""The contract suites as test modules, to run from an installed kit without writing a test.

    pytest --pyargs contract_tests.suites.api --honcho-url URL

runs :class:`~contract_tests.HonchoAPIContract` against the Honcho server at ``URL`` (a
real one or a served fake); without ``--honcho-url``, against an in-process fake.
"""
