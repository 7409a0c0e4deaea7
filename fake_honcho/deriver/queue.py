"""The deriver queue: which work new messages create, how it is kept, and queue status.

Work is queued in batches, one row of the ``queue`` collection per creating request
(or dream), keyed by the zero-padded number of its first unit. What the units share
(workspace, session, internal session id, ``created_at``) is stored once per batch;
the rest is in columns, one entry per unit (``task_type``, ``message_id``,
``observer``, ``observed``, ``seq``; dreams add ``dream_type`` and ``rebuild``). Unit
numbers run on across batches, so queue order is number order.

Units run one at a time in that order, so one watermark says which are done: the
``queue_counter`` row holds the last number handed out (``value``) and the last
completed (``completed_through``). A batch whose units are all completed is folded
into ``queue_completed`` rows (completed counts per workspace, session, observer and
observed: all queue status reports about finished work) and deleted. A unit that
failed also keeps a ``queue_errors`` row: the unit with its ``error``, as Honcho keeps
one on the queue item.

Enqueue rules (Honcho's ``src/deriver/enqueue.py``), per message:

* a ``summary`` unit when the message's position in its session is a multiple of the
  short or long summary cadence and summaries are enabled;
* nothing more when reasoning is disabled (message > session > workspace);
* if the sender's effective ``observe_me`` holds (session peer config, then peer
  configuration, then true): a ``representation`` unit observer = observed = sender,
  plus one per other *active* member with ``observe_others``, observing the sender.
  As in Honcho, a sender that is not observed creates no representation work at all.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from fake_honcho.deriver.config import observe_me, resolve
from fake_honcho.store.grouping import session_members
from fake_honcho.store.ids import isoformat
from fake_honcho.store.state import Key, Row, Store

COLLECTION = "queue"
COUNTER_COLLECTION = "queue_counter"
COUNTER_KEY = "next"
COMPLETED_COLLECTION = "queue_completed"
ERRORS_COLLECTION = "queue_errors"
COLLECTIONS = (COLLECTION, COUNTER_COLLECTION, COMPLETED_COLLECTION, ERRORS_COLLECTION)

#: Fields every unit of a batch shares.
SHARED_FIELDS = ("workspace_id", "session_id", "session_uid", "created_at")
#: Per-unit columns of every batch.
UNIT_COLUMNS = ("task_type", "message_id", "observer", "observed", "seq")
#: Extra per-unit columns of a dream batch.
DREAM_COLUMNS = ("dream_type", "rebuild")

#: Work queue status leaves out (scope backfill and removal, deletions).
INTERNAL_TASKS = frozenset({"scope_backfill", "scope_removal", "deletion"})

Columns = dict[str, list[Any]]
#: What status filters and groups a unit by: (session_id, session_uid, observer, observed).
Tally = tuple[str | None, str | None, str | None, str | None]


def units_for_messages(
    store: Store, workspace_id: str, session_id: str, messages: list[Row]
) -> Columns:
    """The work a batch of stored messages creates, message by message, in Honcho's order.

    Settings without a message-level override, members and each sender's observers are
    read once per batch: nothing can change them while the batch is being stored.
    """
    members = session_members(store, workspace_id, session_id)
    session_level = resolve(store, workspace_id, session_id)
    columns: Columns = {name: [] for name in UNIT_COLUMNS}
    task_types, message_ids, observers, observed, seqs = (columns[name] for name in UNIT_COLUMNS)
    watchers: dict[str, list[str]] = {}
    for message in messages:
        configuration = message.get("_configuration")
        conf = (
            resolve(store, workspace_id, session_id, configuration)
            if configuration
            else session_level
        )
        seq = message["_seq_in_session"]
        message_id = message["id"]
        if conf.summary and (seq % conf.short_every == 0 or seq % conf.long_every == 0):
            task_types.append("summary")
            message_ids.append(message_id)
            observers.append(None)
            observed.append(None)
            seqs.append(seq)
        if not conf.reasoning:
            continue
        sender = message["peer_id"]
        watching = watchers.get(sender)
        if watching is None:
            watching = watchers[sender] = _observers_of(
                store, workspace_id, session_id, sender, members
            )
        for observer in watching:
            task_types.append("representation")
            message_ids.append(message_id)
            observers.append(observer)
            observed.append(sender)
            seqs.append(None)
    return columns


def dream_columns(observer: str, observed: str, dream_type: str, rebuild: bool) -> Columns:
    """A one-unit ``dream`` batch (no session: it never appears in the status ``sessions`` map)."""
    return {
        "task_type": ["dream"],
        "message_id": [None],
        "observer": [observer],
        "observed": [observed],
        "seq": [None],
        "dream_type": [dream_type],
        "rebuild": [rebuild],
    }


def _observers_of(
    store: Store, workspace_id: str, session_id: str, sender: str, members: list[Row]
) -> list[str]:
    """Who observes ``sender``'s messages: the sender first, then ``observe_others`` members."""
    if not observe_me(store, workspace_id, session_id, sender):
        return []
    return [sender] + [
        member["peer_id"]
        for member in members
        if member["peer_id"] != sender and member.get("observe_others")
    ]


