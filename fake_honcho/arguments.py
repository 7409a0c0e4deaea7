"""argparse for the kit's commands: a mistake in the options is one line that says what to do.

argparse prints its whole usage (a dozen lines for ``fake-honcho``) before the line that
says what is wrong; :class:`OneLineParser` prints only that line, and where the full help
is. ``--help`` is argparse's own, complete.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["MAX_PORT", "OneLineParser", "port"]

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
