"""Message search as Honcho answers it: full text alone, or, with EMBED_MESSAGES on, the
full-text leg (``2 * limit`` rows) and the semantic leg fused by reciprocal rank; the
body's ``filters`` (and their ``peer_perspective``) tested on each hit."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fake_honcho.errors import HonchoError
from fake_honcho.search.index import search_index, sortable_timestamp
from fake_honcho.search.semantic import MessageEmbeddings, query_refusal, reciprocal_rank_fusion
from fake_honcho.store.filters import MESSAGE, Dialect, Predicate, compile_filter
from fake_honcho.store.grouping import PEER_SESSIONS, grouped
from fake_honcho.store.state import Row, Store

__all__ = ["RowTest", "search_messages", "seen_by"]

RowTest = Callable[[Row], bool]


def search_messages(
    store: Store,
    embeddings: MessageEmbeddings | None,
    ws: str,
    query: str,
    *,
    limit: int,
    scope: Mapping[str, str],
    filters: dict[str, Any] | None,
    dialect: Dialect,
) -> list[Row]:
    """The messages of ``ws`` (of the route's session or peer: ``scope``, whose keys
    override the body's ``filters``) matching ``query``, best first, ``filters`` read in
    ``dialect``."""
    # the filters are compiled first (their refusals come first), then the query is
    # embedded (its refusal comes before either leg runs)
    where, visible = _tests(store, ws, scope, filters, dialect) if filters else (None, None)
    if embeddings is not None:
        refused = query_refusal(query)
        if refused is not None:
            raise HonchoError(422, refused)
    session_id, peer_id = scope.get("session_id"), scope.get("peer_id")
    rows = search_index(store).search(
        ws,
        query,
        where=_both(where, visible),
        limit=limit,
        session_id=session_id,
        peer_id=peer_id,
        keep=None if embeddings is None else 2 * limit,
    )
    if embeddings is None:
        return rows
    semantic = embeddings.nearest(
        ws,
        query,
        limit=(4 if visible else 2) * limit,
        session_id=session_id,
        peer_id=peer_id,
        where=where,
    )
    if visible is not None:
        semantic = list(filter(visible, semantic))
    return _fuse(semantic, rows, limit)


def _fuse(semantic: list[Row], fulltext: list[Row], limit: int) -> list[Row]:
    """Both lists fused by reciprocal rank, as the server fuses its message objects."""
    by_id = {row["id"]: row for row in (*fulltext, *semantic)}
    ids = reciprocal_rank_fusion(
        [row["id"] for row in semantic], [row["id"] for row in fulltext], limit=limit
    )
    return [by_id[mid] for mid in ids]


def _tests(
    store: Store, ws: str, scope: Mapping[str, str], given: dict[str, Any], dialect: Dialect
) -> tuple[RowTest | None, RowTest | None]:
    """The tests the body's ``filters`` put on each hit: the filters proper (``where``),
    and ``peer_perspective``'s window (``visible``: kept apart, as the server's semantic
    leg applies it after its ``LIMIT``). The index applies the route's own scope."""
    filters = dict(given)
    perspective = filters.pop("peer_perspective", None)
    filters.update({"workspace_id": ws, **scope})
    predicate = (
        compile_filter(filters, MESSAGE, dialect)
        if filters.keys() - {"workspace_id", *scope}
        else None
    )
    where = None if predicate is None else _known_true(predicate)
    visible = None if perspective is None else seen_by(store, ws, str(perspective))
    return where, visible


def _known_true(predicate: Predicate) -> RowTest:
    return lambda row: predicate(row) is True


def _both(where: RowTest | None, visible: RowTest | None) -> RowTest | None:
    if where is None or visible is None:
        return where or visible
    return lambda row: visible(row) and where(row)


def seen_by(store: Store, ws: str, peer: str) -> RowTest:
    """``peer_perspective``: messages of sessions the peer was in, while it was in them."""
    windows = {
        sid: (row["joined_at"], row["left_at"])
        for sid, row in grouped(store, PEER_SESSIONS, ws, peer).items()
    }

    def visible(row: Row) -> bool:
        window = windows.get(row["session_id"])
        if window is None:
            return False
        joined, left = window
        stamp = row["created_at"]
        return sortable_timestamp(stamp) >= sortable_timestamp(joined) and (
            left is None or sortable_timestamp(stamp) <= sortable_timestamp(left)
        )

    return visible
