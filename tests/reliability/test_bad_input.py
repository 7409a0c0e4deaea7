"""Bad input against the fake: a 4xx in Honcho's shape, never a 5xx, and no state change.

The first part is a matrix of hand-picked bad requests (with the status and detail a
real Honcho 3.0.12 gives); the second throws random JSON bodies, path ids and query
parameters at every route the fake implements.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fake_honcho import FakeHoncho

from .support import bounded, fake_operations, state_digest

# The OpenAPI document a real Honcho publishes, recorded (tests/fidelity/openapi/record.py).
RECORDED = Path(__file__).resolve().parents[1] / "fidelity" / "openapi"

W = "/v3/workspaces/ws"
FRESH = "/v3/workspaces/fresh"  # never created: a bad request must not create it either
S = f"{W}/sessions/s1"
JSON: dict[str, Any] = {"headers": {"content-type": "application/json"}}
PATTERN = "string_pattern_mismatch"
MIB = 1024 * 1024


def messages(count: int, content: str = "hi") -> dict[str, Any]:
    return {"messages": [{"peer_id": "alice", "content": content}] * count}


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


# (id, method, path, request kwargs, status, detail): detail is a pydantic error type
# (list-shaped detail) or the start of a string detail.
CASES: list[tuple[str, str, str, dict[str, Any], int, str]] = [
    # ids in create bodies
    ("ws-id-space", "POST", "/v3/workspaces", {"json": {"id": "bad id"}}, 422, PATTERN),
    ("ws-id-dot", "POST", "/v3/workspaces", {"json": {"id": "a.b"}}, 422, PATTERN),
    ("ws-id-unicode", "POST", "/v3/workspaces", {"json": {"id": "café"}}, 422, PATTERN),
    ("ws-id-emoji", "POST", "/v3/workspaces", {"json": {"id": "ws🙂"}}, 422, PATTERN),
    ("ws-id-513", "POST", "/v3/workspaces", {"json": {"id": "w" * 513}}, 422, "string_too_long"),
    ("ws-id-empty", "POST", "/v3/workspaces", {"json": {"id": ""}}, 422, "string_too_short"),
    ("ws-id-missing", "POST", "/v3/workspaces", {"json": {}}, 422, "missing"),
    ("ws-id-number", "POST", "/v3/workspaces", {"json": {"id": 5}}, 422, "string_type"),
    ("peer-id-space", "POST", f"{FRESH}/peers", {"json": {"id": "a b"}}, 422, PATTERN),
    ("peer-id-dot", "POST", f"{FRESH}/peers", {"json": {"id": "a.b"}}, 422, PATTERN),
    ("peer-id-513", "POST", f"{FRESH}/peers", {"json": {"id": "p" * 513}}, 422, "string_too_long"),
    ("session-id-unicode", "POST", f"{FRESH}/sessions", {"json": {"id": "sé"}}, 422, PATTERN),
    (
        "session-id-empty",
        "POST",
        f"{FRESH}/sessions",
        {"json": {"id": ""}},
        422,
        "string_too_short",
    ),
    (
        "session-peer-dot",
        "POST",
        f"{FRESH}/sessions",
        {"json": {"id": "s9", "peers": {"new.peer": {}}}},
        422,
        "Peer name(s) ['new.peer'] must match pattern",
    ),
    (
        "message-peer-dot",
        "POST",
        f"{FRESH}/sessions/s9/messages",
        {"json": {"messages": [{"peer_id": "new.peer", "content": "x"}]}},
        422,
        "Peer name(s) ['new.peer'] must match pattern",
    ),
    # message batches
    ("messages-0", "POST", f"{S}/messages", {"json": messages(0)}, 422, "too_short"),
    ("messages-101", "POST", f"{S}/messages", {"json": messages(101)}, 422, "too_long"),
    (
        "content-25001",
        "POST",
        f"{S}/messages",
        {"json": messages(1, "x" * 25_001)},
        422,
        "string_too_long",
    ),
    (
        "content-number",
        "POST",
        f"{S}/messages",
        {"json": {"messages": [{"peer_id": "alice", "content": 7}]}},
        422,
        "string_type",
    ),
    ("messages-not-list", "POST", f"{S}/messages", {"json": {"messages": "hi"}}, 422, "list_type"),
    (
        "message-no-peer",
        "POST",
        f"{S}/messages",
        {"json": {"messages": [{"content": "x"}]}},
        422,
        "missing",
    ),
    # malformed and non-object bodies
    (
        "json-malformed",
        "POST",
        "/v3/workspaces",
        {"content": b'{"id":', **JSON},
        422,
        "json_invalid",
    ),
    ("json-trailing", "POST", f"{S}/messages", {"content": b"{} x", **JSON}, 422, "json_invalid"),
    ("not-json", "POST", f"{S}/messages", {"content": b"{}"}, 422, "model_attributes_type"),
    (
        "undecodable",
        "POST",
        f"{S}/messages",
        {"content": b'{"\xff": 1}', **JSON},
        400,
        "There was an error parsing",
    ),
    ("body-array", "POST", "/v3/workspaces", {"content": b"[]"}, 422, "model_attributes_type"),
    ("body-string", "POST", f"{W}/peers", {"content": b'"alice"'}, 422, "model_attributes_type"),
    ("body-number", "POST", f"{S}/messages", {"content": b"42"}, 422, "model_attributes_type"),
    ("body-null", "POST", f"{W}/sessions", {"content": b"null", **JSON}, 422, "missing"),
    ("body-empty", "POST", "/v3/workspaces", {"content": b""}, 422, "missing"),
    # wrong types and limits
    ("metadata-string", "PUT", W, {"json": {"metadata": "x"}}, 422, "dict_type"),
    (
        "metadata-101-keys",
        "PUT",
        W,
        {"json": {"metadata": {f"k{i}": i for i in range(101)}}},
        422,
        "value_error",
    ),
    ("metadata-depth-6", "PUT", W, {"json": {"metadata": nested(6)}}, 422, "value_error"),
    (
        "search-limit-0",
        "POST",
        f"{W}/search",
        {"json": {"query": "x", "limit": 0}},
        422,
        "greater_than_equal",
    ),
    (
        "search-limit-101",
        "POST",
        f"{W}/search",
        {"json": {"query": "x", "limit": 101}},
        422,
        "less_than_equal",
    ),
    ("search-no-query", "POST", f"{W}/search", {"json": {}}, 422, "missing"),
    (
        "representation-max-0",
        "POST",
        f"{W}/peers/alice/representation",
        {"json": {"max_conclusions": 0}},
        422,
        "greater_than_equal",
    ),
    ("peers-delete-object", "DELETE", f"{S}/peers", {"json": {"alice": {}}}, 422, "list_type"),
    (
        "webhook-ftp",
        "POST",
        f"{W}/webhooks",
        {"json": {"url": "ftp://example.com/h"}},
        422,
        "value_error",
    ),
    (
        "webhook-loopback",
        "POST",
        f"{W}/webhooks",
        {"json": {"url": "http://127.0.0.1/h"}},
        422,
        "value_error",
    ),
    # unknown filter keys
    *[
        (
            f"filter-unknown-{name}",
            "POST",
            path,
            {"json": {"filters": {"bogus": 1}}},
            422,
            "Column 'bogus' is not allowed to be filtered on",
        )
        for name, path in [
            ("workspaces", "/v3/workspaces/list"),
            ("peers", f"{W}/peers/list"),
            ("sessions", f"{W}/sessions/list"),
            ("messages", f"{S}/messages/list"),
        ]
    ],
    (
        "filter-unknown-search",
        "POST",
        f"{W}/search",
        {"json": {"query": "x", "filters": {"bogus": 1}}},
        422,
        "Column 'bogus' is not allowed to be filtered on",
    ),
    (
        "filter-and-not-list",
        "POST",
        f"{W}/peers/list",
        {"json": {"filters": {"AND": {"id": "a"}}}},
        422,
        "AND operator must contain a list",
    ),
    # pagination
    ("page-0", "POST", f"{W}/peers/list", {"params": {"page": 0}}, 422, "greater_than_equal"),
    ("size-101", "POST", f"{W}/peers/list", {"params": {"size": 101}}, 422, "less_than_equal"),
    ("size-0", "POST", f"{S}/messages/list", {"params": {"size": 0}}, 422, "greater_than_equal"),
    ("page-text", "POST", "/v3/workspaces/list", {"params": {"page": "two"}}, 422, "int_parsing"),
    (
        "session-peers-size-101",
        "GET",
        f"{S}/peers",
        {"params": {"size": 101}},
        422,
        "less_than_equal",
    ),
    # query limits
    (
        "context-tokens",
        "GET",
        f"{S}/context",
        {"params": {"tokens": 100_001}},
        422,
        "less_than_equal",
    ),
    (
        "context-perspective-alone",
        "GET",
        f"{S}/context",
        {"params": {"peer_perspective": "alice"}},
        422,
        "peer_target must be provided if peer_perspective is provided",
    ),
    # documented size and type limits of uploads
    (
        "upload-over-5-mib",
        "POST",
        f"{S}/messages/upload",
        {
            "files": {"file": ("big.txt", b"x" * (5 * MIB + 1), "text/plain")},
            "data": {"peer_id": "alice"},
        },
        413,
        "File size (5242881 bytes) exceeds maximum allowed size (5242880 bytes)",
    ),
    (
        "upload-unsupported-type",
        "POST",
        f"{S}/messages/upload",
        {
            "files": {"file": ("a.bin", b"\x00\x01", "application/octet-stream")},
            "data": {"peer_id": "alice"},
        },
        415,
        "Unsupported file type",
    ),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeHoncho]:
    # real_bugs="correct": the 500s a real server answers here (ids that break the pattern
    # on get-or-create routes, pages past a bigint offset) are the register's; this suite
    # holds the corrected fake to never answering 5xx.
    with FakeHoncho(strict=True, real_bugs="correct") as fake:
        yield fake


@pytest.fixture(scope="module")
def http(fake: FakeHoncho) -> Iterator[httpx.Client]:
    # raise_app_exceptions=False: a fake bug arrives as the 500 a client would see.
    transport = fake.transport(raise_app_exceptions=False)
    with httpx.Client(transport=transport, base_url="http://honcho.fake") as client:
        client.post(f"{S}/messages", json=messages(1)).raise_for_status()
        yield client


def assert_honcho_error(response: httpx.Response) -> Any:
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["detail"]
    detail = body["detail"]
    if isinstance(detail, list):
        assert detail, "an empty validation error list"
        for error in detail:
            assert {"type", "loc", "msg"} <= set(error)
    else:
        assert isinstance(detail, str) and detail
    return detail


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_bad_request(
    fake: FakeHoncho,
    http: httpx.Client,
    method: str,
    path: str,
    kwargs: dict[str, Any],
    status: int,
    expected: str,
) -> None:
    before = state_digest(fake)
    response = http.request(method, path, **kwargs)
    assert response.status_code == status, response.text[:300]
    detail = assert_honcho_error(response)
    if isinstance(detail, list):
        assert expected in [error["type"] for error in detail]
    else:
        assert detail.startswith(expected), detail
    assert state_digest(fake) == before


# pydantic (lax mode) takes an integral float where an int is declared: Honcho treats
# {"limit": 6.0} exactly as {"limit": 6}.
LAX_INTEGERS: list[Any] = [
    pytest.param(f"{W}/search", {"query": "hi", "limit": 6}, id="search-limit"),
    pytest.param(f"{W}/peers/alice/search", {"query": "hi", "limit": 6}, id="peer-search-limit"),
    pytest.param(f"{S}/search", {"query": "hi", "limit": 6}, id="session-search-limit"),
    pytest.param(
        f"{W}/peers/alice/representation",
        {"search_query": "hi", "search_top_k": 3, "max_conclusions": 5},
        id="representation",
    ),
    pytest.param(
        f"{W}/conclusions/query",
        {"query": "hi", "top_k": 2, "filters": {"observer": "alice", "observed": "alice"}},
        id="conclusions-query",
    ),
]


@pytest.mark.parametrize(("path", "body"), LAX_INTEGERS)
def test_integral_floats_count_as_integers(
    http: httpx.Client, path: str, body: dict[str, Any]
) -> None:
    as_floats = {key: float(value) if type(value) is int else value for key, value in body.items()}
    expected = http.post(path, json=body)
    response = http.post(path, json=as_floats)
    assert (response.status_code, response.json()) == (expected.status_code, expected.json())


def test_the_matrix_size() -> None:
    """Reported in the closing note: how many distinct bad inputs the matrix tries."""
    assert len({case[0] for case in CASES}) == len(CASES) >= 50


# -- random bodies against every route ------------------------------------------------


def _property_names() -> list[str]:
    """Every request/response property name of the recorded 3.0.12 document (structure-aware
    keys)."""
    names = {"id", "metadata", "messages", "content", "peer_id", "filters", "query", "limit"}
    spec = json.loads((RECORDED / "3.0.12.json").read_text("utf-8"))
    for schema in spec["components"]["schemas"].values():
        names.update(schema.get("properties", {}))
    return sorted(names)


KEYS = _property_names()
QUERY_KEYS = [
    "page",
    "size",
    "reverse",
    "tokens",
    "summary",
    "target",
    "peer_target",
    "peer_perspective",
    "search_query",
    "limit_to_session",
    "message_id",
    "session_id",
    "observer_id",
    "sender_id",
    "search_top_k",
    "max_conclusions",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.integers(min_value=-2, max_value=120).map(float)  # 6.0: an int to pydantic
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["alice", "s1", "ws", "", "a.b", "x" * 600, "*", "gte", "in"])
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=8,
)
bodies = json_values | st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6)
path_ids = st.sampled_from(["ws", "s1", "alice", "x1", "fresh"]) | st.text(min_size=1, max_size=12)
queries = st.dictionaries(
    st.sampled_from(QUERY_KEYS),
    st.sampled_from(["0", "1", "101", "-1", "true", "x", ""]) | st.text(max_size=5),
    max_size=3,
)

OPERATIONS = [op for op in fake_operations() if op[1] != "/metrics"]  # bare text, no input
RANDOM_EXAMPLES = 6


@pytest.mark.parametrize(
    ("method", "template"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS]
)
@bounded(RANDOM_EXAMPLES)
@given(body=bodies, ids=st.lists(path_ids, min_size=4, max_size=4), query=queries)
def test_random_json_never_a_server_error(
    http: httpx.Client, method: str, template: str, body: Any, ids: list[str], query: dict[str, str]
) -> None:
    path = template
    for value in ids:
        start = path.find("{")
        if start < 0:
            break
        path = path[:start] + quote(value, safe="") + path[path.index("}", start) + 1 :]
    response = http.request(
        method,
        path,
        content=json.dumps(body).encode(),
        params=query,
        headers={"content-type": "application/json"},
    )
    assert response.status_code < 500, f"{method} {path} {body!r} -> {response.text[:300]}"
    if response.status_code >= 400:
        assert_honcho_error(response)
