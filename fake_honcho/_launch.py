"""The console scripts: a clear error when the ``fake`` extra is missing.

``fake-honcho`` (``main``) and ``fake-honcho-llm`` (``llm``, the stand-in LLM) both need
the ``fake`` extra; each checks it before importing its CLI.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from fake_honcho._extras import FAKE, missing, missing_line


def main(argv: Sequence[str] | None = None) -> int:
    return _launch("fake-honcho", "fake_honcho.cli", argv)


def llm(argv: Sequence[str] | None = None) -> int:
    return _launch("fake-honcho-llm", "fake_honcho.standin.cli", argv)


def _launch(prog: str, module: str, argv: Sequence[str] | None) -> int:
    absent = missing(FAKE)
    if absent:
        print(f"{missing_line(f'{prog}: error', 'fake', absent)}", file=sys.stderr)
        return 2
    status: int = importlib.import_module(module).main(argv)
    return status