class WorkQueue:
    """The queue's rows and what follows from them: queue order, the next unit, status counts.

    A store listener, so a replayed ``--state-file`` log and ``store.clear()`` keep it
    true. Call every method under ``store.lock``.
    """

    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock
        self._firsts: list[int] = []  # first unit number of each live batch, ascending
        self._batches: dict[int, Row] = {}
        self._completed_through = 0
        #: Per workspace: tally -> [pending, completed] (in-progress units count as pending).
        self._tallies: dict[str, dict[Tally, list[int]]] = {}
        self._running: tuple[int, str, Tally] | None = None  # (id, workspace, tally)
        self._legacy: dict[Key, Row] = {}
        for collection in COLLECTIONS:
            for key, row in store.items(collection):
                self._on_change(collection, key, None, row)
        store.subscribe(self._on_change, collections=COLLECTIONS)

    # -- writing ----------------------------------------------------------------------

    def enqueue(self, shared: Row, columns: Columns) -> None:
        """Queue ``columns`` (at least one unit) as one batch with the ``shared`` fields."""
        self._adopt_legacy()
        counter = self.store.get(COUNTER_COLLECTION, COUNTER_KEY) or {}
        first = counter.get("value", 0) + 1
        last = first + len(columns["task_type"]) - 1
        self.store.put(COUNTER_COLLECTION, COUNTER_KEY, {**counter, "value": last})
        row = {**shared, "created_at": isoformat(self.clock()), **columns}
        self.store.put(COLLECTION, _number_key(first), row)

    def next_unit(self) -> Row | None:
        """The oldest unit not yet completed, as a unit row; None when there is none."""
        self._adopt_legacy()
        found = self._locate(self._completed_through + 1)
        return None if found is None else _unit(*found)

    @contextmanager
    def running(self, unit: Row) -> Iterator[None]:
        """Mark ``unit`` (from :meth:`next_unit`) in progress for the duration."""
        unit["status"] = "in_progress"
        self._running = (unit["id"], unit["workspace_id"], _unit_tally(unit))
        try:
            yield
        finally:
            self._running = None

    def complete(self, unit: Row, error: str | None) -> None:
        """Mark ``unit`` (from :meth:`next_unit`) completed; fold its batch once all are."""
        number = unit["id"]
        if error is not None:
            failed = {**unit, "status": "completed", "error": error}
            self.store.put(ERRORS_COLLECTION, _number_key(number), failed)
        counter = self.store.get(COUNTER_COLLECTION, COUNTER_KEY) or {"value": number}
        self.store.put(COUNTER_COLLECTION, COUNTER_KEY, {**counter, "completed_through": number})
        first = self._firsts[bisect.bisect_right(self._firsts, number) - 1]
        batch = self._batches[first]
        if number == first + len(batch["task_type"]) - 1:
            self._fold(first, batch)

    def _fold(self, first: int, batch: Row) -> None:
        """Move a fully completed batch into the completed counts and drop it."""
        for tally, count in _batch_tallies(batch).items():
            self._add_completed(batch["workspace_id"], tally, count)
        self.store.delete(COLLECTION, _number_key(first))

    def _add_completed(self, workspace_id: str, tally: Tally, count: int) -> None:
        key = (workspace_id, *(part or "" for part in tally))
        row = self.store.get(COMPLETED_COLLECTION, key)
        session_id, session_uid, observer, observed = tally
        completed = {
            "workspace_id": workspace_id,
            "session_id": session_id,
            "session_uid": session_uid,
            "observer": observer,
            "observed": observed,
            "completed": count + (row["completed"] if row else 0),
        }
        self.store.put(COMPLETED_COLLECTION, key, completed)

    # -- reading ----------------------------------------------------------------------

    def queued(self) -> list[Row]:
        """Every unit not yet completed, in queue order."""
        self._adopt_legacy()
        units = list(self._units_after(self._completed_through))
        if units and self._running is not None and units[0]["id"] == self._running[0]:
            units[0]["status"] = "in_progress"
        return units

    def failures(self) -> list[Row]:
        """Every unit that failed, in queue order, with its ``error``."""
        self._adopt_legacy()
        return [dict(row) for _key, row in sorted(self.store.items(ERRORS_COLLECTION))]

    def status(
        self,
        workspace_id: str,
        *,
        session_id: str | None = None,
        observer: str | None = None,
        sender: str | None = None,
        held: Mapping[Tally, int] | None = None,
        claimed: bool = False,
    ) -> dict[str, Any]:
        """Honcho's ``QueueStatus``: counts per unit state, per internal session id unless filtered.

        ``observer_id`` and ``sender_id`` match a unit's observer *or* observed peer, as the
        real query ORs them. ``held`` units (not yet claimed, see
        :mod:`fake_honcho.deriver.gate`) are pending; with ``claimed`` every queued unit
        not completed is in progress (the queue holds only claimed work), otherwise only
        the unit running now.
        """
        self._adopt_legacy()
        totals = _Counts()
        sessions: dict[str, _Counts] = {}
        running = self._running[1:] if self._running is not None else None
        queued = self._tallies.get(workspace_id, {})
        held = held or {}
        for tally in [*queued, *(tally for tally in held if tally not in queued)]:
            queued_pending, completed = queued.get(tally, (0, 0))
            unit_session, session_uid, unit_observer, unit_observed = tally
            if session_id and unit_session != session_id:
                continue
            if (observer or sender) and not (
                (observer and unit_observer == observer) or (sender and unit_observed == sender)
            ):
                continue
            in_progress = queued_pending if claimed else int(running == (workspace_id, tally))
            counts = (held.get(tally, 0) + queued_pending - in_progress, in_progress, completed)
            totals.add(*counts)
            if session_uid:
                sessions.setdefault(session_uid, _Counts()).add(*counts)
        report: dict[str, Any] = totals.as_dict()
        if session_id:
            report["sessions"] = None
        else:
            report["sessions"] = {
                uid: {"session_id": uid, **counts.as_dict()} for uid, counts in sessions.items()
            } or None
        return report

    # -- following the store ----------------------------------------------------------

    def _units_after(self, number: int) -> Iterator[Row]:
        """Units of live batches numbered above ``number``, in queue order."""
        for batch, first, indexes in self._spans(number):
            for index in indexes:
                yield _unit(batch, first, index)

    def _locate(self, number: int) -> tuple[Row, int, int] | None:
        """``(batch, first, index)`` of the live unit numbered ``number``, or else the next one."""
        position = bisect.bisect_right(self._firsts, number) - 1
        if position >= 0:
            first = self._firsts[position]
            batch = self._batches[first]
            if number - first < len(batch["task_type"]):
                return batch, first, number - first
        if position + 1 < len(self._firsts):
            first = self._firsts[position + 1]
            return self._batches[first], first, 0
        return None

    def _spans(self, low: int, high: int | None = None) -> Iterator[tuple[Row, int, range]]:
        """Live batches holding units numbered in ``(low, high]``, with those units' indexes."""
        position = max(bisect.bisect_right(self._firsts, low) - 1, 0)
        while position < len(self._firsts):
            first = self._firsts[position]
            if high is not None and first > high:
                return
            batch = self._batches[first]
            size = len(batch["task_type"])
            indexes = range(
                max(low + 1 - first, 0), size if high is None else min(size, high + 1 - first)
            )
            if indexes:
                yield batch, first, indexes
            position += 1

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        if collection == COLLECTION:
            assert isinstance(key, str)
            if old is not None:
                self._forget_batch(key, old)
            if new is not None:
                self._learn_batch(key, new)
        elif collection == COUNTER_COLLECTION:
            self._move_watermark((new or {}).get("completed_through", 0))
        elif collection == COMPLETED_COLLECTION:
            for row, sign in ((old, -1), (new, 1)):
                if row is not None:
                    self._count(row["workspace_id"], _tally(row), 0, sign * row["completed"])

    def _learn_batch(self, key: str, batch: Row) -> None:
        if _is_legacy(batch):
            self._legacy[key] = batch
            return
        first = int(key)
        bisect.insort(self._firsts, first)
        self._batches[first] = batch
        self._count_batch(first, batch, 1)

    def _forget_batch(self, key: str, batch: Row) -> None:
        if _is_legacy(batch):
            self._legacy.pop(key, None)
            return
        first = int(key)
        del self._firsts[bisect.bisect_left(self._firsts, first)]
        del self._batches[first]
        self._count_batch(first, batch, -1)

    def _count_batch(self, first: int, batch: Row, sign: int) -> None:
        done = max(self._completed_through + 1 - first, 0)
        if done:  # a new batch has no completed units yet
            for tally, count in _batch_tallies(batch, 0, done).items():
                self._count(batch["workspace_id"], tally, 0, sign * count)
        for tally, count in _batch_tallies(batch, done).items():
            self._count(batch["workspace_id"], tally, sign * count, 0)

    def _move_watermark(self, completed_through: int) -> None:
        """Units between the old and the new watermark change from pending to completed."""
        if completed_through == self._completed_through:
            return
        low, high = sorted((self._completed_through, completed_through))
        sign = 1 if completed_through > self._completed_through else -1
        for batch, _first, indexes in self._spans(low, high):
            for index in indexes:
                tally = status_tally(batch, batch, index)
                if tally is not None:
                    self._count(batch["workspace_id"], tally, -sign, sign)
        self._completed_through = completed_through

    def _count(self, workspace_id: str, tally: Tally, pending: int, completed: int) -> None:
        tallies = self._tallies.setdefault(workspace_id, {})
        counts = tallies.setdefault(tally, [0, 0])
        counts[0] += pending
        counts[1] += completed
        if counts == [0, 0]:
            del tallies[tally]
            if not tallies:
                del self._tallies[workspace_id]

    def _adopt_legacy(self) -> None:
        """Rewrite one-row-per-unit queue rows (state files from before batches) as batches."""
        if not self._legacy:
            return
        for key, row in sorted(self._legacy.items()):
            self.store.delete(COLLECTION, key)
            if row["status"] != "completed":
                names = UNIT_COLUMNS + (DREAM_COLUMNS if row["task_type"] == "dream" else ())
                columns = {name: [row.get(name)] for name in names}
                shared = {name: row.get(name) for name in SHARED_FIELDS}
                self.store.put(COLLECTION, key, {**shared, **columns})
                continue
            if row.get("error"):
                self.store.put(ERRORS_COLLECTION, key, row)
            if row["task_type"] != "representation" or row["observer"] == row["observed"]:
                self._add_completed(row["workspace_id"], _unit_tally(row), 1)


