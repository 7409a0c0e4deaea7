"""Scopes (Honcho 3.1): a named set of sessions, kept as a peer named ``scope.<name>``.

A scope peer observes its member sessions (membership ``observe_others=true,
observe_me=false``) and never speaks; the API shows its unprefixed name. What makes a
peer a scope is the reserved name prefix *and* the internal kind flag (``_kind`` on
the row, never sent), so an ordinary peer that merely holds a ``scope.`` name is no
scope. The backfill status lives on the scope's row too (``_backfill_status``).

Call everything here with ``fake.store.lock`` held. Refusals carry the real texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from fake_honcho.errors import HonchoError
from fake_honcho.store.grouping import PEER_SESSIONS, grouped
from fake_honcho.store.message_index import message_index
from fake_honcho.store.resources import SCOPE_KIND as KIND
from fake_honcho.store.resources import SCOPE_PREFIX as PREFIX
from fake_honcho.store.resources import (
    ensure_workspace,
    is_scope,
    now,
    reject_impossible_peer_names,
)
from fake_honcho.store.state import Row, Store
from fake_honcho.versions import Feature

if TYPE_CHECKING:
    from fake_honcho.store.world import World

STATUS = "_backfill_status"
MEMBERSHIP = {"observe_me": False, "observe_others": True}
MEMBERSHIP_ROUTES = "Scope membership is managed via the scopes routes."
MEMBERSHIP_HERE = (
    "Scope membership is managed via the scopes routes "
    "(/v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions) or the `scopes` "
    "field at session creation."
)
NO_REPRESENTATION = "No representation is formed of a scope, so a scope cannot be"
CONFIGURATION = {"observe_me": False}


def peer_id(name: str) -> str:
    """The peer behind scope ``name``."""
    return PREFIX + name


def name_of(pid: str) -> str:
    """The unprefixed scope name of a scope peer id."""
    return pid[len(PREFIX) :] if pid.startswith(PREFIX) else pid


def is_scope_peer(store: Store, ws: str, pid: str) -> bool:
    return pid.startswith(PREFIX) and is_scope(store.get("peers", (ws, pid)))


def public(row: Row) -> Row:
    """The ``Scope`` wire shape."""
    return {"id": name_of(row["id"]), "metadata": row["metadata"], "created_at": row["created_at"]}


def not_found(ws: str, name: str) -> HonchoError:
    return HonchoError(404, f"Scope {name} not found in workspace {ws}")


def get_scope(fake: World, ws: str, name: str) -> Row:
    row = fake.store.get("peers", (ws, peer_id(name)))
    if not is_scope(row):
        raise not_found(ws, name)
    assert row is not None
    return row


def resolve(fake: World, ws: str, names: Iterable[str]) -> list[str]:
    """Scope peer ids for unprefixed ``names`` (first-seen order, duplicates dropped)."""
    resolved: list[str] = []
    for name in dict.fromkeys(names):
        row = fake.store.get("peers", (ws, peer_id(name)))
        if row is None:
            raise not_found(ws, name)
        if not is_scope(row):
            raise HonchoError(
                422, f"'{name}' does not name a scope: a non-scope peer occupies its reserved name."
            )
        resolved.append(row["id"])
    return resolved


def memberships(store: Store, ws: str, scope_pid: str) -> Mapping[str, Row]:
    """The scope's membership rows by session, those it left included."""
    return grouped(store, PEER_SESSIONS, ws, scope_pid)


def sessions_of(store: Store, ws: str, scope_pid: str) -> list[str]:
    """Sessions the scope has any membership row in, left ones too: the loose rule the
    server's recall uses (``get_peer_session_names``)."""
    return list(memberships(store, ws, scope_pid))


