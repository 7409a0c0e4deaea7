"""Deterministic embeddings: texts that share search terms point the same way.

A vector has two parts. The first 1024 dimensions count the text's search terms
(``fake_honcho.search.terms``), each hashed to one dimension, so cosine similarity
grows with shared terms, as the fake's lexical recall does. The last 512 carry one
dimension picked by the whole text (case and outer spaces aside) with the weight of
all its terms, so two different texts with the same terms stay well below the 0.95
similarity at which Honcho merges conclusions, while a repeat matches exactly.
Vectors are unit length; base64 output is little-endian float32, as OpenAI's.
"""

from __future__ import annotations

import base64
import hashlib
import math
import struct

from fake_honcho.search import terms

DIMENSIONS = 1536
_TERM_SPAN = 1024


def embed(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """The unit vector for ``text`` (``dimensions`` long, at least 2)."""
    span = max(1, min(_TERM_SPAN, dimensions * 2 // 3))
    vector = [0.0] * dimensions
    found = terms(text)
    for term in found:
        vector[_bucket(term, span)] += 1.0
    identity = span + _bucket(text.strip().lower(), dimensions - span)
    vector[identity] = math.sqrt(max(1, len(found)))
    norm = math.sqrt(sum(value * value for value in vector))
    return [value / norm for value in vector]


def encode_base64(vector: list[float]) -> str:
    """OpenAI's ``encoding_format=base64``: the float32 bytes, little-endian."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def _bucket(text: str, size: int) -> int:
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % size
