"""The deriver queue: which work a new message creates, and the queue status report.

Units are rows of the ``queue`` collection (so ``--state-file`` persists them),
keyed by a zero-padded sequence number: insertion order is queue order. A unit is
``pending``, then ``in_progress`` while a worker holds it, then ``completed``.

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

from collections.abc import Iterable
from typing import Any

from fake_honcho.deriver.config import observe_me, resolve
from fake_honcho.state import Row, Store

COLLECTION = "queue"
COUNTER_COLLECTION = "queue_counter"
COUNTER_KEY = "next"


def units_for_messages(
    store: Store, workspace_id: str, session_id: str, messages: list[Row]
) -> list[Row]:
    """The work a batch of stored messages creates, message by message, in Honcho's order."""
    members = _active_members(store, workspace_id, session_id)
    return [
        unit
        for message in messages
        for unit in _units_for_message(store, workspace_id, session_id, message, members)
    ]


def _units_for_message(
    store: Store, workspace_id: str, session_id: str, message: Row, members: list[Row]
) -> list[Row]:
    """The work one message creates (summary first, then the sender's own representation)."""
    conf = resolve(store, workspace_id, session_id, message.get("_configuration"))
    seq = message["_seq_in_session"]
    base = {"workspace_id": workspace_id, "session_id": session_id, "message_id": message["id"]}
    units: list[Row] = []
    if conf.summary and (seq % conf.short_every == 0 or seq % conf.long_every == 0):
        units.append(
            {**base, "task_type": "summary", "observer": None, "observed": None, "seq": seq}
        )
    if not conf.reasoning:
        return units
    sender = message["peer_id"]
    if not observe_me(store, workspace_id, session_id, sender):
        return units
    units.append({**base, "task_type": "representation", "observer": sender, "observed": sender})
    for member in members:
        if member["peer_id"] != sender and member.get("observe_others"):
            units.append(
                {
                    **base,
                    "task_type": "representation",
                    "observer": member["peer_id"],
                    "observed": sender,
                }
            )
    return units


def dream_unit(
    workspace_id: str, observer: str, observed: str, dream_type: str, rebuild: bool
) -> Row:
    """A ``dream`` unit (no session: it never appears in the status ``sessions`` map)."""
    return {
        "workspace_id": workspace_id,
        "session_id": None,
        "message_id": None,
        "task_type": "dream",
        "observer": observer,
        "observed": observed,
        "dream_type": dream_type,
        "rebuild": rebuild,
    }


def status(
    units: Iterable[Row],
    *,
    session_id: str | None = None,
    observer: str | None = None,
    sender: str | None = None,
) -> dict[str, Any]:
    """Honcho's ``QueueStatus``: counts per unit state, per internal session id unless filtered.

    ``observer_id`` and ``sender_id`` match a unit's observer *or* observed peer, as the
    real query ORs them.
    """
    totals = _Counts()
    sessions: dict[str, _Counts] = {}
    for unit in units:
        if session_id and unit["session_id"] != session_id:
            continue
        if (observer or sender) and not (
            (observer and unit["observer"] == observer) or (sender and unit["observed"] == sender)
        ):
            continue
        totals.add(unit["status"])
        if unit.get("session_uid"):
            sessions.setdefault(unit["session_uid"], _Counts()).add(unit["status"])
    report: dict[str, Any] = dict(totals.as_dict())
    if session_id:
        report["sessions"] = None
    else:
        report["sessions"] = {
            uid: {"session_id": uid, **counts.as_dict()} for uid, counts in sessions.items()
        } or None
    return report


def _active_members(store: Store, workspace_id: str, session_id: str) -> list[Row]:
    return [
        row
        for key, row in store.items("session_peers")
        if key[:2] == (workspace_id, session_id) and row.get("left_at") is None
    ]


class _Counts:
    def __init__(self) -> None:
        self.by_state = {"pending": 0, "in_progress": 0, "completed": 0}

    def add(self, state: str) -> None:
        self.by_state[state] += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "total_work_units": sum(self.by_state.values()),
            "completed_work_units": self.by_state["completed"],
            "in_progress_work_units": self.by_state["in_progress"],
            "pending_work_units": self.by_state["pending"],
        }
