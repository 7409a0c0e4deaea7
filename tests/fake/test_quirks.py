"""Each behaviour of ``honcho-v3-api.md`` the fake must copy, pinned one by one over HTTP."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho

from .conftest import detail

W = "/v3/workspaces/ws"
NANOID = re.compile(r"^[A-Za-z0-9_-]{21}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$")


def post(client: httpx.Client, path: str, body: Any = None, **params: Any) -> httpx.Response:
    return (
        client.post(path, json=body, params=params)
        if body is not None
        else client.post(path, params=params)
    )


def send_messages(client: httpx.Client, sid: str, *items: dict[str, Any]) -> list[dict[str, Any]]:
    response = post(client, f"{W}/sessions/{sid}/messages", {"messages": list(items)})
    assert response.status_code == 201, response.text
    return list(response.json())


# -- workspaces ---------------------------------------------------------------


def test_workspace_get_or_create_is_201_then_200_and_ignores_new_metadata(
    client: httpx.Client,
) -> None:
    first = post(client, "/v3/workspaces", {"id": "ws", "metadata": {"a": 1}})
    again = post(client, "/v3/workspaces", {"id": "ws", "metadata": {"a": 2}})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["metadata"] == {"a": 1}
    assert set(first.json()) == {"id", "metadata", "configuration", "created_at"}
    assert TIMESTAMP.match(first.json()["created_at"])


def test_workspace_accepts_name_alias_and_ignores_unknown_fields(client: httpx.Client) -> None:
    assert post(client, "/v3/workspaces", {"name": "ws2"}).json()["id"] == "ws2"
    assert post(client, "/v3/workspaces", {"id": "ws3", "extra_field": 1}).status_code == 201


def test_workspace_put_creates_replaces_metadata_and_merges_configuration(
    client: httpx.Client,
) -> None:
    created = client.put(W, json={"metadata": {"a": 1}, "configuration": {"x": 1, "y": 1}})
    assert created.status_code == 200
    updated = client.put(W, json={"metadata": {"b": 2}, "configuration": {"y": 2}})
    assert updated.json()["metadata"] == {"b": 2}
    assert updated.json()["configuration"] == {"x": 1, "y": 2}


def test_workspace_delete_conflicts_while_sessions_remain_then_cascades(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    assert client.delete("/v3/workspaces/nope").json() == {"detail": "Workspace nope not found"}
    send_messages(client, "s1", {"content": "hi", "peer_id": "alice"})
    conflict = client.delete(W)
    assert conflict.status_code == 409
    assert detail(conflict) == (
        "Cannot delete workspace 'ws': active session(s) remain. Delete all sessions first."
    )
    assert client.delete(f"{W}/sessions/s1").status_code == 202
    accepted = client.delete(W)
    assert (accepted.status_code, accepted.json()) == (
        202,
        {"message": "Workspace deletion accepted"},
    )
    assert fake.store.get("peers", ("ws", "alice")) is None
    assert fake.store.get("sessions", ("ws", "s1")) is None


# -- peers --------------------------------------------------------------------


def test_peer_get_or_create_replaces_metadata_and_creates_the_workspace(
    client: httpx.Client,
) -> None:
    first = post(client, f"{W}/peers", {"id": "alice", "metadata": {"v": 1}})
    second = post(client, f"{W}/peers", {"id": "alice", "metadata": {"v": 2}})
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["metadata"] == {"v": 2}
    assert set(first.json()) == {"id", "workspace_id", "created_at", "metadata", "configuration"}
    assert post(client, "/v3/workspaces", {"id": "ws"}).status_code == 200


def test_peer_put_is_get_or_create(client: httpx.Client) -> None:
    response = client.put(f"{W}/peers/bob", json={"metadata": {"k": "v"}})
    assert response.status_code == 200
    assert response.json()["metadata"] == {"k": "v"}


# -- sessions -----------------------------------------------------------------


def test_session_get_or_create_replaces_metadata_merges_configuration_adds_peers(
    client: httpx.Client,
) -> None:
    first = post(
        client,
        f"{W}/sessions",
        {"id": "s", "metadata": {"a": 1}, "configuration": {"summary": {"enabled": False}}},
    )
    assert first.status_code == 201
    second = post(
        client,
        f"{W}/sessions",
        {
            "id": "s",
            "metadata": {"b": 1},
            "configuration": {"reasoning": {"enabled": True, "custom_instructions": None}},
            "peers": {"alice": {"observe_others": True}},
        },
    )
    assert second.status_code == 200
    assert second.json()["metadata"] == {"b": 1}
    assert second.json()["configuration"] == {
        "summary": {"enabled": False},
        "reasoning": {"enabled": True},
    }
    # An active member keeps its config when added again.
    post(client, f"{W}/sessions", {"id": "s", "peers": {"alice": {"observe_others": False}}})
    config = client.get(f"{W}/sessions/s/peers/alice/config").json()
    assert config == {"observe_me": None, "observe_others": True}


def test_session_observer_limit_is_400_and_creates_nothing(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    peers = {f"p{i}": {"observe_others": True} for i in range(11)}
    response = post(client, f"{W}/sessions", {"id": "crowd", "peers": peers})
    assert response.status_code == 400
    assert detail(response) == (
        "Cannot create session crowd with 11 observers. Maximum allowed is 10 observers per "
        "session. Observers are peers with 'observe_others' set to true."
    )
    assert fake.store.count("sessions") == fake.store.count("peers") == 0


def test_deleted_session_is_gone_for_every_route() -> None:
    """Until the deriver has deleted it, the inactive session refuses every write and
    get-or-create; its messages still read back (deletion-at-once)."""
    with (
        FakeHoncho(deriver="manual") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        send_messages(client, "s", {"content": "hello", "peer_id": "alice"})
        deleted = client.delete(f"{W}/sessions/s")
        assert deleted.json() == {"message": "Session deleted successfully"}
        gone = "Session s not found in workspace ws"
        assert detail(post(client, f"{W}/sessions", {"id": "s"})) == gone
        assert detail(client.put(f"{W}/sessions/s", json={})) == gone
        assert detail(client.delete(f"{W}/sessions/s")) == gone
        refused = post(
            client, f"{W}/sessions/s/messages", {"messages": [{"content": "x", "peer_id": "a"}]}
        )
        assert (refused.status_code, detail(refused)) == (404, gone)
        assert post(client, f"{W}/sessions/list").json()["items"] == []
        assert post(client, f"{W}/sessions/s/messages/list").json()["total"] == 1
        fake.deriver.run_until_idle()
        assert post(client, f"{W}/sessions/s/messages/list").json()["total"] == 0
        assert post(client, f"{W}/sessions", {"id": "s"}).status_code == 201


def test_post_session_peers_creates_the_session_but_put_and_delete_404(
    client: httpx.Client,
) -> None:
    created = post(client, f"{W}/sessions/new/peers", {"alice": {}})
    assert created.status_code == 200
    assert created.json()["id"] == "new" and created.json()["is_active"] is True
    for method, body in (("PUT", {"alice": {}}), ("DELETE", ["alice"])):
        response = client.request(method, f"{W}/sessions/other/peers", json=body)
        assert (response.status_code, detail(response)) == (
            404,
            "Session other not found in workspace ws",
        )


def test_set_peers_soft_removes_and_rejoining_takes_new_config(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    post(client, f"{W}/sessions/s/peers", {"alice": {}, "bob": {}})
    client.put(f"{W}/sessions/s/peers", json={"bob": {"observe_me": False}})
    members = client.get(f"{W}/sessions/s/peers").json()
    assert [peer["id"] for peer in members["items"]] == ["bob"]
    assert fake.store.get("session_peers", ("ws", "s", "alice"))["left_at"] is not None
    post(client, f"{W}/sessions/s/peers", {"alice": {"observe_others": True}})
    assert client.get(f"{W}/sessions/s/peers/alice/config").json()["observe_others"] is True


def test_peer_config_put_is_204_and_merges_non_null_keys(client: httpx.Client) -> None:
    post(client, f"{W}/sessions/s/peers", {"alice": {"observe_me": False}})
    response = client.put(f"{W}/sessions/s/peers/alice/config", json={"observe_others": True})
    assert (response.status_code, response.content) == (204, b"")
    config = client.get(f"{W}/sessions/s/peers/alice/config").json()
    assert config == {"observe_me": False, "observe_others": True}


def test_peer_config_put_on_a_departed_member_keeps_it_departed(client: httpx.Client) -> None:
    """Found by the differential test against real 3.1 and 3.0.12: the config changes, and
    the peer does not rejoin."""
    post(client, f"{W}/sessions/s/peers", {"alice": {}, "bob": {}})
    client.put(f"{W}/sessions/s/peers", json={"bob": {}})
    response = client.put(f"{W}/sessions/s/peers/alice/config", json={"observe_me": False})
    assert response.status_code == 204
    members = client.get(f"{W}/sessions/s/peers").json()
    assert [peer["id"] for peer in members["items"]] == ["bob"]
    config = client.get(f"{W}/sessions/s/peers/alice/config").json()
    assert config == {"observe_me": False, "observe_others": None}


def test_member_config_of_an_unknown_peer_names_the_peer_from_3_1() -> None:
    """3.1 reads the peer before the membership (3.0.12 names the membership)."""
    texts = {}
    for version in ("3.0.12", "3.1"):
        with (
            FakeHoncho(version=version) as fake,
            httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
        ):
            texts[version] = detail(client.get(f"{W}/sessions/s/peers/bob/config"))
    assert texts == {
        "3.0.12": "Session peer bob not found in session s in workspace ws",
        "3.1": "Peer bob not found in workspace ws",
    }


def test_context_scope_is_dropped_unread_by_3_0_12() -> None:
    """As on a real 3.0.12 (found by probing the fake): no 422, the same answer as without."""
    with (
        FakeHoncho(version="3.0.12") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        path = f"{W}/sessions/s/context"
        assert client.get(path, params={"scope": "x"}).json() == client.get(path).json()


@pytest.mark.parametrize(("version", "status"), [("3.0.12", 404), ("3.1", 422)])
def test_an_over_long_member_name_is_refused_before_the_missing_session_from_3_1(
    version: str, status: int
) -> None:
    """3.1 refuses a name no peer can hold before looking anything up (found by the
    differential test against a real 3.1); a bad pattern still meets the session's 404."""
    long = "x" * 513
    with (
        FakeHoncho(version=version) as fake,
        httpx.Client(transport=fake.transport(), base_url="http://fake") as client,
    ):
        put = client.put(f"{W}/sessions/none/peers", json={long: {}})
        removed = client.request("DELETE", f"{W}/sessions/none/peers", json=[long])
        pattern = client.put(f"{W}/sessions/none/peers", json={"bad.name": {}})
    assert (put.status_code, removed.status_code, pattern.status_code) == (status, status, 404)
    if status == 422:
        assert detail(put) == f"Peer name(s) ['{long}'] must be at most 512 characters"


