"""The ``fake-honcho`` console script: a clear error when the ``fake`` extra is missing."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from fake_honcho._extras import FAKE, missing, missing_line


def main(argv: Sequence[str] | None = None) -> int:
    absent = missing(FAKE)
    if absent:
        print(f"{missing_line('fake-honcho: error', 'fake', absent)}", file=sys.stderr)
        return 2
    from fake_honcho.cli import main as serve

    return serve(argv)
