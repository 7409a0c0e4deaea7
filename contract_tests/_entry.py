"""The ``pytest11`` entry point: cheap, and harmless without the ``contract`` extra.

pytest loads this in every run of every project the kit is installed in. It always
registers the plugin's options (:mod:`contract_tests.options`); with the extra present
it pulls in :mod:`contract_tests.plugin` (which registers its markers and fixtures and
imports heavy modules only inside fixtures and hooks). Without it, a run that does not
use the options gets one report-header line, and one that does (``--honcho-url URL``)
stops with one line naming the extra to install.
"""

from __future__ import annotations

import pytest

from contract_tests.options import given
from fake_honcho._extras import CONTRACT, missing, missing_line

_ABSENT = missing(CONTRACT)

pytest_plugins = ["contract_tests.options"] + ([] if _ABSENT else ["contract_tests.plugin"])


def pytest_configure(config: pytest.Config) -> None:
    used = given(config) if _ABSENT else []
    if used:
        raise pytest.UsageError(missing_line(f"honcho_contract: {used[0]}", "contract", _ABSENT))


def pytest_report_header() -> str | None:
    if not _ABSENT:
        return None
    return missing_line("honcho_contract: disabled", "contract", _ABSENT)
