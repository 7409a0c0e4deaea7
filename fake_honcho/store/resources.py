"""Get-or-create and lookups shared by the routes, with Honcho's cascade and texts.

Call these with ``fake.store.lock`` held: each is one step of a read-modify-write.
Rows are never mutated in place; changed copies are ``put`` back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fake_honcho.errors import (
    HonchoError,
    RequestValidationError,
    UnhandledError,
    invalid,
    real_bug,
)
from fake_honcho.store.grouping import session_members
from fake_honcho.store.ids import isoformat
from fake_honcho.store.state import Row
from fake_honcho.versions import Feature

if TYPE_CHECKING:
    from fake_honcho.store.world import World

SCOPE_PREFIX = "scope."  # 3.1: a scope is the peer of this name prefix
RESOURCE_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
RESOURCE_NAME_PATTERN = RESOURCE_NAME.pattern
SCOPE_KIND = "scope"
MAX_NAME_LENGTH = 512
SESSION_OBSERVERS_LIMIT = 10
# pydantic's error text links its docs by version; the server pins pydantic 2.13 (uv.lock).
_DOCS_VERSION = re.compile(r"errors\.pydantic\.dev/[0-9.]+/")
SERVER_PYDANTIC_DOCS = "errors.pydantic.dev/2.13/"


def now(fake: World) -> str:
    return isoformat(fake.clock())


def check_name(name: str, field: str = "id") -> None:
    """A path id about to become a new resource, validated as its create schema would."""
    if not name:
        raise invalid(
            "string_too_short",
            (field,),
            "String should have at least 1 character",
            name,
            {"min_length": 1},
        )
    if len(name) > MAX_NAME_LENGTH:
        raise invalid(
            "string_too_long",
            (field,),
            f"String should have at most {MAX_NAME_LENGTH} characters",
            name,
            {"max_length": MAX_NAME_LENGTH},
        )
    if not RESOURCE_NAME.match(name):
        raise invalid(
            "string_pattern_mismatch",
            (field,),
            f"String should match pattern '{RESOURCE_NAME_PATTERN}'",
            name,
            {"pattern": RESOURCE_NAME_PATTERN},
        )


#: The register entry of an id that breaks the pattern on a get-or-create route.
INVALID_ID_500 = "real-invalid-id-500"


def check_new_name(
    fake: World, name: str, refused: HonchoError | None = None, bug: str = INVALID_ID_500
) -> None:
    """A path id about to become a new resource, as the route's real server answers it.

    Honcho builds the create model from the path outside request validation: most
    routes let its ValidationError through (a 500: register entry ``bug``, or with
    ``real_bugs="correct"`` the item :func:`check_name` gives); a route that turns it
    into its own answer passes that as ``refused``.
    """
    try:
        check_name(name)
    except RequestValidationError as corrected:
        raise (refused or real_bug(fake, bug, corrected)) from None


def unhandled_if_unnamable(fake: World, name: str, bug: str) -> None:
    """3.0.12's peer card routes build ``PeerCreate(name=...)`` of the path's peer outside
    any error handling: a name it refuses is that server's 500 (register entry ``bug``),
    unless the fake corrects real bugs (then the route answers as 3.1 does)."""
    if (
        fake.real_bugs == "reproduce"
        and not fake.version.speaks(Feature.PEER_NAME_422)
        and create_error([name]) is not None
    ):
        raise UnhandledError(bug)


def clean_configuration(configuration: dict[str, Any] | None) -> dict[str, Any]:
    """``model_dump(exclude_none=True)`` of a configuration model: nulls dropped."""
    if not configuration:
        return {}
    return {
        key: clean_configuration(value) if isinstance(value, dict) else value
        for key, value in configuration.items()
        if value is not None
    }


# -- workspaces ---------------------------------------------------------------


#: 3.1 keeps the workspace row its get-or-create made in its cache (``CACHE.DEFAULT_TTL_
#: SECONDS``), also when the same request's peer-name check then rolls the row back.
WORKSPACE_CACHE_TTL = timedelta(seconds=300)
PHANTOM_WORKSPACE = "real-rejected-write-phantom-workspace"


def cached_only(fake: World, ws: str) -> Row | None:
    """The row 3.1's cache still holds for a workspace that was never stored (a refused
    write was about to create it), until the entry expires by the fake's clock."""
    entry = fake.workspace_cache.get(ws)
    if entry is None:
        return None
    expires, row = entry
    if fake.clock() < expires and fake.store.get("workspaces", ws) is None:
        return row
    del fake.workspace_cache[ws]
    return None


