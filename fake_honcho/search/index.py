"""The inverted index that answers Honcho's message search without scanning.

The server's query (``src/utils/search.py`` ``_fulltext_search`` at v3.0.12, message
embedding off) is ``to_tsvector('english', content) @@ plainto_tsquery('english', q)
OR content ILIKE '%q%'`` ordered by ``ts_rank`` then ``created_at`` (both DESC) with
``LIMIT 2 * limit``, of which the route returns ``limit``; a query holding any of
``~`!@#$%^&*()_+=[]{};':"\\|,.<>/?-`` is the ``ILIKE`` alone, newest first. ``q`` is
matched literally (``%``, ``_`` and ``\\`` are escaped). Rows whose keys tie come back
in the order the server's sort leaves them (:mod:`.pgsort`), fed in the order its plan
reads them. For a workspace its statistics do not know yet (a test's) that plan is an
index scan of ``(workspace_name, session_name, seq_in_session)``: by session id, then
position in the session, which the fake copies. (Once analysed, or scoped to a peer,
the server may read by bitmap in physical table order, which no client can know: see
the divergence register's ``search-tie-order``.)

Per workspace the index keeps, for every lexeme, its occurrences (message sequence
number and position, in message order), which give both the ``@@`` match and the rank;
and, for the ``ILIKE`` leg, the lower-cased runs of letters and digits of each message:
the messages that can contain ``q`` hold, for each run of ``q``, a run containing it
(at the run's start or end where ``q`` continues past it), then the text confirms.

New messages wait in a pending list and are indexed on the next search (most suites
write far more than they search); like a GIN pending list it has a size limit
(:data:`PENDING_LIMIT` characters), past which the write that crosses it indexes them.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import accumulate

from fake_honcho.search.chars import pg_lower
from fake_honcho.search.english import plainto_tsquery, to_tsvector
from fake_honcho.search.pgsort import top
from fake_honcho.search.rank import rank, rank_single
from fake_honcho.state import Key, Row, Store

Predicate = Callable[[Row], bool]
_PIECE = re.compile(r"[^\W_]+")
# Honcho's test for "this query needs exact matching" (src/utils/search.py).
SPECIAL_CHARS = re.compile(r"[~`!@#$%^&*()_+=\[\]{};':\"\\|,.<>/?-]")

PENDING_LIMIT = 2_000_000
"""Characters of unindexed content that make the next write index them."""


def has_special_chars(query: str) -> bool:
    return SPECIAL_CHARS.search(query) is not None


class _Vocabulary:
    """The runs seen, searchable by substring without a Python loop over them.

    The runs are joined into one newline-separated text on demand, so "runs containing
    / starting / ending with a piece" is a literal ``str.find`` scan in C.
    """

    def __init__(self) -> None:
        self.runs: dict[str, array[int]] = {}  # run -> sequence numbers holding it
        self._text = ""
        self._starts: list[int] = []
        self._words: list[str] = []
        self._cache: dict[tuple[str, bool, bool], frozenset[str]] = {}

    def add(self, run: str, seq: int) -> None:
        holders = self.runs.get(run)
        if holders is None:
            holders = self.runs[run] = array("I")
            self._words = []
            self._cache.clear()
        if not holders or holders[-1] != seq:
            holders.append(seq)

    def fitting(self, piece: str, starts: bool, ends: bool) -> frozenset[str]:
        """The runs containing ``piece`` (at their start/end if asked)."""
        key = (piece, starts, ends)
        found = self._cache.get(key)
        if found is None:
            if not self._words and self.runs:
                self._words = list(self.runs)
                self._text = "\n" + "\n".join(self._words) + "\n"
                self._starts = list(accumulate((len(w) + 1 for w in self._words[:-1]), initial=1))
            found = frozenset(self._scan(piece, starts, ends))
            self._cache[key] = found
        return found

    def _scan(self, piece: str, starts: bool, ends: bool) -> Iterator[str]:
        needle = ("\n" if starts else "") + piece + ("\n" if ends else "")
        lead = 1 if starts else 0
        text, words, word_starts = self._text, self._words, self._starts
        at = text.find(needle)
        while at != -1:
            word = bisect_right(word_starts, at + lead) - 1
            yield words[word]
            # Resume at the next run: one hit per run is enough.
            at = text.find(needle, word_starts[word + 1] - 1) if word + 1 < len(words) else -1


@dataclass
class _Occurrences:
    """One lexeme's occurrences in a workspace: parallel (sequence, position) arrays."""

    seqs: array[int] = field(default_factory=lambda: array("I"))
    positions: array[int] = field(default_factory=lambda: array("H"))

    def of(self, seq: int) -> list[int]:
        low = bisect_left(self.seqs, seq)
        high = bisect_right(self.seqs, seq, low)
        return self.positions[low:high].tolist()

    def counts(self) -> dict[int, int]:
        found: dict[int, int] = {}
        for seq in self.seqs:
            found[seq] = found.get(seq, 0) + 1
        return found


