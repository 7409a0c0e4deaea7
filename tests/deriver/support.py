"""Helpers for the deriver tests: a ticking clock, strict fakes and a seeder.

:class:`World` sets up peers, sessions and messages through the fake's own HTTP routes
(so the deriver hears about messages exactly as in use) and reads internal ids from
the store where the wire does not show them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from fake_honcho import FakeHoncho
from fake_honcho.deriver import DeriverMode

START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


class TickingClock:
    """A clock that advances one second per reading: deterministic and strictly increasing."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        moment = self.now
        self.now += timedelta(seconds=1)
        return moment


class World:
    """One workspace of a fake, set up over HTTP."""

    def __init__(self, fake: FakeHoncho, http: httpx.Client, workspace_id: str = "ws") -> None:
        self.fake = fake
        self.http = http
        self.ws = workspace_id
        self._call("POST", "/v3/workspaces", {"id": workspace_id})

    def configure_workspace(self, configuration: dict[str, Any]) -> None:
        self._call("PUT", f"/v3/workspaces/{self.ws}", {"configuration": configuration})

    def peer(self, peer_id: str, **configuration: Any) -> None:
        body = {"id": peer_id, "configuration": configuration}
        self._call("POST", f"/v3/workspaces/{self.ws}/peers", body)

    def session(
        self,
        session_id: str,
        members: dict[str, dict[str, Any]],
        configuration: dict[str, Any] | None = None,
    ) -> str:
        """A session with members ``{peer: {observe_me, observe_others}}``; its internal id."""
        body = {"id": session_id, "peers": members, "configuration": configuration}
        self._call("POST", f"/v3/workspaces/{self.ws}/sessions", body)
        row = self.fake.store.get("sessions", (self.ws, session_id))
        assert row is not None
        internal_id: str = row["_internal_id"]
        return internal_id

    def leave(self, session_id: str, *peer_ids: str) -> None:
        path = f"/v3/workspaces/{self.ws}/sessions/{session_id}/peers"
        self._call("DELETE", path, list(peer_ids))

    def say(
        self, session_id: str, peer_id: str, *contents: str, configuration: Any = None
    ) -> list[dict[str, Any]]:
        """Post messages from ``peer_id``; returns the created messages."""
        messages = [
            {"peer_id": peer_id, "content": content, "configuration": configuration}
            for content in contents
        ]
        created: list[dict[str, Any]] = []
        for start in range(0, len(messages), 100):
            path = f"/v3/workspaces/{self.ws}/sessions/{session_id}/messages"
            created += self._call("POST", path, {"messages": messages[start : start + 100]})
        return created

    def _call(self, method: str, path: str, body: Any) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.is_success, response.text
        return response.json() if response.content else None


def make_fake(mode: DeriverMode = "manual", seed: int = 7, **options: Any) -> FakeHoncho:
    """A strict fake with a fresh ticking clock: two calls give identical fakes."""
    return FakeHoncho(deriver=mode, strict=True, seed=seed, clock=TickingClock(), **options)
