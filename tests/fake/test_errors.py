"""Bad input: a 4xx in Honcho's shape, and the fake's state exactly as before."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fake_honcho import FakeHoncho

from .conftest import detail, snapshot

W = "/v3/workspaces/ws"
PATTERN = "^[a-zA-Z0-9_-]+$"


@pytest.fixture
def seeded(client: httpx.Client) -> httpx.Client:
    """A workspace with a session holding one message, so there is state to protect."""
    response = client.post(
        f"{W}/sessions/s/messages", json={"messages": [{"content": "hi", "peer_id": "alice"}]}
    )
    assert response.status_code == 201
    return client


def message(content: str = "x") -> dict[str, Any]:
    return {"content": content, "peer_id": "alice"}


CASES: list[tuple[str, str, str, Any, dict[str, Any]]] = [
    (
        "bad workspace id",
        "POST",
        "/v3/workspaces",
        {"id": "bad id!"},
        {
            "type": "string_pattern_mismatch",
            "loc": ["body", "id"],
            "msg": f"String should match pattern '{PATTERN}'",
            "input": "bad id!",
            "ctx": {"pattern": PATTERN},
        },
    ),
    (
        "513-char peer id",
        "POST",
        f"{W}/peers",
        {"id": "p" * 513},
        {
            "type": "string_too_long",
            "loc": ["body", "id"],
            "msg": "String should have at most 512 characters",
            "input": "p" * 513,
            "ctx": {"max_length": 512},
        },
    ),
    (
        "empty session id",
        "POST",
        f"{W}/sessions",
        {"id": ""},
        {
            "type": "string_too_short",
            "loc": ["body", "id"],
            "msg": "String should have at least 1 character",
            "input": "",
            "ctx": {"min_length": 1},
        },
    ),
    (
        "missing id",
        "POST",
        f"{W}/peers",
        {"metadata": {}},
        {
            "type": "missing",
            "loc": ["body", "id"],
            "msg": "Field required",
            "input": {"metadata": {}},
        },
    ),
    (
        "no messages",
        "POST",
        f"{W}/sessions/s/messages",
        {"messages": []},
        {
            "type": "too_short",
            "loc": ["body", "messages"],
            "msg": "List should have at least 1 item after validation, not 0",
            "input": [],
            "ctx": {"field_type": "List", "min_length": 1, "actual_length": 0},
        },
    ),
    (
        "101 messages",
        "POST",
        f"{W}/sessions/s/messages",
        {"messages": [message()] * 101},
        {
            "type": "too_long",
            "loc": ["body", "messages"],
            "msg": "List should have at most 100 items after validation, not 101",
            "input": [message()] * 101,
            "ctx": {"field_type": "List", "max_length": 100, "actual_length": 101},
        },
    ),
    (
        "25,001 characters",
        "POST",
        f"{W}/sessions/s/messages",
        {"messages": [message(), message("y" * 25_001)]},
        {
            "type": "string_too_long",
            "loc": ["body", "messages", 1, "content"],
            "msg": "String should have at most 25000 characters",
            "input": "y" * 25_001,
            "ctx": {"max_length": 25_000},
        },
    ),
    (
        "search limit 0",
        "POST",
        f"{W}/search",
        {"query": "hi", "limit": 0},
        {
            "type": "greater_than_equal",
            "loc": ["body", "limit"],
            "msg": "Input should be greater than or equal to 1",
            "input": 0,
            "ctx": {"ge": 1},
        },
    ),
    (
        "metadata not an object",
        "PUT",
        f"{W}/sessions/s/messages/x",
        {"metadata": [1]},
        {
            "type": "dict_type",
            "loc": ["body", "metadata"],
            "msg": "Input should be a valid dictionary",
            "input": [1],
        },
    ),
    (
        "peer config not an object",
        "POST",
        f"{W}/sessions/s/peers",
        {"bob": 5},
        {
            "type": "model_attributes_type",
            "loc": ["body", "bob"],
            "msg": "Input should be a valid dictionary or object to extract fields from",
            "input": 5,
        },
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_validation_errors_are_pydantic_shaped_and_change_nothing(
    seeded: httpx.Client,
    fake: FakeHoncho,
    method: str,
    path: str,
    body: Any,
    expected: dict[str, Any],
) -> None:
    before = snapshot(fake)
    response = seeded.request(method, path, json=body)
    assert response.status_code == 422
    assert detail(response) == [expected]
    assert snapshot(fake) == before


@pytest.mark.parametrize(
    ("raw", "position", "reason"),
    [
        (b"{not json", 1, "Expecting property name enclosed in double quotes"),
        (b'{"id": ', 7, "Expecting value"),
    ],
)
def test_malformed_json_is_json_invalid(
    seeded: httpx.Client, fake: FakeHoncho, raw: bytes, position: int, reason: str
) -> None:
    before = snapshot(fake)
    response = seeded.post(
        "/v3/workspaces", content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert detail(response) == [
        {
            "type": "json_invalid",
            "loc": ["body", position],
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": reason},
        }
    ]
    assert snapshot(fake) == before


def test_missing_body_is_a_missing_item(seeded: httpx.Client) -> None:
    response = seeded.post(f"{W}/peers")
    assert detail(response) == [
        {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
    ]


@pytest.mark.parametrize(
    ("path", "filters", "text"),
    [
        (
            "/v3/workspaces/list",
            {"bogus": 1},
            "Column 'bogus' is not allowed to be filtered on or does not exist on Workspace",
        ),
        (
            f"{W}/sessions/s/messages/list",
            {"id": "x"},
            "Column 'id' is not allowed to be filtered on or does not exist on Message",
        ),
        (f"{W}/peers/list", {"is_active": True}, "Column 'is_active' does not exist on Peer"),
        (
            f"{W}/search",
            None,
            "Column 'nope' is not allowed to be filtered on or does not exist on Message",
        ),
    ],
)
def test_unknown_filter_keys_are_refused_with_the_real_message(
    seeded: httpx.Client, fake: FakeHoncho, path: str, filters: Any, text: str
) -> None:
    before = snapshot(fake)
    body = {"query": "hi", "filters": {"nope": 1}} if filters is None else {"filters": filters}
    response = seeded.post(path, json=body)
    assert (response.status_code, detail(response)) == (422, text)
    assert snapshot(fake) == before


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"size": "101"},
            {
                "type": "less_than_equal",
                "loc": ["query", "size"],
                "msg": "Input should be less than or equal to 100",
                "input": "101",
                "ctx": {"le": 100},
            },
        ),
        (
            {"page": "0"},
            {
                "type": "greater_than_equal",
                "loc": ["query", "page"],
                "msg": "Input should be greater than or equal to 1",
                "input": "0",
                "ctx": {"ge": 1},
            },
        ),
        (
            {"size": "ten"},
            {
                "type": "int_parsing",
                "loc": ["query", "size"],
                "msg": "Input should be a valid integer, unable to parse string as an integer",
                "input": "ten",
            },
        ),
        (
            {"reverse": "maybe"},
            {
                "type": "bool_parsing",
                "loc": ["query", "reverse"],
                "msg": "Input should be a valid boolean, unable to interpret input",
                "input": "maybe",
            },
        ),
    ],
)
def test_bad_page_parameters(
    seeded: httpx.Client, params: dict[str, str], expected: dict[str, Any]
) -> None:
    response = seeded.post(f"{W}/sessions/s/messages/list", params=params)
    assert (response.status_code, detail(response)) == (422, [expected])


def test_bad_path_id_for_a_new_workspace_is_the_real_500(
    seeded: httpx.Client, fake: FakeHoncho
) -> None:
    """Honcho builds WorkspaceCreate from the path outside validation (real-invalid-id-500)."""
    before = snapshot(fake)
    response = seeded.put("/v3/workspaces/bad.name", json={})
    assert response.status_code == 500
    assert response.json() == {"detail": "An unexpected error occurred"}
    assert snapshot(fake) == before


def test_bad_path_id_for_a_new_workspace_is_refused_when_corrected() -> None:
    with (
        FakeHoncho(real_bugs="correct") as fake,
        httpx.Client(transport=fake.transport(), base_url="http://t") as http,
    ):
        response = http.put("/v3/workspaces/bad.name", json={})
    assert response.status_code == 422
    assert detail(response)[0]["type"] == "string_pattern_mismatch"


def test_errors_never_leak_an_api_key(fake: FakeHoncho) -> None:
    """The key sent by a client is not echoed in any error body."""
    with httpx.Client(transport=fake.transport(), base_url="http://t") as http:
        response = http.post(
            "/v3/workspaces", json={"id": "x y"}, headers={"Authorization": "Bearer sk-secret"}
        )
    assert response.status_code == 422
    assert "sk-secret" not in response.text


def test_null_body_counts_as_missing(seeded: httpx.Client) -> None:
    response = seeded.post(
        f"{W}/peers", content=b"null", headers={"content-type": "application/json"}
    )
    assert detail(response) == [
        {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
    ]
    listed = seeded.post(
        f"{W}/peers/list", content=b"null", headers={"content-type": "application/json"}
    )
    assert listed.status_code == 200 and listed.json()["total"] == 1
