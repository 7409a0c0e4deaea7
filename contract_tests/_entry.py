"""The ``pytest11`` entry point: cheap, and harmless without the ``contract`` extra.

pytest loads this in every run of every project the kit is installed in. With
the extra present it pulls in :mod:`contract_tests.plugin` (which registers its
options and markers and imports heavy modules only inside fixtures and hooks);
without it, it registers nothing and says so in one report-header line.
"""

from __future__ import annotations

from fake_honcho._extras import CONTRACT, missing, missing_line

_ABSENT = missing(CONTRACT)

pytest_plugins = [] if _ABSENT else ["contract_tests.plugin"]


def pytest_report_header() -> str | None:
    if not _ABSENT:
        return None
    return missing_line("honcho_contract: disabled", "contract", _ABSENT)