@dataclass
class _WorkspaceIndex:
    lexemes: dict[str, _Occurrences] = field(default_factory=dict)
    vocabulary: _Vocabulary = field(default_factory=_Vocabulary)
    seqs: array[int] = field(default_factory=lambda: array("I"))  # every message indexed


@dataclass
class _Messages:
    """What the index keeps per message sequence number (None / 0 once deleted)."""

    ids: list[str | None] = field(default_factory=lambda: [None])
    sessions: list[str | None] = field(default_factory=lambda: [None])
    peers: list[str | None] = field(default_factory=lambda: [None])
    in_session: array[int] = field(default_factory=lambda: array("q", [0]))
    stamps: array[int] = field(default_factory=lambda: array("q", [0]))  # created_at, µs
    # 1 once indexed with at least one lexeme: an empty tsvector ranks 0 for any query.
    has_lexemes: bytearray = field(default_factory=lambda: bytearray(1))

    def track(self, row: Row) -> None:
        seq: int = row["_seq"]
        if seq >= len(self.ids):
            grow = seq + 1 - len(self.ids)
            for column in (self.ids, self.sessions, self.peers):
                column.extend([None] * grow)
            self.in_session.extend([0] * grow)
            self.stamps.extend([0] * grow)
            self.has_lexemes.extend(bytes(grow))
        self.ids[seq] = row["id"]
        self.sessions[seq] = row.get("session_id")
        self.peers[seq] = row.get("peer_id")
        self.in_session[seq] = row.get("_seq_in_session") or 0
        self.stamps[seq] = microseconds(row["created_at"])


