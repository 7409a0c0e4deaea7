"""Message search as Honcho runs it with message embedding off, over an inverted index.

The server (``src/utils/search.py``) has two modes:

* a query with punctuation (``~`!@#$%^&*()_+=[]{};':"\\|,.<>/?-``) is a plain
  ``ILIKE '%query%'``, newest first;
* any other query matches messages whose text search vector holds every query term
  (``plainto_tsquery``) *or* whose content contains the query (``ILIKE``), ordered by
  ``ts_rank`` and then newest first.

The index keeps, per workspace, a posting array (message sequence numbers, one entry
per occurrence) for every stemmed non-stop-word term, plus the raw words seen. Term
queries intersect postings; substring queries first narrow the candidates to messages
holding, for each word of the query, some word that contains it, then confirm with the
real pattern. The substring leg of a term query runs only when the term matches
cannot fill ``limit`` (its hits rank 0, below every term match). Score = summed term
frequency; ties go to the newest ``created_at``.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from fake_honcho.state import Key, Row, Store
from fake_honcho.text import STOP_WORDS, has_special_chars, ilike, stem, terms, words

Predicate = Callable[[Row], bool]
_PIECE = re.compile(r"[^\W_]+")


@dataclass
class _WorkspaceIndex:
    postings: dict[str, array[int]] = field(default_factory=dict)
    vocabulary: dict[str, str] = field(default_factory=dict)  # raw word -> stem
    substring_cache: dict[str, frozenset[str]] = field(default_factory=dict)


class SearchIndex:
    """Inverted index over message content, maintained as a Store listener."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.workspaces: dict[str, _WorkspaceIndex] = {}
        self.by_seq: dict[int, str] = {}
        self.dead = 0
        with store.lock:
            for row in sorted(store.rows("messages"), key=lambda r: r["_seq"]):
                self._add(row)
            store.subscribe(self._on_change)

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if collection != "messages":
            return
        if old is None and new is not None:
            self._add(new)
        elif old is not None and new is None:
            self.by_seq.pop(old["_seq"], None)
            self.dead += 1
            if self.dead > 1000 and self.dead > len(self.by_seq):
                self._rebuild()

    def _add(self, row: Row) -> None:
        seq = row["_seq"]
        self.by_seq[seq] = row["id"]
        index = self.workspaces.setdefault(row["workspace_id"], _WorkspaceIndex())
        for word in words(row["content"]):
            if word in STOP_WORDS:
                continue
            term = index.vocabulary.get(word)
            if term is None:
                term = stem(word)
                index.vocabulary[word] = term
                index.substring_cache.clear()
            posting = index.postings.get(term)
            if posting is None:
                posting = index.postings[term] = array("l")
            posting.append(seq)

    def _rebuild(self) -> None:
        self.workspaces.clear()
        self.by_seq.clear()
        self.dead = 0
        for row in sorted(self.store.rows("messages"), key=lambda r: r["_seq"]):
            self._add(row)

    def search(
        self, workspace_id: str, query: str, *, where: Predicate | None, limit: int
    ) -> list[Row]:
        """Up to ``limit`` messages of the workspace matching ``query`` and ``where``."""
        with self.store.lock:
            if has_special_chars(query):
                return self._substring(workspace_id, query, where, limit)
            ranked = self._terms(workspace_id, query, where)
            if len(ranked) < limit:
                seen = {row["id"] for row in ranked}
                extra = self._substring(workspace_id, query, where, limit - len(ranked), seen)
                ranked.extend(extra)
            return ranked[:limit]

    def _rows(self, seqs: Iterable[int]) -> list[Row]:
        found = []
        for seq in seqs:
            mid = self.by_seq.get(seq)
            row = self.store.get("messages", mid) if mid is not None else None
            if row is not None:
                found.append(row)
        return found

    def _terms(self, workspace_id: str, query: str, where: Predicate | None) -> list[Row]:
        index = self.workspaces.get(workspace_id)
        wanted = list(dict.fromkeys(terms(query)))
        if index is None or not wanted:
            return []
        postings = [index.postings.get(term) for term in wanted]
        if any(posting is None for posting in postings):
            return []
        ordered = sorted((p for p in postings if p is not None), key=len)
        scores: Counter[int] = Counter(ordered[0])
        for posting in ordered[1:]:
            hits = Counter(seq for seq in posting if seq in scores)
            scores = Counter({seq: scores[seq] + count for seq, count in hits.items()})
            if not scores:
                return []
        rows = [row for row in self._rows(scores) if where is None or where(row)]
        rows.sort(key=lambda row: (scores[row["_seq"]], recency(row)), reverse=True)
        return rows

    def _substring(
        self,
        workspace_id: str,
        query: str,
        where: Predicate | None,
        limit: int,
        exclude: set[str] | None = None,
    ) -> list[Row]:
        pattern = ilike(query)
        candidates = self._substring_candidates(workspace_id, query)
        if candidates is None:
            pool: Iterable[Row] = (
                row for row in self.store.rows("messages") if row["workspace_id"] == workspace_id
            )
        else:
            pool = self._rows(candidates)
        found = [
            row
            for row in pool
            if (exclude is None or row["id"] not in exclude)
            and pattern.search(row["content"]) is not None
            and (where is None or where(row))
        ]
        found.sort(key=recency, reverse=True)
        return found[:limit]

    def _substring_candidates(self, workspace_id: str, query: str) -> set[int] | None:
        """Sequence numbers that may contain ``query``; ``None`` when it cannot narrow."""
        index = self.workspaces.get(workspace_id)
        if index is None:
            return set()
        pieces = [
            piece
            for piece in dict.fromkeys(_PIECE.findall(query.casefold()))
            if not any(piece in stop for stop in STOP_WORDS)
        ]
        if not pieces:
            return None
        candidates: set[int] | None = None
        for piece in pieces:
            terms_with_piece = index.substring_cache.get(piece)
            if terms_with_piece is None:
                terms_with_piece = frozenset(
                    term for word, term in index.vocabulary.items() if piece in word
                )
                index.substring_cache[piece] = terms_with_piece
            seqs: set[int] = set()
            for term in terms_with_piece:
                seqs.update(index.postings.get(term, ()))
            candidates = seqs if candidates is None else candidates & seqs
            if not candidates:
                return set()
        return candidates


def sortable_timestamp(stamp: str) -> str:
    """An ISO ``Z`` timestamp that sorts as text (microseconds always present)."""
    return stamp if "." in stamp else stamp[:-1] + ".000000Z"


def recency(row: Row) -> tuple[str, int]:
    """Sort key for "newest first": ``created_at``, then insertion."""
    return sortable_timestamp(row["created_at"]), row["_seq"]


_indexes: WeakKeyDictionary[Store, SearchIndex] = WeakKeyDictionary()
_attach_lock = threading.Lock()


def search_index(store: Store) -> SearchIndex:
    """The store's search index, attached on first use."""
    found = _indexes.get(store)
    if found is None:
        with _attach_lock:
            found = _indexes.get(store)
            if found is None:
                found = SearchIndex(store)
                _indexes[store] = found
    return found
