"""Work held until the deriver may claim it, by Honcho's work unit: the batching gate.

The real deriver groups queue items into work units (``src/utils/work_unit.py``):
representation work by session and sender, summaries by session, dreams by type,
observer and observed. A worker claims one work unit at a time, oldest item first,
and works through everything it holds; until then every item is pending. A
representation work unit is claimable only once its unprocessed messages hold the
gate's token target or its oldest item is old enough
(``src/deriver/queue_manager.py``, ``get_and_claim_work_units``); the others at once.

:class:`Holding` keeps the work not yet claimed as rows of the ``queue_held``
collection, one per work unit (``units`` in the queue's column layout, ``tokens``
summed once per message, ``created_at`` of the oldest item), so persistence and
``store.clear()`` cover it. Claiming a work unit takes its row out; the deriver
then queues its units as one batch of the work queue, and items of that work unit
queued while it is claimed join the claim, as the real worker takes every item of
its work unit until none is left.

Not copied: the real worker marks a batch of items (up to
``DERIVER_REPRESENTATION_BATCH_TARGET_INPUT_TOKENS`` of messages) processed together,
and after a failed LLM call only the batch's first item; the fake completes its
units one at a time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime

from fake_honcho.deriver.config import BatchGate
from fake_honcho.deriver.queue import Columns, Tally, status_tallies
from fake_honcho.store.ids import isoformat
from fake_honcho.store.state import Key, Row, Store

COLLECTION = "queue_held"

#: ``(task_type, workspace, session, observer, observed, dream_type)``, ``""`` for none.
UnitKey = tuple[str, str, str, str, str, str]


def work_unit_of(shared: Row, columns: Columns, index: int) -> UnitKey:
    """The work unit (Honcho's ``work_unit_key``) of one unit of a batch."""
    task_type = columns["task_type"][index]
    observer = columns["observer"][index] or ""
    observed = columns["observed"][index] or ""
    session = shared["session_id"] or ""
    if task_type == "representation":  # one work unit serves every observer of the sender
        return (task_type, shared["workspace_id"], session, "", observed, "")
    dream_type = columns["dream_type"][index] if "dream_type" in columns else ""
    return (task_type, shared["workspace_id"], session, observer, observed, dream_type or "")


class Holding:
    """Unclaimed work per work unit, and which work unit the gate lets a worker claim next.

    A store listener (like the work queue). Call every method under ``store.lock``.
    """

    def __init__(self, store: Store, clock: Callable[[], datetime], gate: BatchGate) -> None:
        self.store = store
        self.clock = clock
        self.gate = gate
        self._rows: dict[UnitKey, Row] = {}
        #: Per workspace: tally -> held (pending) units.
        self._tallies: dict[str, Counter[Tally]] = {}
        for key, row in store.items(COLLECTION):
            self._on_change(COLLECTION, key, None, row)
        store.subscribe(self._on_change, collections=(COLLECTION,))

    def add(
        self,
        shared: Row,
        columns: Columns,
        tokens: dict[str, int],
        *,
        claimed: UnitKey | None = None,
    ) -> Columns:
        """Hold a batch's units, each under its work unit; ``tokens`` per message id.

        Units of the ``claimed`` work unit are not held but returned (columns, possibly
        empty): the worker that holds a claim takes every item of its work unit until
        none is left, including items queued after the claim.
        """
        now = isoformat(self.clock())
        grouped: dict[UnitKey, list[int]] = {}
        for index in range(len(columns["task_type"])):
            grouped.setdefault(work_unit_of(shared, columns, index), []).append(index)
        joining = grouped.pop(claimed, []) if claimed is not None else []
        passed = {name: [values[index] for index in joining] for name, values in columns.items()}
        for key, indexes in grouped.items():
            row = self._rows.get(key)
            held = (
                {name: list(values) for name, values in row["units"].items()}
                if row
                else {name: [] for name in columns}
            )
            counted = set(held["message_id"])
            added = 0
            for index in indexes:
                message_id = columns["message_id"][index]
                if key[0] == "representation" and message_id not in counted:
                    counted.add(message_id)
                    added += tokens.get(message_id, 0)
                for name in held:
                    held[name].append(columns[name][index])
            new = {
                **{name: shared[name] for name in ("workspace_id", "session_id", "session_uid")},
                "created_at": row["created_at"] if row else now,
                "tokens": (row["tokens"] if row else 0) + added,
                "units": held,
            }
            self.store.put(COLLECTION, key, new)
        return passed

    def next_claim(self, *, ignore_gate: bool = False) -> UnitKey | None:
        """The work unit a worker claims next: oldest first, representation work gated."""
        now = self.clock()
        ready = [
            (row["created_at"], key)
            for key, row in self._rows.items()
            if ignore_gate
            or key[0] != "representation"
            or not self.gate.holds(row["tokens"], datetime.fromisoformat(row["created_at"]), now)
        ]
        return min(ready)[1] if ready else None

    def take(self, key: UnitKey) -> tuple[Row, Columns]:
        """Remove a held work unit: its shared fields and its units' columns."""
        row = self._rows[key]
        self.store.delete(COLLECTION, key)
        shared = {name: row[name] for name in ("workspace_id", "session_id", "session_uid")}
        return shared, row["units"]

    def pending(self, workspace_id: str) -> Counter[Tally]:
        """Held units of one workspace, counted per tally (all pending)."""
        return self._tallies.get(workspace_id, Counter())

    def _on_change(self, collection: str, key: Key, old: Row | None, new: Row | None) -> None:
        assert isinstance(key, tuple)
        unit_key: UnitKey = key  # type: ignore[assignment]
        for row, sign in ((old, -1), (new, 1)):
            if row is None:
                continue
            tallies = self._tallies.setdefault(row["workspace_id"], Counter())
            for tally, count in status_tallies(row, row["units"]).items():
                tallies[tally] += sign * count
            tallies += Counter()  # drop zero counts
            if tallies:
                self._tallies[row["workspace_id"]] = tallies
            else:
                del self._tallies[row["workspace_id"]]
        if new is None:
            self._rows.pop(unit_key, None)
        else:
            self._rows[unit_key] = new
