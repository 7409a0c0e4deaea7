"""Message search as Honcho's PostgreSQL runs it: full text, and with EMBED_MESSAGES on,
the semantic leg fused with it.

The pieces, each after the PostgreSQL 15 source it follows:

* :mod:`.chars`: character classes and ``lower()`` of the server's ``C.UTF-8`` locale;
* :mod:`.grammar`, :mod:`.parser`: the default text-search parser (``wparser_def.c``);
* :mod:`.english`: the ``english`` configuration, ``to_tsvector``/``plainto_tsquery``;
* :mod:`.rank`: ``ts_rank`` (``tsrank.c``) in single precision;
* :mod:`.pgsort`: the order ``ORDER BY ... LIMIT`` leaves ties in (``tuplesort.c``);
* :mod:`.index`: the inverted index and Honcho's query over it (``src/utils/search.py``);
* :mod:`.semantic`: message embeddings, the semantic leg and reciprocal rank fusion;
* :mod:`.embedding`: the embedder the fake and the stand-in LLM share (pgvector's distance).
"""

from fake_honcho.search.english import terms
from fake_honcho.search.index import (
    PENDING_LIMIT,
    SearchIndex,
    has_special_chars,
    search_index,
    sortable_timestamp,
)

__all__ = [
    "PENDING_LIMIT",
    "SearchIndex",
    "has_special_chars",
    "search_index",
    "sortable_timestamp",
    "terms",
]