def cache_refused_workspace(fake: World, ws: str) -> None:
    """A write that creates its workspace first was refused for its peer names: 3.1 caches
    the workspace it rolls back (reproduced unless ``real_bugs="correct"``)."""
    if (
        fake.real_bugs == "reproduce"
        and fake.version.speaks(Feature.PEER_NAME_422)
        and fake.store.get("workspaces", ws) is None
        and cached_only(fake, ws) is None
    ):
        row = {"id": ws, "metadata": {}, "configuration": {}, "created_at": now(fake)}
        fake.workspace_cache[ws] = (fake.clock() + WORKSPACE_CACHE_TTL, row)


def fail_if_cached_only(fake: World, ws: str) -> None:
    """A write the server lets through its cached workspace and the database then refuses."""
    if cached_only(fake, ws) is not None:
        raise UnhandledError(PHANTOM_WORKSPACE)


def get_workspace(fake: World, ws: str) -> Row:
    """The workspace, or 3.1's cached row of one never stored (the server reads it there)."""
    row = fake.store.get("workspaces", ws) or cached_only(fake, ws)
    if row is None:
        raise HonchoError(404, f"Workspace {ws} not found")
    return row


def ensure_workspace(
    fake: World,
    ws: str,
    refused: HonchoError | None = None,
    creating: Callable[[], HonchoError] | None = None,
) -> tuple[Row, bool]:
    """The workspace, created empty if missing; ``(row, created)``; an invalid name is
    answered as :func:`check_new_name` says. While 3.1's cache holds it without a row
    (:func:`cached_only`) the server's insert of what is being created fails: the 409
    ``creating()`` builds (only then: most calls find the workspace), or without it a 500."""
    row = fake.store.get("workspaces", ws)
    if row is not None:
        return row, False
    if cached_only(fake, ws) is not None:
        raise creating() if creating is not None else UnhandledError(PHANTOM_WORKSPACE)
    check_new_name(fake, ws, refused)
    row = {"id": ws, "metadata": {}, "configuration": {}, "created_at": now(fake)}
    fake.store.put("workspaces", ws, row)
    return row, True


# -- peers --------------------------------------------------------------------


def is_scope(row: Row | None) -> bool:
    """Whether a peer row is a scope (3.1): reserved name *and* the internal kind flag, so an
    ordinary peer that merely holds a ``scope.`` name is none. Scope memberships never count
    against the observer limit."""
    return row is not None and row["id"].startswith(SCOPE_PREFIX) and row.get("_kind") == SCOPE_KIND


def reject_reserved_new(fake: World, ws: str, names: Iterable[str]) -> None:
    """3.1: 422 for a peer about to be created under the reserved ``scope.`` prefix."""
    if not fake.version.speaks(Feature.SCOPES):
        return
    found = sorted(
        {
            n
            for n in names
            if n.startswith(SCOPE_PREFIX) and fake.store.get("peers", (ws, n)) is None
        }
    )
    if found:
        raise HonchoError(
            422,
            f"Peer name(s) {found} use the reserved scope prefix '{SCOPE_PREFIX}'. "
            "Use the scopes routes to create scopes.",
        )


def reject_impossible_peer_names(names: Iterable[str]) -> None:
    """422 for names no stored peer can hold (a NUL, over-long), which 3.1 refuses before
    looking peers up; each named once, sorted."""
    listed = sorted(set(names))
    if any("\x00" in name for name in listed):
        raise HonchoError(422, "Peer name(s) must not contain NUL (0x00) bytes")
    too_long = [name for name in listed if len(name) > MAX_NAME_LENGTH]
    if too_long:
        raise HonchoError(
            422, f"Peer name(s) {too_long} must be at most {MAX_NAME_LENGTH} characters"
        )


