"""The two scope jobs of the queue (Honcho 3.1's ``scope_backfill`` / ``scope_removal``).

A session added to a scope after it had messages gets the explicit conclusions its
peers already drew about themselves in it (observer = observed, that session) copied
into the scope's own collections; a session removed from a scope takes its copies out
again (the server soft-deletes and a re-add restores the same row: here a copy's id is
fixed by its source, so a re-add brings back the same id). Both are row copies, never
new derivations, and each asks for dreams on the pairs it touched, as the server does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from fake_honcho.deriver.conclusions import Conclusions, NewConclusion
from fake_honcho.deriver.work import derived_id
from fake_honcho.store import scopes
from fake_honcho.store.ids import isoformat
from fake_honcho.store.state import Row, Store


@dataclass(frozen=True)
class Dream:
    """A dream a scope job asks for once it is done."""

    observer: str
    observed: str
    dream_type: str
    rebuild: bool = False


def status_entry(state: str, clock: Callable[[], datetime], copied: int | None = None) -> Row:
    """One session's backfill status, stamped as the server stamps it (``+00:00``)."""
    entry: Row = {"state": state, "updated_at": clock().isoformat()}
    if copied is not None:
        entry["docs_copied"] = copied
    return entry


def backfill(
    store: Store, conclusions: Conclusions, unit: Row, clock: Callable[[], datetime]
) -> list[Dream]:
    """Copy the session's self-conclusions into the scope; status ``completed``."""
    ws, scope_pid, sid = unit["workspace_id"], unit["observer"], unit["session_id"]
    membership = store.get("session_peers", (ws, sid, scope_pid))
    if membership is None or membership["left_at"] is not None:
        return []  # removed before this ran: nothing to copy, nothing to record
    copied = {
        row["_copied_from"]
        for row in conclusions.in_workspace(ws)
        if row["observer_id"] == scope_pid and row.get("session_id") == sid
        if row.get("_copied_from")
    }
    sources = [
        row
        for row in conclusions.in_workspace(ws)
        if row.get("session_id") == sid
        and row["level"] == "explicit"
        and row["observer_id"] == row["observed_id"]
        and not row["observer_id"].startswith(scopes.PREFIX)
        and row["id"] not in copied
    ]
    stamp = isoformat(clock())  # a copy is a new row, created now
    for source in sources:
        row = conclusions.add(
            NewConclusion(
                workspace_id=ws,
                id=copy_id(ws, scope_pid, source["id"]),
                content=source["content"],
                observer_id=scope_pid,
                observed_id=source["observed_id"],
                session_id=sid,
                created_at=stamp,
                message_created_at=source.get("_message_created_at"),
            )
        )
        store.put(
            "conclusions",
            (ws, row["id"]),
            {**row, "times_derived": source.get("times_derived", 1), "_copied_from": source["id"]},
        )
    scopes.set_status(store, ws, scope_pid, sid, status_entry("completed", clock, len(sources)))
    touched = sorted({source["observed_id"] for source in sources})
    return [Dream(scope_pid, observed, "omni") for observed in touched]


def removal(store: Store, conclusions: Conclusions, unit: Row) -> list[Dream]:
    """Take the session's conclusions out of the scope; clear its backfill status."""
    ws, scope_pid, sid = unit["workspace_id"], unit["observer"], unit["session_id"]
    gone = [
        row
        for row in conclusions.in_workspace(ws)
        if row["observer_id"] == scope_pid and row.get("session_id") == sid
    ]
    for row in gone:
        conclusions.delete(ws, row["id"])
    scopes.set_status(store, ws, scope_pid, sid, None)
    touched = sorted({row["observed_id"] for row in gone})
    return [
        dream
        for observed in touched
        for dream in (
            Dream(scope_pid, observed, "card_refresh", rebuild=True),
            Dream(scope_pid, observed, "omni"),
        )
    ]


def copy_id(ws: str, scope_pid: str, source_id: str) -> str:
    """A copy's id, fixed by its source (so a re-add restores the same conclusion)."""
    return derived_id(ws, scope_pid, "", source_id, "copy")
