"""A write the real server's database refuses leaves nothing on the fake either.

PostgreSQL's jsonb refuses NaN, Infinity, a NUL character and a lone surrogate: the
request answers 500 and its transaction rolls back (measured on real 3.0.12 and 3.1;
divergence real-unstorable-json-500). Every route that writes metadata or configuration
is sent such a value; the fake must answer as the server does, never crash, and show
the state the server shows afterwards. With ``real_bugs="correct"``: a 422, state
unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fake_honcho import FakeHoncho

JSON = {"content-type": "application/json"}
# Each is valid JSON to Python's parser and refused by jsonb.
UNSTORABLE = {
    "nan": b"NaN",
    "infinity": b"-Infinity",
    "nul": b'"a\\u0000b"',
    "surrogate": b'"\\ud800"',
}


def _client(real_bugs: str, version: str = "3.1") -> Iterator[httpx.Client]:
    with (
        FakeHoncho(version=version, real_bugs=real_bugs) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        client.post("/v3/workspaces", json={"id": "w", "metadata": {"kept": 1}})
        client.post("/v3/workspaces/w/peers", json={"id": "alice", "metadata": {"kept": 1}})
        client.post("/v3/workspaces/w/sessions", json={"id": "s", "peers": {"alice": {}}})
        message = client.post(
            "/v3/workspaces/w/sessions/s/messages",
            json={"messages": [{"peer_id": "alice", "content": "hi", "metadata": {"kept": 1}}]},
        ).json()[0]
        client.headers["x-message"] = message["id"]
        yield client


def _state(client: httpx.Client) -> dict[str, object]:
    """Everything a client can list: workspaces, peers, sessions, messages."""
    listed = {
        "workspaces": "/v3/workspaces/list",
        "peers": "/v3/workspaces/w/peers/list",
        "sessions": "/v3/workspaces/w/sessions/list",
        "messages": "/v3/workspaces/w/sessions/s/messages/list",
    }
    return {
        name: [
            (item["id"], item.get("metadata"), item.get("configuration"))
            for item in client.post(route, json={}).json()["items"]
        ]
        for name, route in listed.items()
    }


def _writes(value: bytes, message: str) -> list[tuple[str, str, bytes]]:
    """Each route writing metadata or configuration, with ``value`` inside."""
    meta = b'{"metadata": {"x": %s}}' % value
    conf = b'{"configuration": {"x": %s}}' % value
    return [
        ("PUT", "/v3/workspaces/w", meta),
        ("PUT", "/v3/workspaces/w", conf),
        ("PUT", "/v3/workspaces/new", meta),
        ("POST", "/v3/workspaces", b'{"id": "new", "configuration": {"x": %s}}' % value),
        ("POST", "/v3/workspaces/w/peers", b'{"id": "bob", "metadata": {"x": %s}}' % value),
        ("PUT", "/v3/workspaces/w/peers/alice", conf),
        ("PUT", "/v3/workspaces/w/peers/carol", meta),
        (
            "POST",
            "/v3/workspaces/w/sessions",
            b'{"id": "s2", "metadata": {"x": %s}, "peers": {"dan": {}}}' % value,
        ),
        ("PUT", "/v3/workspaces/w/sessions/s", meta),
        ("PUT", f"/v3/workspaces/w/sessions/s/messages/{message}", meta),
        (
            "POST",
            "/v3/workspaces/w/sessions/s/messages",
            b'{"messages": [{"peer_id": "alice", "content": "x", "metadata": {"x": %s}}]}' % value,
        ),
    ]


@pytest.mark.parametrize("real_bugs", ["reproduce", "correct"])
@pytest.mark.parametrize("kind", sorted(UNSTORABLE))
def test_a_refused_write_leaves_the_state_as_it_was(real_bugs: str, kind: str) -> None:
    for client in _client(real_bugs):
        for method, path, body in _writes(UNSTORABLE[kind], client.headers["x-message"]):
            if kind == "nul" and b'"metadata"' in body:
                continue  # Honcho's metadata validator strips NULs: that write is stored
            before = _state(client)
            answer = client.request(method, path, content=body, headers=JSON)
            if real_bugs == "reproduce":
                assert answer.status_code == 500, (method, path, answer.text)
                assert answer.json() == {"detail": "An unexpected error occurred"}
            else:
                assert answer.status_code == 422, (method, path, answer.text)
            assert _state(client) == before, (method, path)


def test_a_message_the_database_refuses_keeps_its_session_and_author() -> None:
    """The server commits the session and its new members before inserting messages."""
    for client in _client("reproduce"):
        body = b'{"messages": [{"peer_id": "erin", "content": "x", "metadata": {"x": NaN}}]}'
        answer = client.post("/v3/workspaces/w/sessions/s3/messages", content=body, headers=JSON)
        assert answer.status_code == 500
        state = _state(client)
        assert "s3" in [sid for sid, _, _ in state["sessions"]]  # type: ignore[union-attr]
        assert "erin" in [pid for pid, _, _ in state["peers"]]  # type: ignore[union-attr]
        listed = client.post("/v3/workspaces/w/sessions/s3/messages/list", json={}).json()
        assert listed["items"] == []


def test_nan_in_filters_is_no_write_and_no_refusal() -> None:
    """A filter is not stored: NaN there is a number like any other."""
    for client in _client("correct"):
        body = b'{"filters": {"metadata": {"kept": {"lt": NaN}}}}'
        answer = client.post("/v3/workspaces/w/peers/list", content=body, headers=JSON)
        assert answer.status_code == 200
