"""argparse for the kit's commands: a mistake in the options is one line that says what to do.

argparse prints its whole usage (a dozen lines for ``fake-honcho``) before the line that
says what is wrong; :class:`OneLineParser` prints only that line, and where the full help
is. ``--help`` is argparse's own, complete.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from fake_honcho.search.embedding import Embedder, resolve

__all__ = ["MAX_PORT", "OneLineParser", "embedder", "port"]

MAX_PORT = 65535


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are ``PROG: error: MESSAGE (PROG --help lists
    the options)`` alone, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} ('{self.prog} --help' lists the options)\n")


def port(text: str) -> int:
    """A ``--port`` value: 0..65535, 0 asking the OS for a free one."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"must be an integer 0..{MAX_PORT}, got {text!r}")
    return number


def embedder(text: str) -> Embedder:
    """An ``--embedder MODULE:CALLABLE`` value, imported now: a name that does not import
    is a mistake in the options, not a traceback at start."""
    try:
        return resolve(text)
    except (ImportError, AttributeError, ValueError, TypeError) as problem:
        raise argparse.ArgumentTypeError(
            f"{problem} (give MODULE:CALLABLE, a function of a text importable here)"
        ) from None
