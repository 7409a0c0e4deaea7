"""Which register entry declares a difference the generated differential finds.

A generated case names no entry (a scripted exchange does), so each entry that can show
up among generated cases has a rule here: what it proves of the request, the two answers,
what the run did before and what the fake holds (:class:`History`). A rule counts only
where its entry applies to the version compared and the fake does not reproduce it; the
one exception is a deletion the server accepted and was not seen to carry out (its
deriver runs it later; the differential waits for it, :mod:`fake_honcho.drift.fuzz_settle`,
and only a deletion it timed out on, or one in a recording made before it waited, is
still half done on the server while the fake's is done).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit

from fake_honcho.drift.fuzz_exchange import Answer, FuzzCase
from fake_honcho.drift.fuzz_settle import Settle, deleted_resource
from fake_honcho.harness.divergences import divergence
from fake_honcho.store.resources import create_error
from fake_honcho.store.state import Store
from fake_honcho.versions import HonchoVersion

__all__ = ["RULES", "History", "Rule", "declared_by"]


@dataclass
class History:
    """What the run's earlier cases did on the server, and the fake's state."""

    store: Store | None = None
    """The fake's store, read as each difference is judged (what the fake would reject)."""
    unsettled: set[tuple[str, str | None]] = field(default_factory=set)
    """(workspace, session or None) whose DELETE the server accepted and that were not
    seen carried out (ids as the server names them)."""

    def record(self, case: FuzzCase, real: Answer, settle: Settle | None = None) -> None:
        deleted = deleted_resource(case, real)
        if deleted is not None and (settle is None or not settle.done):
            ws, sid = deleted
            self.unsettled.add((unquote(ws), None if sid is None else unquote(sid)))

    def has_workspace(self, ws: str) -> bool:
        return self.store is not None and self.store.get("workspaces", ws) is not None

    def has_active_session(self, ws: str, sid: str) -> bool:
        row = None if self.store is None else self.store.get("sessions", (ws, sid))
        return row is not None and bool(row.get("is_active"))

    def has_peer(self, ws: str, pid: str) -> bool:
        return self.store is not None and self.store.get("peers", (ws, pid)) is not None


@dataclass(frozen=True)
class Rule:
    """``entry`` explains a difference when ``matches(case, real, fake, history)``."""

    entry: str
    matches: Callable[[FuzzCase, Answer, Answer, History], bool]
    timing: bool = False
    """The difference is only when the server's deriver ran a deletion, which the
    differential did not see done: it counts even though the fake reproduces the entry."""


def _segments(case: FuzzCase) -> list[str]:
    """The path's segments, percent-decoded: "", "v3", "workspaces", ws, ..."""
    return [unquote(part) for part in urlsplit(case.target).path.split("/")]


def _sessions_named(parts: list[str]) -> Iterator[str]:
    for i in range(4, len(parts) - 1):
        if parts[i] == "sessions":
            yield parts[i + 1]


def _unsettled_deletion(case: FuzzCase, real: Answer, fake: Answer, history: History) -> bool:
    """A deletion not seen carried out: the server's session is inactive (404 naming it)
    where the fake's is gone; the server's workspace is still there where the fake has none."""
    parts = _segments(case)
    if len(parts) < 4 or parts[1:3] != ["v3", "workspaces"]:
        return False
    ws = parts[3]
    for sid in _sessions_named(parts):
        if (ws, sid) in history.unsettled and real == Answer(
            404, detail=f"Session {sid} not found in workspace {ws}"
        ):
            return True
    if (ws, None) not in history.unsettled or history.has_workspace(ws):
        return False
    missing = Answer(404, detail=f"Workspace {ws} not found")
    dream = case.operation.endswith("/schedule_dream") and fake.status == 500  # its real bug
    return real != missing and (fake == missing or dream)


def _batch(case: FuzzCase) -> tuple[set[str], set[str]] | None:
    """The sessions and peers a conclusion batch names."""
    if case.operation != "POST /v3/workspaces/{workspace_id}/conclusions" or case.body is None:
        return None
    try:
        items = json.loads(case.body)["conclusions"]
        sessions = {item["session_id"] for item in items if item.get("session_id") is not None}
        peers = {item[key] for item in items for key in ("observer_id", "observed_id")}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not all(isinstance(name, str) for name in sessions | peers):
        return None
    return sessions, peers


def _stage(answer: Answer, ws: str, sessions: set[str], peers: set[str]) -> tuple[str, str] | None:
    """Which check of the batch refused it: ("session", name), ("peer", name), or at the
    peers' check the 500 of a name that breaks the pattern ("peer", "")."""
    if answer.status == 500 and any(create_error([name]) for name in peers):
        return "peer", ""
    if answer.status != 404 or answer.detail is None:
        return None
    for kind, names in (("Session", sessions), ("Peer", peers)):
        for name in names:
            if answer.detail == f"{kind} {name} not found in workspace {ws}":
                return kind.lower(), name
    return None


def _conclusion_order(case: FuzzCase, real: Answer, fake: Answer, history: History) -> bool:
    """Both refuse the batch at the same check (its sessions, then its peers), naming
    different members of it, and what the server names the fake refuses too: only the
    order the server walks a Python set in differs."""
    batch = _batch(case)
    if batch is None:
        return False
    sessions, peers = batch
    ws = _segments(case)[3]
    server, ours = _stage(real, ws, sessions, peers), _stage(fake, ws, sessions, peers)
    if server is None or ours is None or server[0] != ours[0] or server == ours:
        return False
    kind, name = server
    if kind == "session":
        return not history.has_active_session(ws, name)
    return name == "" or not history.has_peer(ws, name)


def _exponent_datetime(case: FuzzCase, real: Answer, fake: Answer, _: History) -> bool:
    """One side refuses a query datetime written as a number in exponent notation, which
    the server's pydantic-core reads as a Unix time and the fake's does not, and nothing
    else: the other side answers as if the parameter passed."""
    refused, other = (fake, real) if fake.errors else (real, fake)
    if not refused.errors or other.status == 422:
        return False
    query = dict(parse_qsl(urlsplit(case.target).query, keep_blank_values=True))
    for kind, location in refused.errors:
        where, _dot, name = location.partition(".")
        value = query.get(name, "")
        if kind != "datetime_from_date_parsing" or where != "query" or "e" not in value.lower():
            return False
        try:
            float(value)
        except ValueError:
            return False
    return True


RULES: tuple[Rule, ...] = (
    Rule("pydantic-release-parsing", _exponent_datetime),
    Rule("conclusion-check-order", _conclusion_order),
    Rule("deletion-at-once", _unsettled_deletion, timing=True),
)


def declared_by(
    case: FuzzCase, real: Answer, fake: Answer, version: HonchoVersion, history: History
) -> str | None:
    """The id of the entry declaring this difference at ``version``, or None."""
    for rule in RULES:
        entry = divergence(rule.entry)
        if (
            entry.applies_to(version)
            and (rule.timing or not entry.reproduced)
            and rule.matches(case, real, fake, history)
        ):
            return rule.entry
    return None
