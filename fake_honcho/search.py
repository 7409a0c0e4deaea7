"""Message search as Honcho runs it with message embedding off, over an inverted index.

The server (``src/utils/search.py``) has two modes:

* a query with punctuation (``~`!@#$%^&*()_+=[]{};':"\\|,.<>/?-``) is a plain
  ``ILIKE '%query%'``, newest first;
* any other query matches messages whose text search vector holds every query term
  (``plainto_tsquery``) *or* whose content contains the query (``ILIKE``), ordered by
  ``ts_rank`` and then newest first.

New messages go to a pending list and are indexed on the next search rather than
inside the write: most test suites write far more than they search, and a batch
write stays cheap. Like PostgreSQL's GIN pending list, the list has a size limit
(:data:`PENDING_LIMIT` characters of content); the write that crosses it indexes the
list, so the first query after a large load never pays for more than that
(``bench`` table 3 reports that query's latency on its own).

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
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from operator import itemgetter

from fake_honcho.state import Key, Row, Store
from fake_honcho.text import STOP_WORDS, WORD, has_special_chars, ilike, stem, terms

Predicate = Callable[[Row], bool]
_PIECE = re.compile(r"[^\W_]+")

PENDING_LIMIT = 2_000_000
"""Characters of unindexed content that make the next write index them (about 0.3 s)."""


class _Vocabulary:
    """Raw words seen (-> their term), searchable by substring without a Python loop.

    The words are joined into one newline-separated text on demand, so "words
    containing / starting / ending with a run" is a literal ``str.find`` scan in C.
    """

    def __init__(self) -> None:
        self.terms: dict[str, str] = {}
        self._text = ""
        self._starts: list[int] = []
        self._words: list[str] = []
        self._cache: dict[tuple[str, bool, bool], frozenset[str]] = {}

    def add(self, word: str, term: str) -> None:
        self.terms[word] = term
        self._words = []
        self._cache.clear()

    def fitting(self, piece: str, starts: bool, ends: bool) -> frozenset[str]:
        """Terms of the words containing ``piece`` (at their start/end if asked)."""
        key = (piece, starts, ends)
        found = self._cache.get(key)
        if found is None:
            if not self._words and self.terms:
                self._words = list(self.terms)
                self._text = "\n" + "\n".join(self._words) + "\n"
                self._starts = list(accumulate((len(w) + 1 for w in self._words[:-1]), initial=1))
            found = frozenset(self._scan(piece, starts, ends))
            self._cache[key] = found
        return found

    def _scan(self, piece: str, starts: bool, ends: bool) -> Iterator[str]:
        # The words are newline-separated, so "at a word's start/end" is a literal
        # newline beside the piece: a plain str.find, with no regex to compile per
        # piece and no look-around that would defeat the fast literal search.
        needle = ("\n" if starts else "") + piece + ("\n" if ends else "")
        lead = 1 if starts else 0
        text, words, word_starts = self._text, self._words, self._starts
        at = text.find(needle)
        while at != -1:
            word = bisect_right(word_starts, at + lead) - 1
            yield self.terms[words[word]]
            # Resume at the next word: one hit per word is enough.
            at = text.find(needle, word_starts[word + 1] - 1) if word + 1 < len(words) else -1


@dataclass
class _WorkspaceIndex:
    postings: dict[str, array[int]] = field(default_factory=dict)
    vocabulary: _Vocabulary = field(default_factory=_Vocabulary)
    seqs: array[int] = field(default_factory=lambda: array("i"))  # every message indexed
    # While created_at never decreases with insertion, "newest first" is "highest
    # sequence number first" and ranking needs no row reads.
    newest: str = ""
    in_order: bool = True


class SearchIndex:
    """Inverted index over message content, maintained as a Store listener."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.workspaces: dict[str, _WorkspaceIndex] = {}
        # By sequence number: the message's id (None once deleted) and session, so a
        # session's search drops other sessions' hits without reading their rows.
        self.ids: list[str | None] = [None]
        self.sessions: list[str | None] = [None]
        self.dead = 0
        self._unindexed: list[Row] = []  # stored since the last query, oldest first
        self._pending_chars = 0  # content characters in _unindexed
        with store.lock:
            self._rebuild()
            store.subscribe(self._on_change, collections=("messages",))

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if old is None and new is not None:
            self._track(new)
            self._unindexed.append(new)
            self._pending_chars += len(new["content"])
            if self._pending_chars > PENDING_LIMIT:
                self._catch_up()
        elif old is not None and new is None:
            self.ids[old["_seq"]] = None
            self.dead += 1
            if self.dead > 1000 and self.dead > len(self.ids) // 2:
                self._rebuild()

    def _track(self, row: Row) -> None:
        """Record the message under its sequence number (it may be deleted unindexed)."""
        seq: int = row["_seq"]
        for by_seq, value in ((self.ids, row["id"]), (self.sessions, row.get("session_id"))):
            if seq >= len(by_seq):
                by_seq.extend([None] * (seq + 1 - len(by_seq)))
            by_seq[seq] = value

    def _catch_up(self) -> None:
        """Index the messages stored since the last query (those not deleted since)."""
        pending, self._unindexed = self._unindexed, []
        self._pending_chars = 0
        ids = self.ids
        for row in pending:
            if ids[row["_seq"]] is not None:
                self._add(row)

    def _add(self, row: Row) -> None:
        seq: int = row["_seq"]
        index = self.workspaces.get(row["workspace_id"])
        if index is None:
            index = self.workspaces[row["workspace_id"]] = _WorkspaceIndex()
        stamp = sortable_timestamp(row["created_at"])
        if stamp < index.newest:
            index.in_order = False
        else:
            index.newest = stamp
        index.seqs.append(seq)
        vocabulary, postings = index.vocabulary, index.postings
        for word in WORD.findall(row["content"].casefold()):
            term = vocabulary.terms.get(word)
            if term is None:
                if word in STOP_WORDS:
                    continue
                term = stem(word)
                vocabulary.add(word, term)
            posting = postings.get(term)
            if posting is None:
                posting = postings[term] = array("i")
            posting.append(seq)

    def _rebuild(self) -> None:
        self.workspaces.clear()
        self.ids, self.sessions = [None], [None]
        self.dead = 0
        self._unindexed = list(self.store.rows("messages"))
        self._pending_chars = 0
        for row in self._unindexed:
            self._track(row)
            self._pending_chars += len(row["content"])

    def search(
        self,
        workspace_id: str,
        query: str,
        *,
        where: Predicate | None,
        limit: int,
        session_id: str | None = None,
    ) -> list[Row]:
        """Up to ``limit`` messages of the workspace matching ``query`` and ``where``.

        ``session_id`` keeps one session's messages before any row is read: a session
        holds a small share of its workspace, so most hits go at once. (An author
        writes a large share; ``where`` tests that, row by row, best hits first.)
        """
        with self.store.lock:
            self._catch_up()
            index = self.workspaces.get(workspace_id)
            if index is None:
                return []
            scope = self._in_session(session_id) if session_id is not None else None
            if has_special_chars(query):
                return self._substring(index, query, where, limit, scope)
            ranked = self._terms(index, query, where, limit, scope)
            if len(ranked) < limit:
                seen = {row["id"] for row in ranked}
                ranked += self._substring(index, query, where, limit - len(ranked), scope, seen)
            return ranked

    def _in_session(self, session_id: str) -> Callable[[int], bool]:
        """A test of a sequence number: is that message in the session?"""
        sessions = self.sessions
        return lambda seq: sessions[seq] == session_id

    def _row(self, seq: int) -> Row | None:
        mid = self.ids[seq] if seq < len(self.ids) else None
        return self.store.get("messages", mid) if mid is not None else None

    def _first(self, seqs: Iterable[int], keep: Predicate, limit: int) -> list[Row]:
        """The first ``limit`` rows of ``seqs`` (best first) that ``keep`` accepts."""
        found: list[Row] = []
        ids, get = self.ids, self.store.get
        for seq in seqs:
            mid = ids[seq]
            row = get("messages", mid) if mid is not None else None
            if row is not None and keep(row):
                found.append(row)
                if len(found) == limit:
                    break
        return found

    def _terms(
        self,
        index: _WorkspaceIndex,
        query: str,
        where: Predicate | None,
        limit: int,
        scope: Callable[[int], bool] | None,
    ) -> list[Row]:
        wanted = list(dict.fromkeys(terms(query)))
        postings = [index.postings.get(term) for term in wanted]
        if not wanted or any(posting is None for posting in postings):
            return []
        ordered = sorted((p for p in postings if p is not None), key=len)
        scores: Counter[int] = Counter(ordered[0] if scope is None else filter(scope, ordered[0]))
        for posting in ordered[1:]:
            hits = Counter(seq for seq in posting if seq in scores)
            scores = Counter({seq: scores[seq] + count for seq, count in hits.items()})
            if not scores:
                return []
        keep = where or _always
        if index.in_order:
            best = sorted(scores.items(), key=itemgetter(1, 0), reverse=True)
            return self._first((seq for seq, _ in best), keep, limit)
        rows = [row for seq in scores if (row := self._row(seq)) is not None and keep(row)]
        rows.sort(key=lambda row: (scores[row["_seq"]], recency(row)), reverse=True)
        return rows[:limit]

    def _substring(
        self,
        index: _WorkspaceIndex,
        query: str,
        where: Predicate | None,
        limit: int,
        scope: Callable[[int], bool] | None,
        exclude: set[str] | None = None,
    ) -> list[Row]:
        """``ILIKE '%query%'``, newest first."""
        matches = ilike(query)
        keep_where = where or _always

        def keep(row: Row) -> bool:
            return (
                matches(row["content"])
                and (exclude is None or row["id"] not in exclude)
                and keep_where(row)
            )

        candidates = self._substring_candidates(index, query)
        found = index.seqs if candidates is None else candidates  # no narrowing: the workspace
        seqs = list(found if scope is None else filter(scope, found))
        if index.in_order:
            return self._first(sorted(seqs, reverse=True), keep, limit)
        rows = [row for seq in seqs if (row := self._row(seq)) is not None and keep(row)]
        rows.sort(key=recency, reverse=True)
        return rows[:limit]

    def _substring_candidates(self, index: _WorkspaceIndex, query: str) -> set[int] | None:
        """Sequence numbers that may contain ``query``; ``None`` when it cannot narrow.

        Each run of letters and digits of the query lies inside one word of any
        matching content; a run next to punctuation (other than the ``_``/``%``
        wildcards) must also start or end that word there. So the candidates hold,
        per run, a word that fits it. Runs inside a stop word narrow nothing: stop
        words are not indexed.
        """
        folded = query.casefold()
        candidates: set[int] | None = None
        for match in _PIECE.finditer(folded):
            piece = match.group()
            if any(piece in stop for stop in STOP_WORDS):
                continue
            fitting = index.vocabulary.fitting(
                piece,
                match.start() > 0 and folded[match.start() - 1] not in "_%",
                match.end() < len(folded) and folded[match.end()] not in "_%",
            )
            seqs: set[int] = set()
            for term in fitting:
                seqs.update(index.postings.get(term, ()))
            candidates = seqs if candidates is None else candidates & seqs
            if not candidates:
                return set()
        return candidates


def _always(row: Row) -> bool:
    return True


def sortable_timestamp(stamp: str) -> str:
    """An ISO ``Z`` timestamp that sorts as text (microseconds always present)."""
    return stamp if "." in stamp else stamp[:-1] + ".000000Z"


def recency(row: Row) -> tuple[str, int]:
    """Sort key for "newest first": ``created_at``, then insertion."""
    return sortable_timestamp(row["created_at"]), row["_seq"]


def search_index(store: Store) -> SearchIndex:
    """The store's search index, attached on first use."""
    return store.attachment(SearchIndex)
