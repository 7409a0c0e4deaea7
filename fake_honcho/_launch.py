"""The console scripts: ``--version``, and a clear error when the ``fake`` extra is missing.

``fake-honcho`` (``main``) and ``fake-honcho-llm`` (``llm``, the stand-in LLM) both need
the ``fake`` extra; each checks it before importing its CLI. ``--version`` is answered
here, before that check, so it works on any install.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from fake_honcho._extras import FAKE, missing, missing_line
from fake_honcho._version import version_line


def main(argv: Sequence[str] | None = None) -> int:
    return _launch("fake-honcho", "fake_honcho.cli", argv)


def llm(argv: Sequence[str] | None = None) -> int:
    return _launch("fake-honcho-llm", "fake_honcho.standin.cli", argv)


def _launch(prog: str, module: str, argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        print(version_line(prog))
        return 0
    absent = missing(FAKE)
    if absent:
        print(f"{missing_line(f'{prog}: error', 'fake', absent)}", file=sys.stderr)
        return 2
    status: int = importlib.import_module(module).main(args)
    return status
