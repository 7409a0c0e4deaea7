"""Arbitrary JSON to every data-plane route: never a 5xx, always Honcho's error shape."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho

W = "/v3/workspaces/ws"
S = W + "/sessions/s"
ROUTES = [
    ("POST", "/v3/workspaces"),
    ("POST", "/v3/workspaces/list"),
    ("PUT", W),
    ("POST", W + "/search"),
    ("POST", W + "/peers"),
    ("POST", W + "/peers/list"),
    ("PUT", W + "/peers/alice"),
    ("POST", W + "/peers/alice/sessions"),
    ("POST", W + "/peers/alice/search"),
    ("POST", W + "/sessions"),
    ("POST", W + "/sessions/list"),
    ("PUT", S),
    ("POST", S + "/peers"),
    ("PUT", S + "/peers"),
    ("DELETE", S + "/peers"),
    ("PUT", S + "/peers/alice/config"),
    ("POST", S + "/search"),
    ("POST", S + "/messages"),
    ("POST", S + "/messages/list"),
    ("POST", W + "/webhooks"),
]
KEYS = st.sampled_from(
    ["id", "name", "metadata", "configuration", "peers", "messages", "content", "peer_id",
     "query", "filters", "limit", "url", "observe_me", "observe_others", "AND", "NOT",
     "created_at", "token_count", "session_id", "alice", "gte", "in", "contains"]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-2, max_value=200),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["*", "alice", "2024-01-01", "https://example.com/h", "bad id"]),
)
BODIES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(KEYS, children, max_size=4)
    ),
    max_leaves=10,
)


@pytest.fixture(scope="module")
def shared_client() -> Any:
    fake = FakeHoncho(strict=True, seed=3)
    with httpx.Client(
        transport=fake.transport(raise_app_exceptions=False), base_url="http://fuzz"
    ) as http:
        http.post(f"{S}/messages", json={"messages": [{"content": "tea", "peer_id": "alice"}]})
        yield http
    fake.close()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(route=st.sampled_from(ROUTES), body=BODIES)
def test_no_body_makes_the_fake_fail(
    shared_client: httpx.Client, route: tuple[str, str], body: Any
) -> None:
    method, path = route
    response = shared_client.request(method, path, json=body)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        payload = response.json()
        assert set(payload) == {"detail"}
        assert isinstance(payload["detail"], str | list)