def test_clone_is_201_with_a_nanoid_and_404_for_unknown(client: httpx.Client) -> None:
    send_messages(client, "s", {"content": "one", "peer_id": "alice"})
    clone = post(client, f"{W}/sessions/s/clone")
    assert clone.status_code == 201 and NANOID.match(clone.json()["id"])
    missing = post(client, f"{W}/sessions/none/clone")
    assert (missing.status_code, detail(missing)) == (404, "Original session not found")


# -- messages -----------------------------------------------------------------


def test_posting_messages_cascades_workspace_session_peers_and_membership(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    rows = send_messages(
        client, "s", {"content": "a", "peer_id": "alice"}, {"content": "b", "peer_id": "bob"}
    )
    assert [row["content"] for row in rows] == ["a", "b"]
    assert fake.store.get("workspaces", "ws") is not None
    assert fake.store.get("sessions", ("ws", "s"))["is_active"] is True
    members = client.get(f"{W}/sessions/s/peers").json()["items"]
    assert [peer["id"] for peer in members] == ["alice", "bob"]
    for row in rows:
        assert set(row) == {
            "id", "content", "peer_id", "session_id", "metadata", "created_at", "workspace_id",
            "token_count",
        }  # fmt: skip
        assert NANOID.match(row["id"]) and TIMESTAMP.match(row["created_at"])


def test_messages_keep_insertion_order_not_client_created_at(client: httpx.Client) -> None:
    send_messages(
        client,
        "s",
        {"content": "late", "peer_id": "a", "created_at": "2030-01-01T00:00:00+02:00"},
        {"content": "early", "peer_id": "a", "created_at": "2020-01-01T00:00:00"},
    )
    items = post(client, f"{W}/sessions/s/messages/list").json()["items"]
    assert [m["content"] for m in items] == ["late", "early"]
    assert [m["created_at"] for m in items] == ["2029-12-31T22:00:00Z", "2020-01-01T00:00:00Z"]


def test_message_content_limits_and_empty_content(client: httpx.Client) -> None:
    rows = send_messages(
        client, "s", {"content": "", "peer_id": "a"}, {"content": "x" * 25_000, "peer_id": "a"}
    )
    assert rows[0]["token_count"] == 0 and rows[1]["token_count"] > 0


def test_nul_bytes_are_stripped(client: httpx.Client) -> None:
    rows = send_messages(
        client, "s", {"content": "a\x00b", "peer_id": "a", "metadata": {"k": "v\x00"}}
    )
    assert (rows[0]["content"], rows[0]["metadata"]) == ("ab", {"k": "v"})


def test_new_author_names_are_checked_with_a_string_detail(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    response = post(
        client, f"{W}/sessions/s/messages", {"messages": [{"content": "x", "peer_id": "new.peer"}]}
    )
    assert (response.status_code, detail(response)) == (
        422,
        "Peer name(s) ['new.peer'] must match pattern ^[a-zA-Z0-9_-]+$",
    )
    assert fake.store.count("sessions") == 0


def test_get_and_update_message_404_texts(client: httpx.Client) -> None:
    send_messages(client, "s", {"content": "x", "peer_id": "a"})
    assert detail(client.get(f"{W}/sessions/s/messages/nope")) == "Message with ID nope not found"
    assert detail(client.put(f"{W}/sessions/s/messages/nope", json={})) == "Message not found"


def test_unknown_session_lists_an_empty_page(client: httpx.Client) -> None:
    response = post(client, f"{W}/sessions/ghost/messages/list")
    assert response.json() == {"items": [], "total": 0, "page": 1, "size": 50, "pages": 0}


def test_upload_text_and_json_files(client: httpx.Client) -> None:
    text = "x" * 30_000
    response = client.post(
        f"{W}/sessions/s/messages/upload",
        data={"peer_id": "alice", "metadata": '{"src": "file"}'},
        files={"file": ("notes.txt", text.encode(), "text/plain")},
    )
    assert response.status_code == 201
    assert [len(m["content"]) for m in response.json()] == [25_000, 5_000]
    assert response.json()[0]["metadata"] == {"src": "file"}
    as_json = client.post(
        f"{W}/sessions/s/messages/upload",
        data={"peer_id": "alice"},
        files={"file": ("d.json", b'{"a": 1}', "application/json")},
    )
    assert [m["content"] for m in as_json.json()] == ['{"a": 1}']
    refused = client.post(
        f"{W}/sessions/s/messages/upload",
        data={"peer_id": "alice"},
        files={"file": ("x.bin", b"\x00\x01", "application/octet-stream")},
    )
    assert refused.status_code == 415


# -- pagination ---------------------------------------------------------------


def test_pagination_pages_reverse_and_past_the_end(client: httpx.Client) -> None:
    send_messages(client, "s", *({"content": str(i), "peer_id": "a"} for i in range(7)))
    url = f"{W}/sessions/s/messages/list"
    page2 = post(client, url, page=2, size=3).json()
    assert ([m["content"] for m in page2["items"]], page2["total"], page2["pages"]) == (
        ["3", "4", "5"],
        7,
        3,
    )
    backwards = post(client, url, page=1, size=3, reverse="true").json()
    assert [m["content"] for m in backwards["items"]] == ["6", "5", "4"]
    last_backwards = post(client, url, page=3, size=3, reverse="true").json()
    assert [m["content"] for m in last_backwards["items"]] == ["0"]
    beyond = post(client, url, page=9, size=3).json()
    assert (beyond["items"], beyond["total"], beyond["page"]) == ([], 7, 9)


def test_workspace_peer_and_session_lists_honour_reverse(client: httpx.Client) -> None:
    for pid in ("a", "b", "c"):
        post(client, f"{W}/peers", {"id": pid})
    forward = [p["id"] for p in post(client, f"{W}/peers/list").json()["items"]]
    backward = [p["id"] for p in post(client, f"{W}/peers/list", reverse="true").json()["items"]]
    assert (forward, backward) == (["a", "b", "c"], ["c", "b", "a"])


def test_peer_sessions_lists_every_session_the_peer_joined(client: httpx.Client) -> None:
    """The server joins on membership rows without looking at ``left_at``."""
    post(client, f"{W}/sessions/one/peers", {"alice": {}})
    post(client, f"{W}/sessions/two/peers", {"alice": {}, "bob": {}})
    client.request("DELETE", f"{W}/sessions/one/peers", json=["alice"])
    sessions = post(client, f"{W}/peers/alice/sessions").json()["items"]
    assert [s["id"] for s in sessions] == ["one", "two"]
    assert [s["id"] for s in post(client, f"{W}/peers/bob/sessions").json()["items"]] == ["two"]


# -- other routes -------------------------------------------------------------


def test_health_unknown_routes_wrong_methods_and_keys(client: httpx.Client) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/v3/nothing").json() == {"detail": "Not Found"}
    wrong = client.get("/v3/workspaces/list")
    assert (wrong.status_code, wrong.json()) == (405, {"detail": "Method Not Allowed"})
    keys = post(client, "/v3/keys", workspace_id="ws")
    assert (keys.status_code, keys.json()) == (405, {"detail": "Feature is disabled"})


def test_webhooks_register_by_url_list_delete_and_cap(client: httpx.Client) -> None:
    missing = post(client, f"{W}/webhooks", {"url": "https://example.com/hook"})
    assert missing.status_code == 404  # unlike most routes, no auto-creation
    post(client, "/v3/workspaces", {"id": "ws"})
    first = post(client, f"{W}/webhooks", {"url": "https://example.com/hook"})
    again = post(client, f"{W}/webhooks", {"url": "https://example.com/hook"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"] and NANOID.match(first.json()["id"])
    assert post(client, f"{W}/webhooks", {"url": "http://127.0.0.1/x"}).status_code == 422
    for i in range(9):
        assert post(client, f"{W}/webhooks", {"url": f"https://e.com/{i}"}).status_code == 201
    assert post(client, f"{W}/webhooks", {"url": "https://e.com/11"}).status_code == 409
    assert client.get(f"{W}/webhooks").json()["total"] == 10
    assert client.delete(f"{W}/webhooks/{first.json()['id']}").status_code == 204
    assert client.get(f"{W}/webhooks").json()["total"] == 9


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({f"k{i}": i for i in range(101)}, "Metadata exceeds maximum of 100 top-level keys"),
        (
            {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}},
            "Metadata nesting exceeds maximum depth of 5",
        ),
    ],
)
def test_metadata_limits_are_value_errors(
    client: httpx.Client, fake: FakeHoncho, metadata: dict[str, Any], message: str
) -> None:
    response = post(client, f"{W}/peers", {"id": "alice", "metadata": metadata})
    assert response.status_code == 422
    [item] = detail(response)
    assert (item["type"], item["loc"], item["msg"]) == (
        "value_error",
        ["body", "metadata"],
        f"Value error, {message}",
    )
    assert fake.store.count("peers") == 0


def test_set_peers_counts_observers_after_the_replacement(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    observers = {f"o{i}": {"observe_others": True} for i in range(10)}
    assert post(client, f"{W}/sessions/s/peers", observers).status_code == 200
    fresh = {f"n{i}": {"observe_others": True} for i in range(10)}
    assert client.put(f"{W}/sessions/s/peers", json=fresh).status_code == 200
    members = [
        p["id"] for p in client.get(f"{W}/sessions/s/peers", params={"size": 100}).json()["items"]
    ]
    assert sorted(members) == sorted(fresh)
    before = {key: row for key, row in fake.store.items("session_peers")}
    too_many = {**fresh, "extra": {"observe_others": True}}
    response = client.put(f"{W}/sessions/s/peers", json=too_many)
    assert response.status_code == 400
    assert dict(fake.store.items("session_peers")) == before
