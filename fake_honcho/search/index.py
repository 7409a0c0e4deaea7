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
and, for the ``ILIKE`` leg, the lower-cased runs of letters and digits of each message
(:mod:`.vocabulary`): the messages that can contain ``q`` hold, for each run of ``q``, a
run containing it (at the run's start or end where ``q`` continues past it); a ``q``
of one run is exactly those, a longer one is confirmed on the text. Sort keys are
single ints (rank bits over recency), and :func:`.pgsort.first` replays the server's
sort only when a tie reaches the rows returned.

New messages wait in a pending list and are indexed on the next search (most suites
write far more than they search); like a GIN pending list it has a size limit
(:data:`PENDING_LIMIT` characters), past which the write that crosses it indexes them.
"""

from __future__ import annotations

import re
import struct
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from itertools import islice, repeat
from operator import add, itemgetter, lt

from fake_honcho.search.chars import pg_lower
from fake_honcho.search.english import plainto_tsquery, to_tsvector
from fake_honcho.search.pgsort import first
from fake_honcho.search.rank import rank, rank_single
from fake_honcho.search.vocabulary import Vocabulary
from fake_honcho.store.state import Key, Row, Store

Predicate = Callable[[Row], bool]
_PIECE = re.compile(r"[^\W_]+")
# Honcho's test for "this query needs exact matching" (src/utils/search.py).
SPECIAL_CHARS = re.compile(r"[~`!@#$%^&*()_+=\[\]{};':\"\\|,.<>/?-]")

# A piece whose messages number more than this many times the candidates so far is
# left to the text check (which reads each candidate's content once).
_NARROWING = 8

PENDING_LIMIT = 2_000_000
"""Characters of unindexed content that make the next write index them."""


def has_special_chars(query: str) -> bool:
    return SPECIAL_CHARS.search(query) is not None


@lru_cache(maxsize=1024)
def _lexemes_of(query: str) -> tuple[str, ...] | None:
    """The query's tsquery lexemes, or None when it is the ``ILIKE`` alone."""
    return None if has_special_chars(query) else plainto_tsquery(query)


@dataclass(slots=True)
class _Occurrences:
    """One lexeme's occurrences in a workspace: parallel (sequence, position) arrays."""

    seqs: array[int] = field(default_factory=lambda: array("I"))
    positions: array[int] = field(default_factory=lambda: array("H"))

    def of(self, seq: int) -> list[int]:
        low = bisect_left(self.seqs, seq)
        high = bisect_right(self.seqs, seq, low)
        return self.positions[low:high].tolist()


@dataclass
class _WorkspaceIndex:
    lexemes: dict[str, _Occurrences] = field(default_factory=dict)
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    seqs: array[int] = field(default_factory=lambda: array("I"))  # every message indexed
    # Whether sequence order is the plan's (session, position) order: true while each
    # message indexed comes after the previous one in both (one session written in turn).
    in_plan_order: bool = True
    last_place: tuple[str, int, int] = ("", 0, 0)

    def place(self, session: str, position: int, seq: int) -> None:
        """Note the next message indexed; the order holds while places only grow."""
        place = (session, position, seq)
        if place < self.last_place or seq < self.last_place[2]:
            self.in_plan_order = False
        else:
            self.last_place = place


@dataclass
class _Messages:
    """What the index keeps per message sequence number (None / 0 once deleted)."""

    ids: list[str | None] = field(default_factory=lambda: [None])
    sessions: list[str] = field(default_factory=lambda: [""])  # "" for none
    peers: list[str | None] = field(default_factory=lambda: [None])
    in_session: array[int] = field(default_factory=lambda: array("q", [0]))
    # created_at as the low half of a sort key: smaller is newer (see _key).
    recency: array[int] = field(default_factory=lambda: array("Q", [0]))
    # 1 once indexed with at least one lexeme: an empty tsvector ranks 0 for any query.
    has_lexemes: bytearray = field(default_factory=lambda: bytearray(1))

    def track(self, row: Row) -> None:
        seq: int = row["_seq"]
        if seq >= len(self.ids):
            grow = seq + 1 - len(self.ids)
            self.ids.extend([None] * grow)
            self.sessions.extend([""] * grow)
            self.peers.extend([None] * grow)
            self.in_session.extend([0] * grow)
            self.recency.extend([0] * grow)
            self.has_lexemes.extend(bytes(grow))
        self.ids[seq] = row["id"]
        self.sessions[seq] = row.get("session_id") or ""
        self.peers[seq] = row.get("peer_id")
        self.in_session[seq] = row.get("_seq_in_session") or 0
        self.recency[seq] = _NEWEST - microseconds(row["created_at"])


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
        if index.in_plan_order:
            index.place(self.messages.sessions[seq], self.messages.in_session[seq], seq)
        content: str = row["content"]
        lexemes = index.lexemes
        vector = to_tsvector(content)
        self.messages.has_lexemes[seq] = 1 if vector else 0
        runs = set(_PIECE.findall(pg_lower(content)))
        index.vocabulary.settle(runs, vector)
        fresh: dict[str, array[int]] = {}
        for lexeme, positions in vector.items():
            found = lexemes.get(lexeme)
            if found is None:
                found = lexemes[lexeme] = _Occurrences()
                fresh[lexeme] = found.seqs
            found.seqs.extend([seq] * len(positions))
            found.positions.extend(positions)
        index.vocabulary.add(seq, runs, fresh)

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
        keep: int | None = None,
    ) -> list[Row]:
        """Up to ``limit`` messages of the workspace for ``query``, as Honcho returns them.

        ``session_id`` and ``peer_id`` scope the search before any row is read;
        ``where`` (the other filters) is tested on the rows that match the text.
        The server's query has ``LIMIT 2 * limit`` and the route answers the first
        ``limit`` of them; ``keep`` keeps more (hybrid search fuses all ``2 * limit``).
        """
        taken = limit if keep is None else keep
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
            if not found:
                return []
            # The sort's input order decides its ties: the server's plan for a fresh
            # workspace reads the (workspace, session, seq_in_session) index.
            order = sorted(found)
            if len(order) > 1 and not index.in_plan_order:
                order.sort(key=messages.in_session.__getitem__)
                order.sort(key=messages.sessions.__getitem__)  # stable: session, position
            if where is None:  # rows are read only for the answer
                # An id is None once deleted; with none deleted, every row is live.
                live = list(filter(messages.ids.__getitem__, order)) if self.dead else order
                keys = self._keys(index, query, live)
                best = [live[at] for at in first(keys, 2 * limit, taken)]
                return [row for _, row in self._rows(best, None)]
            rows = self._rows(order, where)
            keys = self._keys(index, query, [seq for seq, _ in rows])
            return [rows[at][1] for at in first(keys, 2 * limit, taken)]

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
        wanted = _lexemes_of(query)
        if wanted and len(set(wanted)) == 1:  # its occurrences' messages, added in C
            posting = index.lexemes.get(wanted[0])
            if posting is not None:
                found.update(posting.seqs)
        elif wanted:
            found |= self._with_lexemes(index, wanted)
        return found

    def _with_lexemes(self, index: _WorkspaceIndex, wanted: tuple[str, ...]) -> set[int]:
        """``to_tsvector(content) @@ plainto_tsquery(q)``: every lexeme present."""
        lexemes = index.lexemes
        postings: list[array[int]] = []
        for lexeme in set(wanted):
            posting = lexemes.get(lexeme)
            if posting is None:
                return set()
            postings.append(posting.seqs)
        postings.sort(key=len)
        found = set(postings[0])
        for seqs in postings[1:]:
            if len(found) * 16 > len(seqs):
                found.intersection_update(seqs)
            else:
                found = {seq for seq in found if _holds(seqs, seq)}
            if not found:
                break
        return found

    def _substring(self, index: _WorkspaceIndex, query: str) -> set[int]:
        """``content ILIKE '%q%'`` with ``q`` literal: lower-cased containment."""
        needle = pg_lower(query)
        pieces = _PIECE.findall(needle)
        candidates = self._substring_candidates(index, needle, pieces)
        if candidates is None:  # no run to narrow by: every message of the workspace
            candidates = set(index.seqs)
        if len(pieces) == 1 and pieces[0] == needle:
            return candidates  # a run containing the needle is the needle in the text
        ids, get = self.messages.ids, self.store.get
        found: set[int] = set()
        for seq in candidates:
            mid = ids[seq]
            row = get("messages", mid) if mid is not None else None
            if row is not None and needle in pg_lower(row["content"]):
                found.add(seq)
        return found

    def _substring_candidates(
        self, index: _WorkspaceIndex, needle: str, pieces: list[str]
    ) -> set[int] | None:
        """Sequence numbers that may contain ``needle`` (its runs: ``pieces``); None
        when it cannot narrow.

        One run of the needle: exactly the messages holding a run that contains it.
        Several: the text confirms them anyway, so the messages of the runs fitting
        the rarest piece, narrowed by the others only while that is cheaper.
        """
        if not pieces:
            return None
        vocabulary = index.vocabulary
        runs = vocabulary.runs
        last = len(pieces) - 1
        fits: list[list[str]] = []
        for at, piece in enumerate(pieces):
            # A piece starts (ends) its run where the needle goes on before (after) it.
            starts = at > 0 or not needle.startswith(piece)
            fitting = vocabulary.fitting(piece, starts, at < last or not needle.endswith(piece))
            if not fitting:
                return set()
            fits.append(fitting)
        if last == 0:
            return _holders(runs, fits[0])
        # The messages of a fitting's runs number at least its runs (each has one): the
        # exact count, a sum over its runs, is taken only where that bound leaves the
        # piece in the running (to be the rarest, then to narrow at a worthwhile cost).
        counted: dict[int, int] = {}

        def count(at: int) -> int:
            found = counted.get(at)
            if found is None:
                found = counted[at] = sum(map(len, map(runs.__getitem__, fits[at])))
            return found

        bounds = [len(runs[fitting[0]]) if len(fitting) == 1 else len(fitting) for fitting in fits]
        order = sorted(range(len(fits)), key=bounds.__getitem__)
        rarest = order[0]
        for at in order[1:]:
            if bounds[at] >= count(rarest):
                break
            if count(at) < count(rarest):
                rarest = at
        candidates = _holders(runs, fits[rarest])
        for at in order:
            if not candidates or bounds[at] > _NARROWING * len(candidates):
                break
            if at == rarest or count(at) > _NARROWING * len(candidates):
                continue
            fitting = fits[at]
            if len(fitting) == 1:
                candidates.intersection_update(runs[fitting[0]])
            else:
                candidates.intersection_update(_holders(runs, fitting))
        return candidates

    def _keys(self, index: _WorkspaceIndex, query: str, seqs: list[int]) -> list[int]:
        """Sort keys, smallest first: rank descending, then created_at descending.

        Every key is less by the same amount (:data:`_UNRANKED`), so they order as the
        full keys do: a row of rank 0 has its recency alone, and only the rows a query
        lexeme ranks need adding to.
        """
        keys = _pick(self.messages.recency, seqs)
        wanted = _lexemes_of(query)
        distinct = set(wanted or ())
        if len(distinct) < 2:
            posting = index.lexemes.get(next(iter(distinct))) if distinct else None
            if posting is None:  # the ILIKE alone, or a lexeme no message holds: rank 0
                return keys
            return _rank_single(posting.seqs, seqs, keys)
        assert wanted is not None
        found = ((lexeme, index.lexemes.get(lexeme)) for lexeme in distinct)
        postings = [(lexeme, posting) for lexeme, posting in found if posting is not None]
        has_lexemes = self.messages.has_lexemes
        for at, seq in enumerate(seqs):
            if has_lexemes[seq]:  # an empty tsvector ranks 0 for any query
                positions = {lexeme: posting.of(seq) for lexeme, posting in postings}
                keys[at] += _raise(rank(positions, wanted))
        return keys