class SearchIndex:
    """Inverted index over message content, maintained as a Store listener."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.workspaces: dict[str, _WorkspaceIndex] = {}
        self.messages = _Messages()
        self.dead = 0
        self._unindexed: list[Row] = []  # stored since the last query, oldest first
        self._pending_chars = 0  # content characters in _unindexed
        with store.lock:
            self._rebuild()
            store.subscribe(self._on_change, collections=("messages",))

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if old is None and new is not None:
            self.messages.track(new)
            self._unindexed.append(new)
            self._pending_chars += len(new["content"])
            if self._pending_chars > PENDING_LIMIT:
                self._catch_up()
        elif old is not None and new is None:
            self.messages.ids[old["_seq"]] = None
            self.dead += 1
            if self.dead > 1000 and self.dead > len(self.messages.ids) // 2:
                self._rebuild()

    def _catch_up(self) -> None:
        """Index the messages stored since the last query (those not deleted since)."""
        pending, self._unindexed = self._unindexed, []
        self._pending_chars = 0
        ids = self.messages.ids
        for row in pending:
            if ids[row["_seq"]] is not None:
                self._add(row)

    def _add(self, row: Row) -> None:
        seq: int = row["_seq"]
        index = self.workspaces.get(row["workspace_id"])
        if index is None:
            index = self.workspaces[row["workspace_id"]] = _WorkspaceIndex()
        index.seqs.append(seq)
        content: str = row["content"]
        lexemes = index.lexemes
        vector = to_tsvector(content)
        self.messages.has_lexemes[seq] = 1 if vector else 0
        for lexeme, positions in vector.items():
            found = lexemes.get(lexeme)
            if found is None:
                found = lexemes[lexeme] = _Occurrences()
            found.seqs.extend([seq] * len(positions))
            found.positions.extend(positions)
        vocabulary = index.vocabulary
        for run in _PIECE.findall(pg_lower(content)):
            vocabulary.add(run, seq)

    def _rebuild(self) -> None:
        self.workspaces.clear()
        self.messages = _Messages()
        self.dead = 0
        self._unindexed = list(self.store.rows("messages"))
        self._pending_chars = 0
        for row in self._unindexed:
            self.messages.track(row)
            self._pending_chars += len(row["content"])

    def search(
        self,
        workspace_id: str,
        query: str,
        *,
        where: Predicate | None,
        limit: int,
        session_id: str | None = None,
        peer_id: str | None = None,
    ) -> list[Row]:
        """Up to ``limit`` messages of the workspace for ``query``, as Honcho returns them.

        ``session_id`` and ``peer_id`` scope the search before any row is read;
        ``where`` (the other filters) is tested on the rows that match the text.
        """
        with self.store.lock:
            self._catch_up()
            index = self.workspaces.get(workspace_id)
            if index is None:
                return []
            found: Iterable[int] = self._matches(index, query)
            messages = self.messages
            if session_id is not None:
                found = [seq for seq in found if messages.sessions[seq] == session_id]
            if peer_id is not None:
                found = [seq for seq in found if messages.peers[seq] == peer_id]
            # The sort's input order decides its ties: the server's plan for a fresh
            # workspace reads the (workspace, session, seq_in_session) index.
            sessions, in_session = messages.sessions, messages.in_session
            order = sorted(found, key=lambda seq: (sessions[seq] or "", in_session[seq]))
            if where is None:  # rows are read only for the answer
                ids = messages.ids
                live = [seq for seq in order if ids[seq] is not None]
                keys = self._keys(index, query, live)
                best = [live[at] for at in top(keys, 2 * limit)[:limit]]
                return [row for _, row in self._rows(best, None)]
            rows = self._rows(order, where)
            keys = self._keys(index, query, [seq for seq, _ in rows])
            return [rows[at][1] for at in top(keys, 2 * limit)[:limit]]

    def _rows(self, seqs: Iterable[int], where: Predicate | None) -> list[tuple[int, Row]]:
        ids, get = self.messages.ids, self.store.get
        found: list[tuple[int, Row]] = []
        for seq in seqs:
            mid = ids[seq]
            row = get("messages", mid) if mid is not None else None
            if row is not None and (where is None or where(row)):
                found.append((seq, row))
        return found

    def _matches(self, index: _WorkspaceIndex, query: str) -> set[int]:
        """Sequence numbers of the workspace's messages that the server's WHERE keeps."""
        found = self._substring(index, query)
        if not has_special_chars(query):
            wanted = plainto_tsquery(query)
            if wanted:
                found |= self._with_lexemes(index, wanted)
        return found

    def _with_lexemes(self, index: _WorkspaceIndex, wanted: tuple[str, ...]) -> set[int]:
        """``to_tsvector(content) @@ plainto_tsquery(q)``: every lexeme present."""
        postings = [index.lexemes.get(lexeme) for lexeme in set(wanted)]
        if any(posting is None for posting in postings):
            return set()
        ordered = sorted((p for p in postings if p is not None), key=lambda p: len(p.seqs))
        found = set(ordered[0].seqs)
        for posting in ordered[1:]:
            found = {seq for seq in found if _holds(posting.seqs, seq)}
            if not found:
                break
        return found

    def _substring(self, index: _WorkspaceIndex, query: str) -> set[int]:
        """``content ILIKE '%q%'`` with ``q`` literal: lower-cased containment."""
        needle = pg_lower(query)
        candidates = self._substring_candidates(index, needle)
        if candidates is None:  # no run to narrow by: every message of the workspace
            candidates = set(index.seqs)
        if _PIECE.fullmatch(needle):
            return candidates  # a run containing the needle is the needle in the text
        ids, get = self.messages.ids, self.store.get
        found: set[int] = set()
        for seq in candidates:
            mid = ids[seq]
            row = get("messages", mid) if mid is not None else None
            if row is not None and needle in pg_lower(row["content"]):
                found.add(seq)
        return found

    def _substring_candidates(self, index: _WorkspaceIndex, needle: str) -> set[int] | None:
        """Sequence numbers that may contain ``needle``; None when it cannot narrow."""
        candidates: set[int] | None = None
        for match in _PIECE.finditer(needle):
            fitting = index.vocabulary.fitting(
                match.group(), match.start() > 0, match.end() < len(needle)
            )
            seqs: set[int] = set()
            for run in fitting:
                seqs.update(index.vocabulary.runs[run])
            candidates = seqs if candidates is None else candidates & seqs
            if not candidates:
                return set()
        return candidates

    def _keys(self, index: _WorkspaceIndex, query: str, seqs: list[int]) -> list[tuple[float, int]]:
        """Sort keys, smallest first: (-rank, -created_at); rank 0 for the ILIKE-only mode."""
        stamps = self.messages.stamps
        if has_special_chars(query):
            return [(0.0, -stamps[seq]) for seq in seqs]
        wanted = plainto_tsquery(query)
        distinct = set(wanted)
        if len(distinct) == 1:
            posting = index.lexemes.get(next(iter(distinct)))
            counts = posting.counts() if posting is not None else {}
            return [(-_single(counts.get(seq, 0)), -stamps[seq]) for seq in seqs]
        postings = {lexeme: index.lexemes.get(lexeme) for lexeme in distinct}
        has_lexemes = self.messages.has_lexemes
        keys: list[tuple[float, int]] = []
        for seq in seqs:
            if not has_lexemes[seq]:
                keys.append((0.0, -stamps[seq]))
                continue
            positions = {lexeme: posting.of(seq) for lexeme, posting in postings.items() if posting}
            keys.append((-rank(positions, wanted), -stamps[seq]))
        return keys


def _single(count: int) -> float:
    return rank_single(count) if count else 0.0


def _holds(seqs: array[int], seq: int) -> bool:
    at = bisect_left(seqs, seq)
    return at < len(seqs) and seqs[at] == seq


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def microseconds(stamp: str) -> int:
    """An ISO ``Z`` timestamp as microseconds since the epoch (Postgres's precision)."""
    moment = datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MICROSECOND


def sortable_timestamp(stamp: str) -> str:
    """An ISO ``Z`` timestamp that sorts as text (microseconds always present)."""
    return stamp if "." in stamp else stamp[:-1] + ".000000Z"


def search_index(store: Store) -> SearchIndex:
    """The store's search index, attached on first use."""
    return store.attachment(SearchIndex)