def check_new_peer_names(
    fake: World, ws: str, names: list[str], *, creating_workspace: bool = False
) -> None:
    """The server's checks of peer names about to be created (no stored peer can hold a
    NUL or an over-long name), then ``_validate_new_peer_names``: each named once, sorted.
    The latter runs after a write that is ``creating_workspace`` made it (its refusal
    leaves the workspace in 3.1's cache: :func:`cache_refused_workspace`)."""
    new = sorted({name for name in names if fake.store.get("peers", (ws, name)) is None})
    reject_impossible_peer_names(new)
    try:
        reject_reserved_new(fake, ws, new)
        bad = [name for name in new if not RESOURCE_NAME.fullmatch(name)]
        if bad:
            raise HonchoError(422, f"Peer name(s) {bad} must match pattern {RESOURCE_NAME_PATTERN}")
    except HonchoError:
        if creating_workspace:
            cache_refused_workspace(fake, ws)
        raise


class PeerCreate(BaseModel):
    """The server's ``schemas.PeerCreate`` name rule; its class name is in the error text."""

    name: Annotated[
        str,
        Field(alias="id", min_length=1, max_length=MAX_NAME_LENGTH, pattern=RESOURCE_NAME_PATTERN),
    ]
    model_config = ConfigDict(populate_by_name=True)


class WorkspaceCreate(PeerCreate):
    """The server's ``schemas.WorkspaceCreate`` name rule (the same as a peer's)."""


def create_error(names: Iterable[str], model: type[BaseModel] = PeerCreate) -> str | None:
    """``str()`` of the ValidationError the server's ``model(name=...)`` raises for the
    first bad name, or None. Session routes build one per peer of a map and turn it into
    their own answer (a 422 with this text, or a 404)."""
    for name in names:
        try:
            model(name=name)
        except ValidationError as error:
            return _DOCS_VERSION.sub(SERVER_PYDANTIC_DOCS, str(error))
    return None


def new_peer(fake: World, ws: str, pid: str, metadata: Any, configuration: Any) -> Row:
    return {
        "id": pid,
        "workspace_id": ws,
        "created_at": now(fake),
        "metadata": metadata or {},
        "configuration": configuration or {},
    }


def ensure_peers(fake: World, ws: str, names: list[str]) -> None:
    """Create the missing peers (and the workspace) after validating their names."""
    missing = [name for name in names if fake.store.get("peers", (ws, name)) is None]
    if not missing:  # the common case: a write by peers that exist
        return
    if fake.store.get("workspaces", ws) is None:
        check_new_name(fake, ws)  # the workspace is built before the peers
    check_new_peer_names(fake, ws, missing)
    names = list(dict.fromkeys(missing))
    ensure_workspace(fake, ws, creating=lambda: unable_to_create_peers(names))
    for pid in names:
        fake.store.put("peers", (ws, pid), new_peer(fake, ws, pid, None, None))


def get_peer(fake: World, ws: str, pid: str) -> Row:
    row = fake.store.get("peers", (ws, pid))
    if row is None:
        raise HonchoError(404, f"Peer {pid} not found in workspace {ws}")
    return row


# -- sessions -----------------------------------------------------------------


def unable_to_create_peers(names: list[str]) -> HonchoError:
    return HonchoError(409, f"Unable to create or get peers: {names}")


def unable_to_create_session(sid: str) -> HonchoError:
    return HonchoError(409, f"Unable to create or get session: {sid}")


def session_not_found(ws: str, sid: str) -> HonchoError:
    return HonchoError(404, f"Session {sid} not found in workspace {ws}")


def get_active_session(fake: World, ws: str, sid: str) -> Row:
    row = fake.store.get("sessions", (ws, sid))
    if row is None or not row["is_active"]:
        raise session_not_found(ws, sid)
    return row


def new_session(fake: World, ws: str, sid: str, metadata: Any, configuration: Any) -> Row:
    return {
        "id": sid,
        "workspace_id": ws,
        "is_active": True,
        "metadata": metadata or {},
        "configuration": clean_configuration(configuration),
        "created_at": now(fake),
        "_internal_id": fake.new_id(),
    }