def _rank_single(occurrences: array[int], seqs: list[int], keys: list[int]) -> list[int]:
    """``keys`` raised for the rows (``seqs``) holding the one query lexeme (at
    ``occurrences``: sequence numbers, ascending, one per position)."""
    if len(seqs) * 16 > len(occurrences):  # few occurrences: one pass over them, in C
        held = Counter(occurrences)
        raises = _single_raises(max(held.values(), default=0))
        if len(held) * 4 < len(seqs):  # and few rows hold it: raise theirs alone
            for seq, at in _places(seqs, held):
                keys[at] += raises[held[seq]]
            return keys
        counts: Iterable[int] = map(held.get, seqs, repeat(0))
    else:  # many occurrences: count each row's by bisection
        counts = [bisect_right(occurrences, seq) - bisect_left(occurrences, seq) for seq in seqs]
        raises = _single_raises(max(counts, default=0))
    return list(map(add, map(raises.__getitem__, counts), keys))


def _places(seqs: list[int], wanted: Iterable[int]) -> Iterable[tuple[int, int]]:
    """(seq, its index in ``seqs``) for each of ``wanted`` that ``seqs`` holds: by
    bisection where ``seqs`` ascends (the plan's order, mostly), else by a lookup table."""
    if all(map(lt, seqs, islice(seqs, 1, None))):
        for seq in wanted:
            at = bisect_left(seqs, seq)
            if at < len(seqs) and seqs[at] == seq:
                yield seq, at
    else:
        where = dict(zip(seqs, range(len(seqs)), strict=True))
        for seq in wanted:
            found = where.get(seq)
            if found is not None:
                yield seq, found


