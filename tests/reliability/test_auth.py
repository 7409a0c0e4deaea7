"""Auth across every route of the fake: without the key nothing but ``/health`` answers."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.http.auth import OPEN_PATHS

from .support import API_KEY, concrete_path, fake_operations, state_digest

NO_TOKEN = {"detail": "No access token provided"}
INVALID = {"detail": "Invalid JWT"}

# (Authorization header or None, expected 401 body), as a real Honcho answers them.
REFUSED = [
    pytest.param(None, NO_TOKEN, id="missing"),
    pytest.param("", NO_TOKEN, id="empty"),
    pytest.param("Bearer", NO_TOKEN, id="bearer-without-token"),
    pytest.param("Bearer   ", NO_TOKEN, id="bearer-blank-token"),
    pytest.param(f"Basic {API_KEY}", NO_TOKEN, id="basic-scheme"),
    pytest.param(f"Token {API_KEY}", NO_TOKEN, id="token-scheme"),
    pytest.param(API_KEY, NO_TOKEN, id="key-without-scheme"),
    pytest.param("Bearer wrong-key", INVALID, id="wrong-key"),
    pytest.param(f"Bearer {API_KEY}x", INVALID, id="key-with-suffix"),
    pytest.param(f"Bearer {API_KEY[:-1]}", INVALID, id="truncated-key"),
    pytest.param(f"Bearer {API_KEY} extra", INVALID, id="trailing-garbage"),
    pytest.param("Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln", INVALID, id="foreign-jwt"),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(api_key=API_KEY) as fake:
        yield fake


@pytest.fixture(scope="module")
def http(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        yield client


OPERATIONS = [op for op in fake_operations() if op[1] not in OPEN_PATHS]


def test_every_route_is_covered() -> None:
    paths = {path for _, path in OPERATIONS}
    assert "/_fake/faults" in paths and "/v3/workspaces" in paths
    assert all(path.startswith(("/v3/", "/_fake/")) for path in paths)


@pytest.mark.parametrize("header, expected", REFUSED)
def test_refused_on_every_route(
    fake: FakeHoncho, http: httpx.Client, header: str | None, expected: dict[str, str]
) -> None:
    before = state_digest(fake)
    headers = {} if header is None else {"Authorization": header}
    failures = []
    for method, template in OPERATIONS:
        path = concrete_path(template)
        response = http.request(method, path, headers=headers, json={"id": "x1"})
        if response.status_code != 401 or response.json() != expected:
            failures.append(f"{method} {path} -> {response.status_code} {response.text[:80]}")
        assert "www-authenticate" not in response.headers
    assert failures == []
    assert state_digest(fake) == before


def test_health_is_open(http: httpx.Client) -> None:
    assert http.get("/health").json() == {"status": "ok"}
    assert http.get("/health", headers={"Authorization": "Bearer wrong"}).status_code == 200


def test_the_key_opens_every_route(http: httpx.Client) -> None:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    for method, template in OPERATIONS:
        response = http.request(method, concrete_path(template), headers=headers, json={})
        assert response.status_code != 401, f"{method} {template}"
        assert response.status_code < 500, f"{method} {template}: {response.text[:200]}"


def test_scheme_is_case_insensitive(http: httpx.Client) -> None:
    response = http.post(
        "/v3/workspaces", json={"id": "ci"}, headers={"Authorization": f"bearer {API_KEY}"}
    )
    assert response.status_code in (200, 201)


def test_unknown_paths_and_methods_answer_as_routing_does(http: httpx.Client) -> None:
    assert http.get("/v3/nowhere").json() == {"detail": "Not Found"}
    assert http.get("/v3/nowhere").status_code == 404
    assert http.get("/v3/workspaces").status_code == 405


def test_refusals_are_journaled_and_the_key_never_leaks(
    fake: FakeHoncho, http: httpx.Client
) -> None:
    fake.requests.clear()
    http.post("/v3/workspaces", json={"id": "leak"}, headers={"Authorization": "Bearer nope"})
    (entry,) = fake.requests
    assert (entry.method, entry.path, entry.status) == ("POST", "/v3/workspaces", 401)
    assert API_KEY not in repr(fake) and API_KEY not in repr(fake.keyring)
