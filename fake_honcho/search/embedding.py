"""The one embedder shared by the fake and the stand-in LLM (``fake-honcho-llm``).

A real Honcho wired to the stand-in stores exactly the vectors the fake computes, so
both rank messages and conclusions alike. The default, :class:`HashedEmbedder`, is
deterministic, cheap and built for exact comparison:

* the first ``dimensions - 32`` dimensions hold one bucket per search term of the text
  (``fake_honcho.search.terms``, hashed), weight 64, so texts sharing terms point the
  same way (lexical recall, no semantics);
* the last 32 hold small pseudo-random integers (-15..15) picked by the whole text
  (case and outer spaces aside), so every two texts are a little near or far from each
  other, as a model's are: a query sharing no word with any message still ranks them,
  and distances practically never tie.

Every component is an integer, and every sum pgvector forms from them stays below
2**24, so its single-precision arithmetic is exact in whatever order its vectorised
loop adds: the fake's cosine distance (:func:`cosine_distance`, pgvector's formula in
double precision) equals the server's bit for bit.

Any other embedder is a callable from a text to its vector (``FakeHoncho(embedder=)``,
``fake-honcho-llm --embedder module:callable``), wrapped in :class:`CallableEmbedder`;
a model's vectors then give semantic recall ("food" finds "pizza").
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import math
import struct
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import mul
from typing import Protocol

from fake_honcho.search import terms

__all__ = [
    "DIMENSIONS",
    "ENCODING",
    "MAX_INPUT_TOKENS",
    "CallableEmbedder",
    "Embedder",
    "HashedCode",
    "HashedEmbedder",
    "VectorFunction",
    "encode_base64",
    "pg_cosine_distance",
    "resolve",
]

DIMENSIONS = 1536
"""Honcho's ``EMBEDDING.VECTOR_DIMENSIONS``."""

MAX_INPUT_TOKENS = 8192
"""Honcho's ``EMBEDDING.MAX_INPUT_TOKENS``: longer queries are refused, longer
messages chunked."""

ENCODING = "cl100k_base"
"""The tokenizer of Honcho's default embedding model (``text-embedding-3-small``)."""

_DENSE = 32
_DENSE_RANGE = 15
_TERM_WEIGHT = 64

_SHIFTED = bytes(byte % (2 * _DENSE_RANGE + 1) for byte in range(256))
_SQUARES = bytes(  # a shifted value's square, for the norm (a byte: at most 225)
    (value - _DENSE_RANGE) ** 2 if value <= 2 * _DENSE_RANGE else 0 for value in range(256)
)

VectorFunction = Callable[[str], Sequence[float]]
"""A user's embedder: text in, vector out (any fixed length)."""


class Embedder(Protocol):
    """What the fake needs of an embedder: a compact code per text, and distances."""

    def encode(self, text: str) -> object:
        """The text's embedding in whatever form :meth:`distance` reads."""
        ...

    def distance(self, query: object, item: object) -> float:
        """pgvector's cosine distance (``<=>``) between two encoded texts."""
        ...

    def vector(self, text: str, dimensions: int = DIMENSIONS) -> list[float]:
        """The vector as the embeddings API sends it."""
        ...


@dataclass(frozen=True, slots=True)
class HashedCode:
    """A :class:`HashedEmbedder` vector, stored small: its term buckets (ascending), its
    dense tail plus 15 (one byte each) and its squared norm."""

    buckets: array[int]
    shifted: bytes
    norm: int

    @property
    def dense(self) -> tuple[int, ...]:
        """The dense tail's values (-15..15)."""
        return tuple(value - _DENSE_RANGE for value in self.shifted)


