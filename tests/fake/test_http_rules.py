"""The transport rules a real Honcho gets from FastAPI and Starlette: CORS after
CORS_ORIGINS, no implicit HEAD, Allow from Honcho's route order, JSON only under a JSON
content type, 400 for undecodable bodies, and the 500 of an unhandled error (measured on
real 3.0.12 and 3.1: tests/fidelity/raw)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
import pytest

from fake_honcho import FakeHoncho
from fake_honcho.http.http_rules import is_json

W = "/v3/workspaces/w"
PREFLIGHT = {"Access-Control-Request-Method": "POST"}


@pytest.fixture
def client() -> httpx.Client:
    fake = FakeHoncho()
    return httpx.Client(transport=fake.transport(), base_url="http://fake")


def test_a_preflight_from_an_allowed_origin_is_answered_before_routing(
    client: httpx.Client,
) -> None:
    asked = {"Origin": "http://localhost", **PREFLIGHT, "Access-Control-Request-Headers": "x-a"}
    response = client.options(f"{W}/peers", headers=asked)
    assert (response.status_code, response.text) == (200, "OK")
    assert response.headers["access-control-allow-origin"] == "http://localhost"
    assert response.headers["access-control-allow-credentials"] == "true"
    assert response.headers["access-control-allow-headers"] == "x-a"
    assert response.headers["access-control-allow-methods"] == (
        "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"
    )
    assert response.headers["vary"] == "Origin"


def test_a_preflight_names_every_refusal(client: httpx.Client) -> None:
    asked = {
        "Origin": "http://evil.example",
        "Access-Control-Request-Method": "FOO",
        "Access-Control-Request-Private-Network": "true",
    }
    response = client.options(f"{W}/peers", headers=asked)
    assert (response.status_code, response.text) == (
        400,
        "Disallowed CORS origin, method, private-network",
    )
    assert "access-control-allow-origin" not in response.headers


def test_a_simple_request_echoes_an_allowed_origin_only(client: httpx.Client) -> None:
    allowed = client.post(f"{W}/peers", json={"id": "p"}, headers={"Origin": "http://localhost"})
    assert allowed.headers["access-control-allow-origin"] == "http://localhost"
    other = client.post(f"{W}/peers", json={"id": "p"}, headers={"Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in other.headers
    assert other.headers["access-control-allow-credentials"] == "true"
    plain = client.post(f"{W}/peers", json={"id": "p"})
    assert not any(name.startswith("access-control") for name in plain.headers)


def test_cors_origins_are_configurable() -> None:
    fake = FakeHoncho(cors_origins=["http://localhost:5173"])
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        ok = client.options(f"{W}/peers", headers={"Origin": "http://localhost:5173", **PREFLIGHT})
        old = client.options(f"{W}/peers", headers={"Origin": "http://localhost", **PREFLIGHT})
    assert (ok.status_code, old.status_code) == (200, 400)
    with pytest.raises(TypeError):
        FakeHoncho(cors_origins="http://localhost")


def test_the_500_of_an_unhandled_error_carries_no_cors_headers(client: httpx.Client) -> None:
    response = client.put("/v3/workspaces/a.b", json={}, headers={"Origin": "http://localhost"})
    assert response.status_code == 500
    assert not any(name.startswith("access-control") for name in response.headers)


def test_head_is_refused_where_fastapi_routes_declare_only_get(client: httpx.Client) -> None:
    response = client.head(f"{W}/queue/status")
    assert (response.status_code, response.headers["allow"]) == (405, "GET")
    assert client.head("/health").status_code == 405
    assert client.head("/openapi.json").status_code == 200  # Starlette's own route keeps it


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("POST", f"{W}/webhooks/test", "DELETE"),  # DELETE webhooks/{id} is declared first
        ("GET", f"{W}/conclusions/x", "DELETE"),
        ("POST", f"{W}/sessions/s/peers/p/config", "GET"),
        ("HEAD", f"{W}/webhooks", "POST"),
        ("HEAD", f"{W}/peers/list", "POST"),
    ],
)
def test_allow_names_the_first_route_of_the_path_in_honchos_order(
    method: str, path: str, allow: str
) -> None:
    fake = FakeHoncho(version="3.1")
    with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
        response = client.request(method, path)
    assert (response.status_code, response.headers["allow"]) == (405, allow)


@pytest.mark.parametrize(
    ("content_type", "json"),
    [
        (None, False),
        ("", False),
        ("text/plain;charset=UTF-8", False),
        ("application/x-www-form-urlencoded", False),
        ("multipart/form-data; boundary=x", False),
        (";;", False),
        ("application/json", True),
        ("APPLICATION/JSON", True),
        ("application/json; charset=latin-1", True),
        ("application/vnd.api+json", True),
        ("application/json-patch+json", True),
    ],
)
def test_json_content_types(content_type: str | None, json: bool) -> None:
    assert is_json(content_type) is json


def test_a_list_body_sent_as_text_is_list_type(client: httpx.Client) -> None:
    client.post(f"{W}/sessions", json={"id": "s", "peers": {"a": {}}})
    response = client.request("DELETE", f"{W}/sessions/s/peers", content=b'["a"]')
    assert response.json()["detail"] == [
        {
            "type": "list_type",
            "loc": ["body"],
            "msg": "Input should be a valid list",
            "input": '["a"]',
        }
    ]


@pytest.mark.parametrize("body", [b"[" * 5000 + b"]" * 5000, b'{"id": "\xff"}'])
def test_a_body_json_cannot_decode_is_fastapis_400(client: httpx.Client, body: bytes) -> None:
    response = client.post(f"{W}/peers", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"detail": "There was an error parsing the body"}


def test_a_422_echoing_nan_is_the_real_500_unless_corrected() -> None:
    body = b'{"x": NaN}'
    headers = {"content-type": "application/json"}
    for real_bugs, status in (("reproduce", 500), ("correct", 422)):
        fake = FakeHoncho(real_bugs=real_bugs)
        with httpx.Client(transport=fake.transport(), base_url="http://fake") as client:
            response = client.post(f"{W}/peers", content=body, headers=headers)
        assert response.status_code == status
    assert response.json()["detail"][0]["input"] == {"x": "NaN"}


def test_real_bugs_must_be_known() -> None:
    with pytest.raises(ValueError, match="reproduce, correct"):
        FakeHoncho(real_bugs="tidy")  # type: ignore[arg-type]


def test_a_served_fake_closes_the_connection_after_an_unhandled_500() -> None:
    """As uvicorn does when the error middleware re-raises: the answer, then the end."""
    request = b"PUT /v3/workspaces/a.b HTTP/1.1\r\nHost: x\r\ncontent-type: application/json"
    request += b"\r\ncontent-length: 2\r\n\r\n{}"
    with FakeHoncho() as fake, fake.serve() as url:
        where = urlsplit(url)
        assert where.hostname is not None and where.port is not None
        with socket.create_connection((where.hostname, where.port), timeout=10) as sock:
            sock.sendall(request)
            received = b""
            while chunk := sock.recv(65536):  # ends only when the server closes
                received += chunk
    assert received.startswith(b"HTTP/1.1 500 ")
    assert received.endswith(b'{"detail":"An unexpected error occurred"}')