_single_raise_table = [0]


def _single_raises(most: int) -> list[int]:
    """What a one-lexeme query's rank adds to a key, by the lexeme's count in the row
    (0 to ``most`` at least): a list, as the rows are many and the counts few.

    A longer table replaces the shared one whole, never appended to in place: two fakes
    searching on two threads (a served fake and an in-process one) could otherwise both
    append the value for the same count, and every later count would read its neighbour's.
    """
    global _single_raise_table
    table = _single_raise_table
    if len(table) <= most:
        table = table + [_raise(rank_single(count)) for count in range(len(table), most + 1)]
        _single_raise_table = table
    return table


_RANK_BITS = struct.Struct("<f")
_NEWEST = 1 << 63  # above any created_at in microseconds, so recency stays positive


@lru_cache(maxsize=4096)
def _key(rank: float) -> int:
    """The high half of a sort key: ranks are non-negative float32, so their bit patterns
    order as they do, and one int compares faster than a (rank, created_at) tuple."""
    (bits,) = struct.unpack("<I", _RANK_BITS.pack(rank))
    return ((1 << 32) - bits) << 64


_UNRANKED = _key(0.0)


@lru_cache(maxsize=4096)
def _raise(rank: float) -> int:
    """What ``rank`` adds to a key of rank 0 (nothing, or less than nothing)."""
    return _key(rank) - _UNRANKED


def _pick(values: array[int], at: list[int]) -> list[int]:
    """``[values[i] for i in at]``, in C (an array's ``__getitem__`` mapped costs twice as much)."""
    return list(itemgetter(*at)(values)) if len(at) > 1 else [values[i] for i in at]


def _holders(runs: dict[str, array[int]], fitting: list[str]) -> set[int]:
    """The sequence numbers of the messages holding any of the runs ``fitting``."""
    if len(fitting) == 1:
        return set(runs[fitting[0]])
    return set().union(*map(runs.__getitem__, fitting))


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