def get_or_create(
    fake: World, ws: str, wanted: dict[str, dict[str, Any] | None]
) -> tuple[list[Row], bool]:
    """Scopes by name (-> metadata or None), created as needed; provided metadata replaces.

    409 when an ordinary peer already holds one's reserved name.
    """
    names = [peer_id(name) for name in wanted]
    ensure_workspace(
        fake, ws, creating=lambda: HonchoError(409, f"Unable to create or get scopes: {names}")
    )
    rows: list[Row] = []
    created = False
    for name, metadata in wanted.items():
        pid = peer_id(name)
        row = fake.store.get("peers", (ws, pid))
        if row is not None and not is_scope(row):
            raise HonchoError(
                409,
                f"A peer named '{pid}' already exists in workspace {ws} but is not a scope. "
                "Rename or delete that peer before creating this scope.",
            )
        if row is None:
            row = {
                "id": pid,
                "workspace_id": ws,
                "created_at": now(fake),
                "metadata": metadata or {},
                "configuration": dict(CONFIGURATION),
                "_kind": KIND,
            }
            created = True
        elif metadata is not None and metadata != row["metadata"]:
            row = {**row, "metadata": metadata}
        else:
            rows.append(row)
            continue
        fake.store.put("peers", (ws, pid), row)
        rows.append(row)
    return rows, created


def join(fake: World, ws: str, scope_pid: str, sessions: Iterable[str]) -> list[str]:
    """Make the scope a member of ``sessions`` (existing ones); the sessions that already
    have messages, whose backfill the caller queues (``fake.deriver.schedule_scope_task``)."""
    stamp = now(fake)
    index = message_index(fake.store)
    for sid in sorted(set(sessions)):
        fake.store.put(
            "session_peers",
            (ws, sid, scope_pid),
            {"peer_id": scope_pid, **MEMBERSHIP, "joined_at": stamp, "left_at": None},
        )
    return [
        sid
        for sid in sorted(set(sessions))
        if next(iter(index.session_ids(ws, sid)), None) is not None
    ]


def leave(fake: World, ws: str, scope_pid: str, sid: str) -> None:
    """End the scope's membership (kept, with ``left_at``); the caller queues the
    reconciliation (``scope_removal``)."""
    current = fake.store.get("session_peers", (ws, sid, scope_pid))
    if current is not None and current["left_at"] is None:
        fake.store.put("session_peers", (ws, sid, scope_pid), {**current, "left_at": now(fake)})


# -- guards on the generic routes ----------------------------------------------------


def reject_scopes(fake: World, ws: str, names: Iterable[str], action: str) -> None:
    """422 when any of ``names`` is a scope (name and flag); first, as the server's lookup
    does, for a name no peer can hold (so before a missing session's 404)."""
    names = list(names)
    if fake.version.speaks(Feature.SCOPES):
        reject_impossible_peer_names(names)
    found = sorted({n for n in names if is_scope_peer(fake.store, ws, n)})
    if found:
        raise HonchoError(422, f"Peer name(s) {found} are scopes. {action}")


def reject_scope_observed(fake: World, ws: str, names: Iterable[str], action: str) -> None:
    """422 for a scope, or a reserved name that does not exist yet (it may become one),
    in an observed position."""
    reserved = [n for n in dict.fromkeys(names) if n.startswith(PREFIX)]
    reject_scopes(fake, ws, reserved, action)
    missing = sorted({n for n in reserved if fake.store.get("peers", (ws, n)) is None})
    if missing:
        raise HonchoError(
            422,
            f"Peer name(s) {missing} are in the reserved scope namespace and do not exist, "
            f"so they may become scopes later. {action}",
        )


def status_of(row: Row) -> dict[str, Any]:
    return dict(row.get(STATUS) or {})


def set_status(store: Store, ws: str, scope_pid: str, sid: str, entry: Row | None) -> None:
    """Write (or with ``None`` drop) one session's backfill status on the scope's row."""
    row = store.get("peers", (ws, scope_pid))
    if row is None:
        return
    status = status_of(row)
    if entry is None:
        if sid not in status:
            return
        del status[sid]
    else:
        status[sid] = entry
    store.put("peers", (ws, scope_pid), {**row, STATUS: status})


def search_filters(
    fake: World, ws: str, name: str, filters: dict[str, Any] | None
) -> dict[str, Any] | None:
    """Workspace search's ``scope``: ``filters`` confined to the scope's sessions (any it
    ever had a membership row in), or None when it has none (nothing matches)."""
    given = dict(filters or {})
    if "session_id" in given:
        raise HonchoError(422, "`scope` and a 'session_id' filter are mutually exclusive")
    with fake.store.lock:
        [scope_pid] = resolve(fake, ws, [name])
        sessions = sessions_of(fake.store, ws, scope_pid)
    if not sessions:
        return None
    return {**given, "session_id": {"in": sessions}}
