"""Writing messages as Honcho does: the cascade (workspace, session, authors joining it),
the refusals it checks first, and the rows, numbered in the store and in their session."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from fake_honcho.errors import HonchoError, real_bug
from fake_honcho.store import scopes
from fake_honcho.store.message_index import message_index
from fake_honcho.store.resources import (
    cached_only,
    check_new_name,
    check_new_peer_names,
    ensure_session,
    now,
    plan_members,
    unable_to_create_session,
    write_members,
)
from fake_honcho.store.state import Row, message_row
from fake_honcho.store.tokens import token_count
from fake_honcho.versions import Feature

if TYPE_CHECKING:
    from fake_honcho.store.world import World

__all__ = ["store_messages"]


def store_messages(
    fake: World,
    ws: str,
    sid: str,
    drafts: list[dict[str, Any]],
    heard: Callable[[str, str, list[Row]], None],
) -> list[Row]:
    """Write ``drafts`` (``content``, ``peer_id``, ``metadata``, ``created_at`` or None,
    ``configuration`` or None) with the cascade; everything is checked before the first
    write. ``heard(ws, sid, rows)`` is told of the new rows under the lock (the deriver's
    ``on_messages_created``)."""
    # Counted back to back, outside the lock: interleaved with the rest of the write,
    # each count runs with the tokenizer's tables out of the CPU cache (half as fast).
    counts = [token_count(draft["content"]) for draft in drafts]
    authors = list(dict.fromkeys(draft["peer_id"] for draft in drafts))
    with fake.store.lock:
        # As crud/message.py create_messages: scope authors refused, the SessionCreate
        # model built (a bad session name is unhandled), then get_or_create_session: a
        # deleted session, the workspace (built first), the new peers' names.
        scopes.reject_scopes(fake, ws, authors, "Scope peers cannot author messages.")
        session = fake.store.get("sessions", (ws, sid))
        if session is None:
            check_new_name(fake, sid)
        elif not session["is_active"]:
            raise HonchoError(404, f"Session {sid} not found in workspace {ws}")
        if fake.store.get("workspaces", ws) is None:
            check_new_name(fake, ws)
            if session is None and cached_only(fake, ws) is not None:
                # 3.1 inserts the session into a workspace only its cache holds, and that
                # fails before the new peers' names are looked at
                raise unable_to_create_session(sid)
        joining = [
            pid for pid in authors if fake.store.get("session_peers", (ws, sid, pid)) is None
        ]
        if joining:  # no new member: no new peer, nothing to check
            try:
                check_new_peer_names(fake, ws, joining, creating_workspace=True)
            except HonchoError as corrected:
                if fake.version.speaks(Feature.PEER_NAME_422):
                    raise
                raise real_bug(fake, "real-invalid-author-500", corrected) from None
        # Honcho re-joins every author (crud/message.py create_messages ->
        # get_or_create_session), which restarts their joined_at.
        joins = plan_members(fake, ws, sid, {pid: {} for pid in authors})
        if session is None:  # else it is there and active (checked above)
            ensure_session(fake, ws, sid)
        write_members(fake, ws, sid, joins)
        # committed before the messages are inserted: a message the database refuses
        # leaves the session and its members (divergence real-unstorable-json-500)
        fake.store.commit()
        rows: list[Row] = []
        fake.store.put_many("messages", _new_rows(fake, ws, sid, drafts, counts, rows))
        heard(ws, sid, rows)
    return rows


def _new_rows(
    fake: World, ws: str, sid: str, drafts: list[dict[str, Any]], counts: list[int], rows: list[Row]
) -> Iterator[tuple[str, Row]]:
    """Each draft's ``(id, row)``, built as it is taken (its id and numbers drawn just
    before the store writes it), and appended to ``rows``."""
    stamp = now(fake)
    index = message_index(fake.store)
    new_id, next_seq, intern = fake.new_id, index.next_seq, sys.intern
    in_session = len(index.session_ids(ws, sid))
    for offset, (draft, count) in enumerate(zip(drafts, counts, strict=True), start=1):
        mid = new_id()
        row = message_row(  # in MESSAGE_KEYS order
            mid,
            draft["content"],
            intern(draft["peer_id"]),
            sid,  # session_id
            ws,  # workspace_id
            draft["metadata"],
            draft["created_at"] or stamp,
            count,
            next_seq(),  # _seq
            in_session + offset,  # _seq_in_session
        )
        if draft["configuration"]:
            # Only when set: ten keys keep the row dict in its smaller size class.
            row["_configuration"] = draft["configuration"]
        rows.append(row)
        yield mid, row