def ensure_session(
    fake: World, ws: str, sid: str, refused: HonchoError | None = None
) -> tuple[Row, bool]:
    """An active session, created (with its workspace) if missing; 404 if deleted; an
    invalid name is answered as :func:`check_new_name` says."""
    row = fake.store.get("sessions", (ws, sid))
    if row is not None:
        if not row["is_active"]:
            raise session_not_found(ws, sid)
        return row, False
    check_new_name(fake, sid, refused)
    ensure_workspace(fake, ws, refused, creating=lambda: unable_to_create_session(sid))
    row = new_session(fake, ws, sid, None, None)
    fake.store.put("sessions", (ws, sid), row)
    return row, True


def observers_error(sid: str, count: int) -> HonchoError:
    return HonchoError(
        400,
        f"Cannot create session {sid} with {count} observers. Maximum allowed is "
        f"{SESSION_OBSERVERS_LIMIT} observers per session. Observers are peers with "
        "'observe_others' set to true.",
    )


def add_members(
    fake: World,
    ws: str,
    sid: str,
    peers: dict[str, Any],
    *,
    replace_config: bool = False,
    leaving: Collection[str] = (),
) -> None:
    """Join ``peers`` (id -> SessionPeerConfig) to the session, then remove ``leaving``.

    Active members keep their config unless ``replace_config``; members who had left
    rejoin with the given config. Everything is checked, on the resulting member set,
    before anything is written.
    """
    changes = plan_members(fake, ws, sid, peers, replace_config=replace_config, leaving=leaving)
    write_members(fake, ws, sid, changes)
    remove_members(fake, ws, sid, list(leaving))


def write_members(fake: World, ws: str, sid: str, changes: dict[str, Row]) -> None:
    """Store the membership rows :func:`plan_members` returned (creating missing peers)."""
    ensure_peers(fake, ws, list(changes))
    for pid, row in changes.items():
        fake.store.put("session_peers", (ws, sid, pid), row)


def plan_members(
    fake: World,
    ws: str,
    sid: str,
    peers: dict[str, Any],
    *,
    replace_config: bool = False,
    leaving: Collection[str] = (),
) -> dict[str, Row]:
    """The membership rows :func:`add_members` would write; raises the observer 400 first.

    Peer names are the caller's to check first: each route answers a bad one its own way.
    """
    if not peers and not leaving:
        return {}
    stamp = now(fake)
    changes: dict[str, Row] = {}
    rejoins_only = not leaving  # then the observers are those of the session as it is
    for pid, config in peers.items():
        config = config or {}
        current = fake.store.get("session_peers", (ws, sid, pid))
        active = current is not None and current["left_at"] is None
        # Honcho upserts memberships with ON CONFLICT ... SET joined_at = now(): every
        # join (message writes included) restarts what peer_perspective search sees.
        if current is not None and active and not replace_config:
            row = {**current, "joined_at": stamp}
        else:
            rejoins_only = False
            row = {
                "peer_id": pid,
                "observe_me": config.get("observe_me"),
                "observe_others": config.get("observe_others"),
                "joined_at": stamp,
                "left_at": None,
            }
        changes[pid] = row
    if not rejoins_only:
        planned: dict[str, Row] = {
            row["peer_id"]: row
            for row in session_members(fake.store, ws, sid)
            if row["peer_id"] not in leaving
        }
        planned.update(changes)
        observers = sum(
            1
            for pid, row in planned.items()
            if row.get("observe_others") and not is_scope(fake.store.get("peers", (ws, pid)))
        )
        if observers > SESSION_OBSERVERS_LIMIT:
            raise observers_error(sid, observers)
    return changes


def remove_members(fake: World, ws: str, sid: str, peer_ids: list[str]) -> None:
    """Soft-remove members: ``left_at`` is set, the row stays. 3.0.12 compares the names
    in PostgreSQL, whose text cannot hold NUL: a 500 (3.1 refuses such a name before)."""
    if any("\x00" in pid for pid in peer_ids):
        refused = HonchoError(422, "Peer name(s) must not contain NUL (0x00) bytes")
        raise real_bug(fake, "real-nul-lookup-500", refused)
    stamp = now(fake)
    for pid in dict.fromkeys(peer_ids):
        current = fake.store.get("session_peers", (ws, sid, pid))
        if current is not None and current["left_at"] is None:
            fake.store.put("session_peers", (ws, sid, pid), {**current, "left_at": stamp})


def session_peer_config(row: Row) -> dict[str, Any]:
    return {"observe_me": row.get("observe_me"), "observe_others": row.get("observe_others")}