def _number_key(number: int) -> str:
    """The row key of a batch (by its first unit) or of a failed unit: ordered as text."""
    return f"{number:012d}"


def _is_legacy(row: Row) -> bool:
    return isinstance(row.get("task_type"), str)


def _unit(batch: Row, first: int, index: int) -> Row:
    """One unit of a batch as a row: the shared fields, its columns, ``id`` and ``status``."""
    unit = {name: batch[name] for name in SHARED_FIELDS}
    for name in UNIT_COLUMNS + DREAM_COLUMNS if "dream_type" in batch else UNIT_COLUMNS:
        unit[name] = batch[name][index]
    unit["id"] = first + index
    unit["status"] = "pending"
    return unit


def _tally(row: Row) -> Tally:
    """A ``queue_completed`` row's tally."""
    return (row["session_id"], row["session_uid"], row["observer"], row["observed"])


def _unit_tally(unit: Row) -> Tally:
    """The tally a unit row counts under (see :func:`status_tally`)."""
    observer = None if unit["task_type"] == "representation" else unit["observer"]
    return (unit["session_id"], unit["session_uid"], observer, unit["observed"])


def status_tally(shared: Row, columns: Columns, index: int) -> Tally | None:
    """The tally unit ``index`` counts under in queue status; None when it does not count.

    Honcho queues one representation item per message, carrying every observer in its
    payload (``observers``), so status counts it once and ``observer_id`` never matches
    it (it matches ``payload.observer``, which only dreams have). The toy deriver runs
    one unit per observer, contiguous per message; the message's last one stands for
    the item, so the item completes when its last observer is done.
    """
    return next(iter(status_tallies(shared, columns, index, index + 1)), None)


