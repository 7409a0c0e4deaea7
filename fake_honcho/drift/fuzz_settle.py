"""Settle points: the generated differential waits for the server's deriver to carry out
a deletion it accepted, so the cases after it meet the same state on both sides.

Honcho answers ``DELETE`` of a workspace or a session with 202 and queues the deletion
(``enqueue_deletion``); its deriver carries it out on a later poll, seconds to tens of
seconds later (its poll interval backs off to ``DERIVER_POLLING_SLEEP_MAX_INTERVAL_SECONDS``,
30 s, with jitter, when idle). The fuzz's fake runs its deriver at once (register entry
``deletion-at-once``), so without a wait each case sent meanwhile found the deletion done
on one side only, at a moment that varied. After such a case, :func:`settle_deletion`
polls what the deletion shows until it is gone (with a timeout):

- a workspace: until ``POST /v3/workspaces/list`` filtered on its id no longer lists it
  (the server lists it until the deriver deletes its row);
- a session holding messages or members: until its messages list is empty and no peer of
  the workspace lists it among its sessions (``peers/{pid}/sessions`` shows an inactive
  session until it is deleted; the deletion removes all of it in one transaction);
- a session with neither: nothing reads it back, so its get-or-create is the probe: 404
  (inactive) until the deletion is done, then it creates the session again. That request
  is then sent to the fake too (:attr:`Settle.probe`), so both hold the same new session.

A :class:`Settle` is recorded beside the case, so a replay does the same: it sends the
probe to the fake, and the judge knows which deletions were seen done
(:mod:`fake_honcho.drift.fuzz_declared`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx

from fake_honcho.drift.fuzz_exchange import Answer, FuzzCase, send

__all__ = ["SETTLE_TIMEOUT", "Settle", "deleted_resource", "settle_deletion"]

SETTLE_TIMEOUT = 120.0
"""Seconds to wait for a deletion: above the deriver's longest idle poll (30 s, x1.5 jitter)."""
_POLL = 0.5


@dataclass(frozen=True)
class Settle:
    """What the differential waited for after a case: a deletion the server accepted."""

    waited: float
    """Seconds until the deletion was seen done (or until the timeout)."""
    done: bool
    """Whether it was seen done; if not, the cases after it may meet it half done."""
    probe: tuple[FuzzCase, Answer] | None = None
    """The get-or-create that saw an empty session's deletion done, and the server's
    answer: sent to the fake too, right after the case."""

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"waited": round(self.waited, 1), "done": self.done}
        if self.probe is not None:
            data["probe"] = [self.probe[0].as_json(), self.probe[1].as_json()]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settle:
        probe = data.get("probe")
        return cls(
            float(data["waited"]),
            bool(data["done"]),
            None if probe is None else (FuzzCase.from_json(probe[0]), Answer.from_json(probe[1])),
        )


def deleted_resource(case: FuzzCase, answer: Answer) -> tuple[str, str | None] | None:
    """``(workspace, session or None)`` a case's accepted DELETE removes, ids as raw
    (percent-encoded) path segments; None for any other case."""
    if case.method != "DELETE" or not 200 <= answer.status < 300:
        return None
    parts = urlsplit(case.target).path.split("/")  # "", "v3", "workspaces", ws[, "sessions", sid]
    if len(parts) == 4 and parts[1:3] == ["v3", "workspaces"]:
        return parts[3], None
    if len(parts) == 6 and parts[1:3] == ["v3", "workspaces"] and parts[4] == "sessions":
        return parts[3], parts[5]
    return None


def settle_deletion(
    client: httpx.Client,
    case: FuzzCase,
    answer: Answer,
    timeout: float = SETTLE_TIMEOUT,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Settle | None:
    """Wait until the server has carried out the deletion ``case`` made it accept; None
    when ``case`` accepted none."""
    deleted = deleted_resource(case, answer)
    if deleted is None:
        return None
    ws, sid = deleted
    start = clock()
    if sid is None:
        gone = _workspace_gone(client, ws)
        probe = None
    else:
        gone, probe = _session_gone(client, ws, sid)
    while True:
        done = gone()
        if done or clock() - start >= timeout:
            break
        sleep(_POLL)
    waited = clock() - start
    return Settle(waited, done, probe() if done and probe is not None else None)


def _items(response: httpx.Response) -> list[Any]:
    if response.status_code != 200:
        return []
    items = response.json().get("items")
    return items if isinstance(items, list) else []


def _workspace_gone(client: httpx.Client, ws: str) -> Callable[[], bool]:
    name = unquote(ws)

    def gone() -> bool:
        listed = client.post("/v3/workspaces/list", json={"filters": {"id": name}})
        return not any(item.get("id") == name for item in _items(listed))

    return gone


def _session_gone(
    client: httpx.Client, ws: str, sid: str
) -> tuple[Callable[[], bool], Callable[[], tuple[FuzzCase, Answer]] | None]:
    """The check that the session's deletion is done, and the probe it leaves to send to
    the fake too (None when what the session holds shows it)."""
    name = unquote(sid)
    base = f"/v3/workspaces/{ws}"
    peers = [item["id"] for item in _items(client.post(f"{base}/peers/list?size=100", json={}))]

    def messages() -> bool:
        return bool(_items(client.post(f"{base}/sessions/{sid}/messages/list", json={})))

    def members() -> list[str]:
        return [peer for peer in peers if _lists_session(client, base, peer, name)]

    holders = members()
    if messages() or holders:

        def gone() -> bool:
            return not messages() and not any(
                _lists_session(client, base, peer, name) for peer in holders
            )

        return gone, None
    probe_case = _get_or_create(ws, name)
    answers: list[Answer] = []

    def created() -> bool:
        answers.append(send(client, probe_case))
        return answers[-1].status != 404

    return created, lambda: (probe_case, answers[-1])


def _lists_session(client: httpx.Client, base: str, peer: str, session: str) -> bool:
    listed = client.post(f"{base}/peers/{quote(peer, safe='')}/sessions?size=100", json={})
    return any(item.get("id") == session for item in _items(listed))


def _get_or_create(ws: str, session: str) -> FuzzCase:
    body = json.dumps({"id": session}, ensure_ascii=False).encode("utf-8")
    return FuzzCase(
        "POST /v3/workspaces/{workspace_id}/sessions",
        "POST",
        f"/v3/workspaces/{ws}/sessions",
        (("content-type", "application/json"),),
        body,
    )
