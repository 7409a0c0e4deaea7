"""HonchoClient against httpx.MockTransport: paths, payloads, headers and errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from honcho_backend import HonchoClient, HonchoConfig, HonchoRequestError

Handler = Callable[[httpx.Request], httpx.Response]


def client_with(handler: Handler, **cfg: Any) -> HonchoClient:
    config = HonchoConfig.from_backend_config({"base_url": "http://honcho.test", **cfg})
    return HonchoClient(config, transport=httpx.MockTransport(handler))


def test_paths_and_payloads() -> None:
    seen: list[tuple[str, str, Any, dict[str, str]]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        seen.append((request.method, request.url.path, body, dict(request.url.params)))
        if request.url.path.endswith("/representation"):
            return httpx.Response(200, json={"representation": "knows things"})
        if request.url.path.endswith("/search"):
            return httpx.Response(200, json=[{"content": "hit"}])
        if request.url.path.endswith("/messages/list"):
            return httpx.Response(200, json={"items": [{"id": "m2"}], "total": 1})
        return httpx.Response(201, json={})

    client = client_with(handler)
    assert client.health() == {}
    client.get_or_create_workspace("w1")
    client.get_or_create_session("w1", "s1", ["alice", "deerflow"])
    assert client.newest_messages("w1", "s1", size=7) == [{"id": "m2"}]
    client.add_messages("w1", "s1", [{"peer_id": "alice", "content": "hi"}])
    assert client.working_representation("w1", "alice") == "knows things"
    assert client.search("w1", "tea", limit=3, filters={"peer_id": "alice"})[0]["content"] == "hit"
    assert seen == [
        ("GET", "/health", None, {}),
        ("POST", "/v3/workspaces", {"id": "w1"}, {}),
        (
            "POST",
            "/v3/workspaces/w1/sessions",
            {"id": "s1", "peers": {"alice": {}, "deerflow": {}}},
            {},
        ),
        (
            "POST",
            "/v3/workspaces/w1/sessions/s1/messages/list",
            {},
            {"reverse": "true", "size": "7", "page": "1"},
        ),
        (
            "POST",
            "/v3/workspaces/w1/sessions/s1/messages",
            {"messages": [{"peer_id": "alice", "content": "hi"}]},
            {},
        ),
        ("POST", "/v3/workspaces/w1/peers/alice/representation", {}, {}),
        (
            "POST",
            "/v3/workspaces/w1/search",
            {"query": "tea", "limit": 3, "filters": {"peer_id": "alice"}},
            {},
        ),
    ]


def test_representation_body_is_empty_and_null_means_none() -> None:
    bodies: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"representation": None})

    assert client_with(handler).working_representation("w", "p") == ""
    assert bodies == [{}]


def test_path_segments_are_escaped() -> None:
    paths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.raw_path.decode())
        return httpx.Response(200, json={"representation": ""})

    client_with(handler).working_representation("w/1", "a b?c")
    assert paths == ["/v3/workspaces/w%2F1/peers/a%20b%3Fc/representation"]


def test_session_without_peers_sends_only_id() -> None:
    bodies: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={})

    client_with(handler).get_or_create_session("w", "s")
    assert bodies == [{"id": "s"}]


def test_body_is_compact_utf8() -> None:
    raw: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        raw.append(request.content)
        return httpx.Response(201, json=[])

    client_with(handler).add_messages("w", "s", [{"peer_id": "p", "content": "héllo"}])
    assert raw == ['{"messages":[{"peer_id":"p","content":"héllo"}]}'.encode()]


@pytest.mark.parametrize("status", [400, 404, 422, 500, 503])
def test_errors_wrap_as_honcho_request_error(status: int) -> None:
    client = client_with(lambda request: httpx.Response(status, json={"detail": "nope"}))
    with pytest.raises(HonchoRequestError) as info:
        client.add_messages("w", "s", [{"peer_id": "p", "content": "x"}])
    error = info.value
    assert (error.method, error.path, error.status) == (
        "POST",
        "/v3/workspaces/w/sessions/s/messages",
        status,
    )
    assert "nope" in str(error) and str(status) in str(error)


def test_non_json_200_response_wraps_as_honcho_request_error() -> None:
    client = client_with(lambda request: httpx.Response(200, text="<html>proxy</html>"))
    with pytest.raises(HonchoRequestError, match="not JSON") as info:
        client.search("w", "q")
    assert info.value.status == 200


def test_empty_2xx_body_is_none() -> None:
    assert client_with(lambda request: httpx.Response(204)).get_or_create_workspace("w") is None


def test_api_key_header() -> None:
    headers: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        headers.append(request.headers)
        return httpx.Response(200, json={})

    client_with(handler, api_key="sk-h", allow_insecure_http=True).health()
    client_with(handler).health()
    assert headers[0]["Authorization"] == "Bearer sk-h"
    assert "Authorization" not in headers[1]


def test_constructor_accepts_transport_for_tests() -> None:
    paths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.path)
        return httpx.Response(201, json={})

    client_with(handler).get_or_create_workspace("w1")
    assert paths == ["/v3/workspaces"]


def test_timeouts_come_from_config() -> None:
    client = client_with(
        lambda r: httpx.Response(200), timeout_seconds=4, connect_timeout_seconds=1
    )
    timeout = client._http.timeout
    assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (1.0, 4.0, 4.0, 4.0)


def test_refused_connection_is_retried_once() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(201, json=[])

    client_with(handler).add_messages("w", "s", [{"peer_id": "p", "content": "x"}])
    assert len(calls) == 2


def test_refused_twice_is_an_error_that_never_reached_the_server() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(HonchoRequestError) as info:
        client_with(handler).add_messages("w", "s", [{"peer_id": "p", "content": "x"}])
    assert info.value.status is None and info.value.reached_server is False


def _refusing(up: list[bool]) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        if not up[0]:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        return httpx.Response(200, json={})

    return handler


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({}, "http://localhost:8000 (the default: base_url is not set)"),
        (
            {"base_url": "https://user:pw@honcho.example/api", "api_key": "sk-secret-123"},
            "https://honcho.example:443/api (from base_url)",
        ),
        ({"base_url": "http://[::1]:8123"}, "http://[::1]:8123 (from base_url)"),
    ],
)
def test_a_refused_connection_names_the_server_once_per_streak(
    config: dict[str, Any], named: str, caplog: pytest.LogCaptureFixture
) -> None:
    up = [False]
    client = HonchoClient(
        HonchoConfig.from_backend_config(config), transport=httpx.MockTransport(_refusing(up))
    )

    def streak() -> list[str]:
        caplog.clear()
        for _ in range(3):
            with pytest.raises(HonchoRequestError):
                client.health()
        return [record.getMessage() for record in caplog.records]

    assert streak() == [
        f"Honcho backend: cannot connect to Honcho at {named}; start it there, or point "
        "base_url at it (said once until a request gets through)"
    ]
    assert streak() == []  # the same streak: said once
    up[0] = True
    client.health()
    up[0] = False
    (again,) = streak()  # a new streak after a request got through
    assert named in again and "sk-secret" not in again and "pw" not in again


@pytest.mark.parametrize(
    "exc",
    [httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("reset"), httpx.WriteError("broken")],
)
def test_no_retry_once_the_server_may_have_the_request(exc: Exception) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise exc

    with pytest.raises(HonchoRequestError) as info:
        client_with(handler).add_messages("w", "s", [{"peer_id": "p", "content": "x"}])
    assert calls == [1]
    assert info.value.reached_server is True and type(exc).__name__ in str(info.value)


def test_api_key_is_scrubbed_from_errors_and_repr() -> None:
    secret = "sk-topsecret-42"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"detail": f"bad token {secret}"})

    client = client_with(handler, api_key=secret, allow_insecure_http=True)
    with pytest.raises(HonchoRequestError) as info:
        client.health()
    assert secret not in str(info.value) and "[redacted]" in str(info.value)
    assert secret not in repr(client)


def test_close_is_idempotent() -> None:
    client = client_with(lambda r: httpx.Response(200))
    client.close()
    client.close()
    assert client.closed


def test_deerflows_client_surface_sends_what_upstream_sends() -> None:
    seen: list[tuple[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, json.loads(request.content)))
        if request.url.path.endswith("/representation"):
            return httpx.Response(200, json={"representation": "knows things"})
        if request.url.path.endswith("/search"):
            return httpx.Response(200, json=[{"content": "hit"}])
        return httpx.Response(201, json={"id": "x"})

    client = client_with(handler)
    assert client.get_or_create_peer("w1", "alice") is None
    assert client.get_or_create_session("w1", "s1") is None
    assert client.set_session_peers("w1", "s1", ["alice", "deerflow"]) is None
    assert client.add_messages("w1", "s1", [{"peer_id": "alice", "content": "hi"}]) is None
    assert client.working_representation("w1", "alice", max_conclusions=10) == "knows things"
    assert client.search("w1", "q") == [{"content": "hit"}]
    assert seen == [
        ("/v3/workspaces/w1/peers", {"id": "alice"}),
        ("/v3/workspaces/w1/sessions", {"id": "s1"}),
        ("/v3/workspaces/w1/sessions/s1/peers", {"alice": {}, "deerflow": {}}),
        (
            "/v3/workspaces/w1/sessions/s1/messages",
            {"messages": [{"peer_id": "alice", "content": "hi"}]},
        ),
        ("/v3/workspaces/w1/peers/alice/representation", {"max_conclusions": 10}),
        ("/v3/workspaces/w1/search", {"query": "q", "limit": 5}),  # upstream's default limit
    ]


def test_request_error_is_constructible_from_a_message_as_upstream_does() -> None:
    error = HonchoRequestError("Honcho request failed: POST /v3/x: boom")
    assert str(error) == "Honcho request failed: POST /v3/x: boom"
    assert isinstance(error, RuntimeError)
    assert (error.method, error.path, error.status, error.reached_server) == (
        None,
        None,
        None,
        True,
    )
    detailed = HonchoRequestError.for_request("POST", "/v3/x", 503, "busy")
    assert str(detailed) == "Honcho request failed: POST /v3/x -> 503: busy"
    assert (detailed.method, detailed.path, detailed.status) == ("POST", "/v3/x", 503)
