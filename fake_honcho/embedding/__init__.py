"""The documented path of the one embedder shared by the fake and the stand-in LLM.

It lives in ``fake_honcho.search.embedding``, beside the search that ranks by it.
"""

from fake_honcho.search.embedding import (
    DIMENSIONS,
    ENCODING,
    MAX_INPUT_TOKENS,
    CallableEmbedder,
    Embedder,
    HashedEmbedder,
    VectorFunction,
    encode_base64,
    pg_cosine_distance,
    resolve,
)

__all__ = [
    "DIMENSIONS",
    "ENCODING",
    "MAX_INPUT_TOKENS",
    "CallableEmbedder",
    "Embedder",
    "HashedEmbedder",
    "VectorFunction",
    "encode_base64",
    "pg_cosine_distance",
    "resolve",
]
