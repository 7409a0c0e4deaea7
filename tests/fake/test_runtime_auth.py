"""Auth: off by default; with an api key, Bearer on every routed path but /health."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from starlette.routing import Route

from fake_honcho import FakeHoncho
from fake_honcho.http.auth import ISSUED_KEYS, OPEN_PATHS
from fake_honcho.http.permissions import rule_of

KEY = "sk-test-5ecret"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(api_key=KEY) as fake:
        yield fake


def client_of(fake: FakeHoncho, **headers: str) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url="http://fake", headers=headers)


def every_route(fake: FakeHoncho, *, admin: bool = True) -> list[tuple[str, str]]:
    """(method, concrete path) for each route of the core app, path parameters filled in
    (``admin=False``: less the admin-only ones)."""
    pairs = []
    for route in fake.core_app.router.routes:
        assert isinstance(route, Route)
        rule = rule_of(route)
        if not admin and rule is not None and rule.admin:
            continue
        path = re.sub(r"\{[^}]+\}", "x", route.path)
        pairs += [(method, path) for method in sorted(route.methods or ()) if method != "HEAD"]
    return pairs


def test_auth_is_off_by_default_and_ignores_any_authorization_header() -> None:
    with FakeHoncho() as fake, client_of(fake, Authorization="Bearer whatever") as client:
        assert not fake.auth_enabled
        for method, path in every_route(fake):
            assert client.request(method, path).status_code != 401, (method, path)


def test_health_stays_open(fake: FakeHoncho) -> None:
    with client_of(fake) as client:
        assert client.get("/health").json() == {"status": "ok"}


def test_metrics_stays_open_and_answers_as_a_server_with_metrics_off(fake: FakeHoncho) -> None:
    with client_of(fake) as client:
        response = client.get("/metrics")
    assert (response.status_code, response.text) == (404, "Metrics are disabled")
    assert "content-type" not in response.headers


@pytest.mark.parametrize(
    ("authorization", "detail"),
    [
        (None, "No access token provided"),
        ("Basic dXNlcjpwYXNz", "No access token provided"),
        ("Bearer", "No access token provided"),
        ("Bearer ", "No access token provided"),
        (f"Token {KEY}", "No access token provided"),
        ("Bearer wrong", "Invalid JWT"),
        (f"Bearer {KEY}x", "Invalid JWT"),
    ],
)
def test_every_other_route_answers_401_with_the_real_text(
    fake: FakeHoncho, authorization: str | None, detail: str
) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    routes = [pair for pair in every_route(fake) if pair[1] not in OPEN_PATHS]
    assert len(routes) > 10  # the core's routes are all there, all closed
    with client_of(fake, **headers) as client:
        for method, path in routes:
            response = client.request(method, path, json={})
            assert response.status_code == 401, (method, path)
            assert response.json() == {"detail": detail}
            assert "www-authenticate" not in response.headers


def test_the_right_key_passes_with_any_scheme_case(fake: FakeHoncho) -> None:
    for scheme in ("Bearer", "bearer", "BEARER"):
        with client_of(fake, Authorization=f"{scheme} {KEY}") as client:
            for method, path in every_route(fake):
                assert client.request(method, path, json={}).status_code != 401, (method, path)


def test_unknown_paths_and_wrong_methods_are_routed_before_auth(fake: FakeHoncho) -> None:
    with client_of(fake) as client:
        assert client.get("/v3/no-such-thing").status_code == 404
        assert client.get("/v3/no-such-thing").json() == {"detail": "Not Found"}
        assert client.delete("/health").status_code == 405


def test_refused_requests_are_journaled_with_their_body(fake: FakeHoncho) -> None:
    with client_of(fake) as client:
        client.post("/v3/workspaces", json={"id": "w"})
    entry = fake.requests[-1]
    assert (entry.method, entry.path, entry.status, entry.json) == (
        "POST",
        "/v3/workspaces",
        401,
        {"id": "w"},
    )


def test_issued_keys_are_accepted_and_stored_only_as_digests(fake: FakeHoncho) -> None:
    # every_route fills path parameters with "x": a key for that workspace reaches every
    # route but the admin-only ones (and POST /v3/workspaces names its workspace in the body)
    key = fake.issue_key(workspace_id="x")
    with client_of(fake, Authorization=f"Bearer {key}") as client:
        for method, path in every_route(fake, admin=False):
            body = {"id": "x"} if path == "/v3/workspaces" else {}
            assert client.request(method, path, json=body).status_code != 401, (method, path)
    stored = list(fake.store.items(ISSUED_KEYS))
    assert len(stored) == 1
    assert key not in repr(stored)
    assert stored[0][1] == {"scope": {"workspace_id": "x"}}
    fake.reset()
    with client_of(fake, Authorization=f"Bearer {key}") as client:
        assert client.post("/v3/workspaces", json={"id": "w"}).json() == {"detail": "Invalid JWT"}


def test_issuing_keys_needs_auth_on() -> None:
    with FakeHoncho() as fake, pytest.raises(RuntimeError, match="auth is off"):
        fake.issue_key(workspace_id="ws")


def test_the_key_never_shows_in_reprs(fake: FakeHoncho) -> None:
    with client_of(fake, Authorization="Bearer nope") as client:
        client.get("/v3/workspaces")
    for text in (repr(fake), repr(fake.keyring), repr(fake.requests), repr(list(fake.requests))):
        assert KEY not in text


def test_an_empty_key_is_refused_rather_than_silently_disabling_auth() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        FakeHoncho(api_key="")


def test_admin_key_mints_scoped_keys_that_then_work(fake: FakeHoncho) -> None:
    with client_of(fake, Authorization=f"Bearer {KEY}") as admin:
        minted = admin.post("/v3/keys", params={"workspace_id": "ws", "peer_id": "p"})
        assert minted.status_code == 200
        key = minted.json()["key"]
        assert admin.post("/v3/keys").json() == {
            "detail": "At least one of workspace_id, peer_id, or session_id must be provided"
        }
        assert admin.post("/v3/keys", params={"session_id": "s"}).json() == {
            "detail": "workspace_id is required when scoping a key to a peer or session"
        }
        bad_expiry = admin.post("/v3/keys", params={"workspace_id": "ws", "expires_at": "soon"})
        assert bad_expiry.status_code == 422
        assert bad_expiry.json()["detail"][0]["loc"] == ["query", "expires_at"]
        assert admin.post(
            "/v3/keys", params={"workspace_id": "ws", "expires_at": "2030-01-01T00:00:00Z"}
        ).is_success
    with client_of(fake, Authorization=f"Bearer {key}") as scoped:
        assert scoped.post("/v3/workspaces", json={"id": "ws"}).status_code == 201
        assert scoped.post("/v3/keys", params={"workspace_id": "ws"}).json() == {
            "detail": "Resource requires admin privileges"
        }
    assert [entry.status for entry in fake.requests] == [200, 422, 422, 422, 200, 201, 401]


def test_keys_route_stays_disabled_while_auth_is_off() -> None:
    with FakeHoncho() as fake, client_of(fake) as client:
        reply = client.post("/v3/keys", params={"workspace_id": "ws"})
    assert (reply.status_code, reply.json()) == (405, {"detail": "Feature is disabled"})