class HashedEmbedder:
    """The default embedder (see the module's docstring)."""

    name = "hashed"

    def encode(self, text: str, dimensions: int = DIMENSIONS) -> HashedCode:
        span = dimensions - _DENSE
        buckets = array("I", sorted({_bucket(term, span) for term in terms(text)}))
        digest = hashlib.blake2b(text.strip().lower().encode(), digest_size=_DENSE).digest()
        shifted = digest.translate(_SHIFTED)  # each byte % 31: a value -15..15, plus 15
        if shifted.count(_DENSE_RANGE) == _DENSE:  # every value 0: the first is made 1
            shifted = bytes((_DENSE_RANGE + 1,)) + shifted[1:]
        norm = len(buckets) * _TERM_WEIGHT * _TERM_WEIGHT + sum(shifted.translate(_SQUARES))
        return HashedCode(buckets, shifted, norm)

    def distance(self, query: object, item: object) -> float:
        assert isinstance(query, HashedCode) and isinstance(item, HashedCode)
        shared = len(set(query.buckets).intersection(item.buckets)) * _TERM_WEIGHT * _TERM_WEIGHT
        return pg_cosine_distance(
            shared + sum(map(mul, query.dense, item.dense)), query.norm, item.norm
        )

    def vector(self, text: str, dimensions: int = DIMENSIONS) -> list[float]:
        code = self.encode(text, dimensions)
        vector = [0.0] * dimensions
        for bucket in code.buckets:
            vector[bucket] = float(_TERM_WEIGHT)
        vector[dimensions - _DENSE :] = map(float, code.dense)
        return vector


class CallableEmbedder:
    """A user's vector function as an :class:`Embedder` (float32 vectors, as pgvector
    stores them)."""

    def __init__(self, function: VectorFunction, name: str | None = None) -> None:
        self.function = function
        self.name = name or getattr(function, "__name__", type(function).__name__)

    def encode(self, text: str) -> tuple[array[float], float]:
        values = array("f", self.function(text))
        return values, math.fsum(value * value for value in values)

    def distance(self, query: object, item: object) -> float:
        assert isinstance(query, tuple) and isinstance(item, tuple)
        (values, norm), (other, other_norm) = query, item
        return pg_cosine_distance(math.fsum(map(mul, values, other)), norm, other_norm)

    def vector(self, text: str, dimensions: int = DIMENSIONS) -> list[float]:
        """The vector padded with zeros to ``dimensions`` (Honcho checks the length;
        zeros change no cosine distance)."""
        values = self.encode(text)[0].tolist()
        if len(values) > dimensions:
            raise ValueError(f"{self.name} gives {len(values)} dimensions, over {dimensions}")
        return values + [0.0] * (dimensions - len(values))


def pg_cosine_distance(dot: float, norm_a: float, norm_b: float) -> float:
    """pgvector's ``cosine_distance`` from the dot product and squared norms."""
    product = float(norm_a) * float(norm_b)
    if product == 0:
        return math.nan
    similarity = dot / math.sqrt(product)
    return 1.0 - max(-1.0, min(1.0, similarity))


def resolve(spec: Embedder | VectorFunction | str | None) -> Embedder:
    """An :class:`Embedder` from what a user gave: None (the default), an embedder,
    a vector function, or ``"module:attribute"`` naming either."""
    if spec is None or spec == HashedEmbedder.name:
        return HashedEmbedder()
    if isinstance(spec, str):
        module, _, attribute = spec.partition(":")
        if not module or not attribute:
            raise ValueError(f"an embedder is 'module:callable', not {spec!r}")
        found = getattr(importlib.import_module(module), attribute)
        if isinstance(found, type):
            found = found()
        return resolve(found)
    if hasattr(spec, "encode") and hasattr(spec, "distance") and hasattr(spec, "vector"):
        return spec  # type: ignore[return-value]
    if callable(spec):
        return CallableEmbedder(spec)
    raise TypeError(f"not an embedder: {spec!r}")


def encode_base64(vector: Sequence[float]) -> str:
    """OpenAI's ``encoding_format=base64``: the float32 bytes, little-endian."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def _bucket(text: str, size: int) -> int:
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % size
