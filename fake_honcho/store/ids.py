"""Generated ids and timestamps in Honcho's formats."""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime

NANOID_ALPHABET = "_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
NANOID_SIZE = 21
# The alphabet has 64 symbols, so the low 6 bits of a random byte pick one uniformly.
_BYTE_TO_SYMBOL = bytes(ord(NANOID_ALPHABET[byte & 63]) for byte in range(256))


class IdFactory:
    """21-character nanoids; seedable so two fakes given the same seed agree byte for byte."""

    def __init__(self, seed: int | None = None) -> None:
        # Random.randbytes(n) is getrandbits(8 * n).to_bytes(n, "little") (the same
        # bytes, a Python frame less per id); SystemRandom's is os.urandom(n).
        self._bits = random.Random(seed).getrandbits if seed is not None else None

    def __call__(self) -> str:
        if self._bits is None:
            return os.urandom(NANOID_SIZE).translate(_BYTE_TO_SYMBOL).decode("ascii")
        raw = self._bits(8 * NANOID_SIZE).to_bytes(NANOID_SIZE, "little")
        return raw.translate(_BYTE_TO_SYMBOL).decode("ascii")


def utc_now() -> datetime:
    return datetime.now(UTC)


def isoformat(moment: datetime) -> str:
    """ISO-8601 UTC with ``Z``, microseconds only when non-zero, as Honcho serialises."""
    if moment.tzinfo is not UTC:  # converting a UTC time only copies it
        moment = moment.astimezone(UTC)
    return moment.isoformat()[:-6] + "Z"  # "+00:00" off: quicker than a naive copy
