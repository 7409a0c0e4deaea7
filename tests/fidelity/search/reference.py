"""A reference of Honcho's search query over a recorded corpus, for any scan order.

It applies the server's rules directly (``to_tsvector @@ plainto_tsquery`` or literal
``ILIKE``, ``ts_rank``, ``created_at``, the sort's tie order), so the replay can tell
which order the real server's plan read the rows in: by ``(session, seq_in_session)``,
as the fake does, or in physical table order (recorded through ``psql``).
"""

from __future__ import annotations

from fake_honcho.search.chars import pg_lower
from fake_honcho.search.embedding import HashedEmbedder
from fake_honcho.search.english import plainto_tsquery, to_tsvector
from fake_honcho.search.index import has_special_chars
from fake_honcho.search.pgsort import top
from fake_honcho.search.rank import rank
from tests.fidelity.search.corpora import Query
from tests.fidelity.search.generate import Corpus


def visible(made: Corpus, query: Query, perspective: bool = True) -> list[bool]:
    """Which messages the query's scope and filters keep (peer_perspective included
    unless ``perspective`` is False).

    A peer's ``joined_at`` in a session is restarted by every batch it writes there
    (Honcho re-joins a message's author), so its perspective starts at that batch.
    """
    filters = dict(query.filters or {})
    if query.scope[0] == "session":
        filters["session_id"] = query.scope[1]
    if query.scope[0] == "peer":
        filters["peer_id"] = query.scope[1]
    viewer = filters.get("peer_perspective") if perspective else None
    since: dict[str, int] = {}
    if viewer is not None:
        for number, (sid, batch) in enumerate(made.batches):
            if any(peer == viewer for peer, _ in batch):
                since[sid] = number
    kept: list[bool] = []
    for number, (sid, batch) in enumerate(made.batches):
        for peer, _ in batch:
            keep = filters.get("session_id", sid) == sid and filters.get("peer_id", peer) == peer
            if viewer is not None:
                keep = keep and number >= since.get(sid, 0)
            kept.append(keep)
    return kept


def answer(made: Corpus, query: Query, order: list[int], keep: int | None = None) -> list[int]:
    """The positions the server returns when its scan reads messages in ``order``
    (``keep``: how many of the ``2 * limit`` rows its query fetches to keep; the route
    answers ``limit``)."""
    texts = [text for _, _, text in made.messages()]
    batch = [number for number, (_, rows) in enumerate(made.batches) for _ in rows]
    kept = visible(made, query)
    special = has_special_chars(query.query)
    wanted = plainto_tsquery(query.query)
    needle = pg_lower(query.query)
    hits: list[int] = []
    keys: list[tuple[float, int]] = []
    for at in order:
        if not kept[at]:
            continue
        vector = to_tsvector(texts[at])
        matched = not special and bool(wanted) and all(lexeme in vector for lexeme in wanted)
        if matched or needle in pg_lower(texts[at]):
            score = 0.0
            if not special and vector:
                score = rank({lexeme: vector.get(lexeme, []) for lexeme in wanted}, wanted)
            hits.append(at)
            keys.append((-score, -batch[at]))
    return [hits[at] for at in top(keys, 2 * query.limit)[: keep or query.limit]]


def hybrid(
    made: Corpus, query: Query, order: list[int], embedded: list[int] | None = None
) -> list[int]:
    """The answer of a server that embeds (with the stand-in's embedder), its full-text
    leg reading messages in ``order`` and its semantic leg their embedding rows in
    ``embedded`` order (default: as written): the semantic list (``2 * limit`` messages,
    ``4 *`` under ``peer_perspective``, which then filters it) fused with ``2 * limit``
    full-text rows by reciprocal rank (k = 60; equal scores in first-seen order)."""
    texts = [text for _, _, text in made.messages()]
    wanted = (4 if (query.filters or {}).get("peer_perspective") else 2) * query.limit
    kept, seen = visible(made, query, perspective=False), visible(made, query)
    embedder = HashedEmbedder()
    target = embedder.encode(query.query)
    scan = range(len(texts)) if embedded is None else embedded
    rows = [at for at in scan if kept[at] and texts[at].strip()]
    distances = [embedder.distance(target, embedder.encode(texts[at])) for at in rows]
    nearest = [rows[at] for at in top(distances, 2 * wanted)][:wanted]
    semantic = [at for at in nearest if seen[at]]
    scores: dict[int, float] = {}
    for ranked in (semantic, answer(made, query, order, keep=2 * query.limit)):
        for place, at in enumerate(ranked, 1):
            scores[at] = scores.get(at, 0.0) + 1.0 / (60 + place)
    return sorted(scores, key=scores.__getitem__, reverse=True)[: query.limit]


def session_order(made: Corpus) -> list[int]:
    """Message positions by (session id, position in the session): the fake's scan order."""
    messages = made.messages()
    seen: dict[str, int] = {}
    keyed: list[tuple[str, int, int]] = []
    for at, (sid, _, _) in enumerate(messages):
        seen[sid] = seen.get(sid, 0) + 1
        keyed.append((sid, seen[sid], at))
    return [at for _, _, at in sorted(keyed)]
