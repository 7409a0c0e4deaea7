"""Real JWTs: the fake verifies and mints HS256 tokens as Honcho with auth on does.

What each kind of key gets on each route is held to real servers by the recorded
permission matrix (tests/fidelity/auth); these pin the token handling itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import jwt
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.cli import JWT_SECRET_ENV, build_parser, create_fake
from fake_honcho.http.auth import mint_jwt

SECRET = "jwt-test-secret-0123456789abcdef0123456789"
W = "/v3/workspaces/w"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(
        jwt_secret=SECRET, clock=lambda: datetime(2026, 1, 2, 3, 4, 5, 678, UTC)
    ) as fake:
        yield fake


@pytest.fixture
def http(fake: FakeHoncho) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        client.post(
            "/v3/workspaces/w/sessions",
            json={"id": "s1", "peers": {"alice": {}}},
            headers={"Authorization": f"Bearer {fake.admin_key}"},
        )
        yield client


def answer(http: httpx.Client, token: str, path: str = "/v3/workspaces/list") -> tuple[int, object]:
    response = http.post(path, json={}, headers={"Authorization": f"Bearer {token}"})
    return response.status_code, response.json().get(
        "detail"
    ) if response.status_code >= 400 else None


def test_the_admin_key_is_honchos_admin_jwt(fake: FakeHoncho) -> None:
    assert jwt.decode(fake.admin_key, SECRET, algorithms=["HS256"]) == {"t": "", "ad": True}
    assert fake.admin_key == mint_jwt(SECRET, t="", ad=True)


@pytest.mark.parametrize(
    "claims, expected",
    [
        ({"ad": True}, (200, None)),
        ({"ad": "yes"}, (200, None)),  # any truthy `ad` is an admin, as in Honcho
        ({"t": ""}, (401, "Resource requires admin privileges")),
        ({"ad": True, "exp": "2999-01-01T00:00:00Z"}, (401, "Invalid JWT")),  # Honcho's quirk
        ({"ad": True, "exp": "2000-01-01T00:00:00Z"}, (401, "Invalid JWT")),
        ({"ad": True, "exp": 1}, (401, "Invalid JWT")),
        ({"ad": True, "exp": 32503680000}, (500, "An unexpected error occurred")),
        # measured on 3.0.12 and 3.1 (PyJWT 2.12.1), whatever PyJWT the fake runs on
        ({"ad": True, "exp": "32503680000"}, (500, "An unexpected error occurred")),
        ({"ad": True, "exp": None}, (500, "An unexpected error occurred")),
        ({"ad": True, "exp": ""}, (401, "Invalid JWT")),
        ({"ad": True, "exp": True}, (401, "Invalid JWT")),
        ({"p": "alice"}, (401, "Invalid JWT scope: peer/session token missing workspace")),
        ({"w": "", "s": "s1"}, (401, "Invalid JWT scope: peer/session token missing workspace")),
    ],
)
def test_claims_are_read_as_honcho_reads_them(
    http: httpx.Client, claims: dict[str, object], expected: tuple[int, object]
) -> None:
    assert answer(http, jwt.encode(claims, SECRET, algorithm="HS256")) == expected


@pytest.mark.parametrize("exp", [32503680000, "32503680000", None])
def test_the_corrected_fake_refuses_an_unreadable_exp_without_a_500(exp: object) -> None:
    """Honcho's 500 for these tokens is a real bug: ``real_bugs="correct"`` refuses them
    as ``Invalid JWT`` instead (never lets them in)."""
    with (
        FakeHoncho(jwt_secret=SECRET, real_bugs="correct") as corrected,
        httpx.Client(transport=corrected.transport(), base_url="http://fake") as client,
    ):
        token = jwt.encode({"ad": True, "exp": exp}, SECRET, algorithm="HS256")
        assert answer(client, token) == (401, "Invalid JWT")
        assert answer(client, corrected.admin_key) == (200, None)


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
def test_a_token_that_does_not_verify_is_an_invalid_jwt(http: httpx.Client) -> None:
    assert answer(http, mint_jwt("another-secret-0123456789abcdef0123456789", ad=True)) == (
        401,
        "Invalid JWT",
    )
    hs512 = jwt.encode({"ad": True}, SECRET, algorithm="HS512")
    assert answer(http, hs512) == (401, "Invalid JWT")
    assert answer(http, "not-a-jwt") == (401, "Invalid JWT")


def test_minted_keys_carry_honchos_claims(fake: FakeHoncho, http: httpx.Client) -> None:
    admin = {"Authorization": f"Bearer {fake.admin_key}"}
    params = {"workspace_id": "w", "peer_id": "alice", "expires_at": "2999-01-01T10:00:00.5+02:00"}
    key = http.post("/v3/keys", params=params, headers=admin).json()["key"]
    claims = jwt.decode(key, SECRET, algorithms=["HS256"], options={"verify_exp": False})
    assert claims == {
        "t": "2026-01-02T03:04:05Z",
        "exp": "2999-01-01T08:00:00Z",
        "w": "w",
        "p": "alice",
    }
    # an exp written as Honcho writes it makes the key unusable, on Honcho too
    assert answer(http, key, f"{W}/peers/alice/sessions") == (401, "Invalid JWT")
    plain = http.post("/v3/keys", params={"workspace_id": "w", "session_id": "s1"}, headers=admin)
    assert jwt.decode(plain.json()["key"], SECRET, algorithms=["HS256"]) == {
        "t": "2026-01-02T03:04:05Z",
        "w": "w",
        "s": "s1",
    }


def test_issue_key_mints_the_same_jwt(fake: FakeHoncho, http: httpx.Client) -> None:
    key = fake.issue_key(workspace_id="w", peer_id="alice")
    assert jwt.decode(key, SECRET, algorithms=["HS256"])["p"] == "alice"
    card = http.get(f"{W}/peers/alice/card", headers={"Authorization": f"Bearer {key}"})
    assert card.status_code == 200
    other = http.get(f"{W}/peers/bob/card", headers={"Authorization": f"Bearer {key}"})
    assert other.json() == {"detail": "JWT not permissioned for this resource"}


def test_a_body_that_is_not_json_is_refused_before_any_key(http: httpx.Client) -> None:
    """FastAPI decodes the body before the auth dependency runs (measured on 3.0.12 and 3.1)."""
    broken = http.post(
        "/v3/workspaces/list", content=b"{bad", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 422
    assert broken.json()["detail"][0]["type"] == "json_invalid"
    assert http.post("/v3/workspaces", json={"id": 5}).json() == {
        "detail": "No access token provided"
    }


def test_neither_secret_nor_key_shows_in_reprs_or_errors(fake: FakeHoncho) -> None:
    shown = repr(fake) + repr(fake.keyring)
    assert SECRET not in shown and fake.admin_key not in shown
    with pytest.raises(ValueError) as refused:
        FakeHoncho(api_key="k", jwt_secret=SECRET)
    assert SECRET not in str(refused.value)


def test_fake_honcho_reads_the_secret_from_its_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(JWT_SECRET_ENV, SECRET)
    args: argparse.Namespace = build_parser().parse_args([])
    with create_fake(args) as fake:
        assert fake.admin_key == mint_jwt(SECRET, t="", ad=True)
    monkeypatch.setenv("FAKE_HONCHO_API_KEY", "an-api-key")
    with pytest.raises(ValueError, match="not both") as refused:
        create_fake(build_parser().parse_args([]))
    assert SECRET not in str(refused.value)


def test_the_plugins_in_process_fake_runs_with_auth_on_given_a_secret(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        """
        import jwt

        def test_auth_on(honcho_target):
            assert honcho_target.fake.auth_enabled
            key = honcho_target.api_key.get_secret_value()
            assert jwt.decode(key, "SECRET", algorithms=["HS256"]) == {"t": "", "ad": True}
            with honcho_target.client() as client:
                assert client.post("/v3/workspaces/list", json={}).status_code == 200
                refused = client.post("/v3/workspaces/list", json={}, headers={"Authorization": ""})
                assert refused.status_code == 401
        """.replace("SECRET", SECRET)
    )
    monkeypatch.setenv("HONCHO_JWT_SECRET", SECRET)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    assert SECRET not in result.stdout.str()