def status_tallies(
    shared: Row, columns: Columns, start: int = 0, stop: int | None = None
) -> dict[Tally, int]:
    """How many status items the units in ``[start:stop]`` make, per tally (one loop: a
    message write counts each of its units)."""
    task_types, message_ids = columns["task_type"], columns["message_id"]
    observers, observed = columns["observer"], columns["observed"]
    session, session_uid = shared["session_id"], shared["session_uid"]
    units = len(task_types)
    counts: dict[Tally, int] = {}
    for index in range(start, units if stop is None else stop):
        if task_types[index] in INTERNAL_TASKS:
            continue  # the server's status counts only representation, summary and dream
        if task_types[index] != "representation":
            tally = (session, session_uid, observers[index], observed[index])
        else:
            follows = index + 1
            if (
                follows < units
                and task_types[follows] == "representation"
                and message_ids[follows] == message_ids[index]
            ):
                continue  # the message's last representation unit stands for its item
            tally = (session, session_uid, None, observed[index])
        counts[tally] = counts.get(tally, 0) + 1
    return counts


def _batch_tallies(batch: Row, start: int = 0, stop: int | None = None) -> dict[Tally, int]:
    return status_tallies(batch, batch, start, stop)


class _Counts:
    def __init__(self) -> None:
        self.pending = self.in_progress = self.completed = 0

    def add(self, pending: int, in_progress: int, completed: int) -> None:
        self.pending += pending
        self.in_progress += in_progress
        self.completed += completed

    def as_dict(self) -> dict[str, int]:
        return {
            "total_work_units": self.pending + self.in_progress + self.completed,
            "completed_work_units": self.completed,
            "in_progress_work_units": self.in_progress,
            "pending_work_units": self.pending,
        }
