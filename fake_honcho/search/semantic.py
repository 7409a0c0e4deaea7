"""Message embeddings and the semantic leg of Honcho's hybrid search (``EMBED_MESSAGES``).

What the server does (``src/crud/message.py``, ``src/reconciler/embed_now.py`` and
``src/utils/search.py`` at v3.0.12; 3.1 the same):

* a message with non-blank content gets one embedding row per chunk: content over
  8,192 ``cl100k_base`` tokens is cut into windows of 8,192 tokens, each starting
  6,554 tokens after the last (20% overlap); the vectors are written after the
  answer, by a background task. A cloned session's messages get none.
* the semantic list is ``ORDER BY cosine_distance LIMIT 2 * n`` over those rows (the
  route's scope and the body's filters applied, ``peer_perspective`` not), de-duplicated
  by message and cut to ``n``; ``n`` is ``2 * limit``, ``4 * limit`` under
  ``peer_perspective``, which then keeps the messages the peer saw.
* the answer fuses it with the full-text list (``2 * limit`` rows) by reciprocal rank
  (:func:`reciprocal_rank_fusion`).

:class:`MessageEmbeddings` keeps the fake's vectors (a store listener), embedding new
messages at the next search (``"immediate"``) or only once released (``"held"``), so a
client can test a search right after a write both ways.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal, TypeVar

from fake_honcho.search.embedding import ENCODING, MAX_INPUT_TOKENS, Embedder, HashedEmbedder
from fake_honcho.search.nearest import HashedRows
from fake_honcho.search.pgsort import first
from fake_honcho.store.state import Key, Row, Store

EmbeddingMode = Literal["immediate", "held"]
EMBEDDING_MODES: tuple[EmbeddingMode, ...] = ("immediate", "held")

RRF_K = 60
_OVERLAP = 0.2

T = TypeVar("T", bound=Hashable)


def _encoding() -> Any:
    from fake_honcho.store.tokens import load

    return load(ENCODING)


def query_refusal(query: str) -> str | None:
    """The 422 detail for a query the embedding client refuses (over the token limit,
    or spelling a special token, which tiktoken's ``encode`` refuses), else None."""
    if "<|" in query and any(token in query for token in _encoding().special_tokens_set):
        return f"Query exceeds maximum token limit of {MAX_INPUT_TOKENS}."
    if len(query) > MAX_INPUT_TOKENS and len(token_ids(query)) > MAX_INPUT_TOKENS:
        return f"Query exceeds maximum token limit of {MAX_INPUT_TOKENS}."
    return None


def token_ids(text: str) -> list[int]:
    """The embedding model's tokens of ``text`` (``cl100k_base``)."""
    return list(_encoding().encode_ordinary(text))  # lone surrogates: read as U+FFFD


def chunks(content: str) -> list[str]:
    """``embedding_client.prepare_chunks``: the texts embedded for one message."""
    if len(content) <= MAX_INPUT_TOKENS:
        return [content]
    ids = token_ids(content)
    if len(ids) <= MAX_INPUT_TOKENS:
        return [content]
    step = MAX_INPUT_TOKENS - int(MAX_INPUT_TOKENS * _OVERLAP)
    decode = _encoding().decode
    return [decode(ids[start : start + MAX_INPUT_TOKENS]) for start in range(0, len(ids), step)]


def reciprocal_rank_fusion(*ranked: Sequence[T], limit: int, k: int = RRF_K) -> list[T]:
    """Honcho's ``reciprocal_rank_fusion``: summed ``1 / (k + rank)``, highest first;
    equal scores keep the order items were first seen (the semantic list's first)."""
    scores: dict[T, float] = {}
    for items in ranked:
        for rank, item in enumerate(items, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=scores.__getitem__, reverse=True)[:limit]


class Nearness:
    """Texts ranked by embedding distance to a query, as pgvector's ``ORDER BY`` does
    (conclusion queries, a representation's ``search_query``); each text is embedded
    once (a bounded cache), as the server stores one vector per conclusion."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._encode = lru_cache(maxsize=16384)(embedder.encode)

    def ranked(
        self, query: str, rows: Sequence[Row], *, top_k: int, max_distance: float | None = None
    ) -> list[Row]:
        """``WHERE distance <= max_distance ORDER BY distance LIMIT top_k`` over ``rows``
        (their ``content``), equal distances in the rows' order."""
        if top_k <= 0 or not rows:
            return []
        target = self._encode(query)
        distance = self.embedder.distance
        keys: list[float] = []
        kept: list[Row] = []
        for row in rows:
            near = distance(target, self._encode(row["content"]))
            if max_distance is not None and not near <= max_distance:
                continue
            keys.append(near if near == near else math.inf)
            kept.append(row)
        return [kept[at] for at in first(keys, top_k, min(top_k, len(keys)))] if keys else []


@dataclass(slots=True)
class _Embedded:
    """One message's embedding rows (their numbers in the workspace's row list)."""

    session_id: str
    peer_id: str | None
    rows: list[int]


@dataclass
class _Workspace:
    """A workspace's embedding rows, in the order they were written."""

    messages: dict[str, _Embedded] = field(default_factory=dict)  # by id, in embedding order
    owners: list[str | None] = field(default_factory=list)  # per row; None once deleted
    codes: list[object] = field(default_factory=list)
    nearest: HashedRows | None = None  # the default embedder's rows, for an exact top-k
    dead: int = 0


class MessageEmbeddings:
    """The fake's message embedding rows, kept from the store's messages.

    ``mode`` ``"immediate"``: a message is embedded before the next search reads the
    embeddings (the server's background task, finished). ``"held"``: messages wait
    (:attr:`pending`) until :meth:`release`, as when the task has not run yet.
    """

    def __init__(self, store: Store, embedder: Embedder, mode: EmbeddingMode = "immediate") -> None:
        if mode not in EMBEDDING_MODES:
            raise ValueError(f"embedding mode must be one of {', '.join(EMBEDDING_MODES)}")
        self.store = store
        self.embedder = embedder
        self.mode: EmbeddingMode = mode
        self._workspaces: dict[str, _Workspace] = {}
        self._pending: dict[str, Row] = {}
        self._unembedded: set[str] = set()  # ids stored without embeddings (clones)
        with store.lock:
            for row in store.rows("messages"):
                self._pending[row["id"]] = row
            store.subscribe(self._on_change, collections=("messages",))

    @property
    def pending(self) -> int:
        """Messages stored whose embeddings are not written yet."""
        return len(self._pending)

    def without_embeddings(self, ids: Iterable[str]) -> None:
        """Store the next messages of these ids with no embedding (a session's clone)."""
        self._unembedded.update(ids)

    def release(self) -> int:
        """Write the embeddings of every pending message; how many messages that was."""
        with self.store.lock:
            pending, self._pending = self._pending, {}
            for row in pending.values():
                self._embed(row)
            return len(pending)

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if old is None and new is not None:
            mid = new["id"]
            if mid in self._unembedded:
                self._unembedded.discard(mid)
            elif new["content"].strip():
                self._pending[mid] = new
        elif old is not None and new is None:
            mid = old["id"]
            self._pending.pop(mid, None)
            space = self._workspaces.get(old["workspace_id"])
            gone = space.messages.pop(mid, None) if space is not None else None
            if space is not None and gone is not None:
                for row in gone.rows:
                    space.owners[row] = None
                    if space.nearest is not None:
                        space.nearest.discard(row)
                space.dead += len(gone.rows)
                if space.dead > 1000 and space.dead * 2 > len(space.owners):
                    self._rebuild(old["workspace_id"], space)

    def _rebuild(self, workspace_id: str, space: _Workspace) -> None:
        """Drop a workspace's deleted rows (the live ones keep their order)."""
        fresh = self._workspaces[workspace_id] = _Workspace()
        for mid, embedded in space.messages.items():
            codes = [space.codes[row] for row in embedded.rows]
            self._add(fresh, mid, embedded.session_id, embedded.peer_id, codes)

    def _embed(self, row: Row) -> None:
        space = self._workspaces.get(row["workspace_id"])
        if space is None:
            space = self._workspaces[row["workspace_id"]] = _Workspace()
        codes = [self.embedder.encode(text) for text in chunks(row["content"])]
        self._add(space, row["id"], row["session_id"], row.get("peer_id"), codes)

    def _add(
        self, space: _Workspace, mid: str, session: str, peer: str | None, codes: list[object]
    ) -> None:
        if space.nearest is None and isinstance(self.embedder, HashedEmbedder):
            space.nearest = HashedRows()
        start = len(space.owners)
        space.owners.extend([mid] * len(codes))
        space.codes.extend(codes)
        if space.nearest is not None:
            for code in codes:
                space.nearest.add(code)  # type: ignore[arg-type]
        space.messages[mid] = _Embedded(session, peer, list(range(start, len(space.owners))))

    def nearest(
        self,
        workspace_id: str,
        query: str,
        *,
        limit: int,
        session_id: str | None = None,
        peer_id: str | None = None,
        where: Callable[[Row], bool] | None = None,
    ) -> list[Row]:
        """The semantic list: up to ``limit`` messages, nearest first (see the module)."""
        with self.store.lock:
            if self.mode == "immediate" and self._pending:
                self.release()
            space = self._workspaces.get(workspace_id)
            if space is None or limit <= 0:
                return []
            target = self.embedder.encode(query)
            rows = None
            if session_id is None and peer_id is None and where is None:
                rows = self._nearest_rows(space, target, 2 * limit)
            if rows is None:
                rows = self._every_row_sorted(space, target, 2 * limit, session_id, peer_id, where)
            seen = dict.fromkeys(map(space.owners.__getitem__, rows))  # first seen first
            live = [mid for mid in seen if mid is not None][:limit]  # None: deleted
            found = (self.store.get("messages", mid) for mid in live)
            return [row for row in found if row is not None]

    def _every_row_sorted(
        self,
        space: _Workspace,
        target: object,
        count: int,
        session_id: str | None,
        peer_id: str | None,
        where: Callable[[Row], bool] | None,
    ) -> list[int]:
        """``ORDER BY distance LIMIT count`` over the rows the scope and filters keep,
        read in the order they were written (ties: PostgreSQL's sort, replayed)."""
        distance = self.embedder.distance
        get = self.store.get
        keys: list[float] = []  # the rows' distances, in the order the scan reads them
        rows: list[int] = []
        for mid, embedded in space.messages.items():
            if (session_id is not None and embedded.session_id != session_id) or (
                peer_id is not None and embedded.peer_id != peer_id
            ):
                continue
            if where is not None:
                message = get("messages", mid)
                if message is None or not where(message):
                    continue
            for row in embedded.rows:
                keys.append(_sortable(distance(target, space.codes[row])))
                rows.append(row)
        rows_in_order = sorted(range(len(rows)), key=rows.__getitem__)
        keys = [keys[at] for at in rows_in_order]
        rows = [rows[at] for at in rows_in_order]
        return [rows[at] for at in first(keys, count, min(count, len(keys)))] if keys else []

    def _nearest_rows(self, space: _Workspace, target: object, count: int) -> list[int] | None:
        """The workspace's ``count`` nearest rows (:class:`HashedRows`: every row within
        rounding of the cut compared by exact distance); None (the caller sorts every
        row) when the embedder has no such index or two of the nearest tie exactly (the
        sort's tie order then needs all rows)."""
        if space.nearest is None:
            return None
        wanted = min(count, len(space.owners) - space.dead)
        if wanted == 0:
            return []
        ranked = space.nearest.nearest(target, wanted)  # type: ignore[arg-type]
        ordered = sorted(ranked, key=itemgetter(1))  # never NaN: every code has a norm
        head = list(map(itemgetter(1), ordered[: wanted + 1]))
        if len(set(head)) < len(head):  # a tie among the nearest, or at the cut
            return None
        return list(map(itemgetter(0), ordered[:wanted]))


def _sortable(distance: float) -> float:
    """NaN (a zero vector) sorts after every distance, as in PostgreSQL."""
    return distance if distance == distance else math.inf
