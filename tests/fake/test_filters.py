"""The filter DSL compiled to predicates: semantics and the server's error texts."""

from __future__ import annotations

from typing import Any

import pytest

from fake_honcho.errors import HonchoError
from fake_honcho.filters import MESSAGE, PEER, SESSION, WORKSPACE, Model, compile_filter

ROWS: list[dict[str, Any]] = [
    {
        "id": "m1",
        "peer_id": "alice",
        "session_id": "s1",
        "workspace_id": "ws",
        "token_count": 5,
        "created_at": "2024-01-02T03:04:05Z",
        "metadata": {"topic": "tea", "score": 7, "tags": ["a", "b"], "flag": True, "n": {"x": 1}},
    },
    {
        "id": "m2",
        "peer_id": "bob",
        "session_id": "s1",
        "workspace_id": "ws",
        "token_count": 12,
        "created_at": "2024-06-01T00:00:00.250000Z",
        "metadata": {"topic": "Coffee", "score": "3"},
    },
    {
        "id": "m3",
        "peer_id": "carol",
        "session_id": "s2",
        "workspace_id": "ws",
        "token_count": 0,
        "created_at": "2025-01-01T00:00:00Z",
        "metadata": {},
    },
]


def selected(filters: Any, model: Model = MESSAGE) -> list[str]:
    predicate = compile_filter(filters, model)
    return [row["id"] for row in ROWS if predicate is None or predicate(row)]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (None, ["m1", "m2", "m3"]),
        ({}, ["m1", "m2", "m3"]),
        ({"peer_id": "alice"}, ["m1"]),
        ({"peer_id": ["alice", "carol"]}, ["m1", "m3"]),
        ({"peer_id": {"in": []}}, []),
        ({"peer_id": "*"}, ["m1", "m2", "m3"]),
        ({"peer_id": {"in": ["*"]}}, ["m1", "m2", "m3"]),
        ({"peer_id": {"ne": "alice"}}, ["m2", "m3"]),
        ({"peer_id": {"contains": "O"}}, ["m2", "m3"]),
        ({"peer_id": {"icontains": "LIC"}}, ["m1"]),
        ({"peer_id": {"contains": "%"}}, []),
        ({"token_count": {"gte": 5}}, ["m1", "m2"]),
        ({"token_count": {"gt": 5, "lte": 12}}, ["m2"]),
        ({"token_count": {"lt": "5"}}, ["m3"]),
        ({"token_count": 0}, ["m3"]),
        ({"created_at": {"gte": "2024-06-01"}}, ["m2", "m3"]),
        ({"created_at": {"lt": "2024-06-01T00:00:00.250000+00:00"}}, ["m1"]),
        ({"created_at": "2024-01-02T03:04:05Z"}, ["m1"]),
        ({"AND": [{"session_id": "s1"}, {"token_count": {"gt": 6}}]}, ["m2"]),
        ({"OR": [{"peer_id": "alice"}, {"session_id": "s2"}]}, ["m1", "m3"]),
        ({"NOT": [{"peer_id": "alice"}, {"peer_id": "bob"}]}, ["m3"]),
        ({"NOT": [{"AND": [{"session_id": "s1"}, {"peer_id": "bob"}]}]}, ["m1", "m3"]),
        ({"OR": [{"NOT": [{"session_id": "s1"}]}, {"peer_id": "bob"}]}, ["m2", "m3"]),
        ({"AND": []}, ["m1", "m2", "m3"]),
        ({"metadata": {"topic": "tea"}}, ["m1"]),
        ({"metadata": {"tags": ["b"]}}, ["m1"]),
        ({"metadata": {"n": {"x": 1}}}, ["m1"]),
        ({"metadata": {"flag": True}}, ["m1"]),
        ({"metadata": {"topic": "*"}}, ["m1", "m2", "m3"]),
        ({"metadata": {"score": {"gte": 5}}}, ["m1"]),
        ({"metadata": {"score": {"lt": 5}}}, ["m2"]),
        ({"metadata": {"score": {"ne": 7}}}, ["m2", "m3"]),
        ({"metadata": {"topic": {"icontains": "coff"}}}, ["m2"]),
        ({"metadata": {"topic": {"in": ["tea", "none"]}}}, ["m1"]),
        ({"metadata": {"flag": {"ne": True}}}, ["m2", "m3"]),
        ({"metadata": {"contains": {"topic": "tea"}}}, ["m1"]),
        ({"metadata": {}}, ["m1", "m2", "m3"]),
    ],
)
def test_semantics(filters: Any, expected: list[str]) -> None:
    assert selected(filters) == expected


def test_workspace_rows_filter_on_id_and_metadata() -> None:
    rows = [{"id": "a", "metadata": {"k": 1}}, {"id": "b", "metadata": {}}]
    predicate = compile_filter({"id": {"in": ["a", "b"]}, "metadata": {"k": 1}}, WORKSPACE)
    assert predicate is not None
    assert [row["id"] for row in rows if predicate(row)] == ["a"]


def test_session_rows_filter_on_is_active() -> None:
    predicate = compile_filter({"is_active": False}, SESSION)
    assert predicate is not None
    assert predicate({"is_active": False}) and not predicate({"is_active": True})


@pytest.mark.parametrize(
    ("filters", "model", "text"),
    [
        (
            {"bogus": 1},
            WORKSPACE,
            "Column 'bogus' is not allowed to be filtered on or does not exist on Workspace",
        ),
        ({"session_id": "s"}, PEER, "Column 'session_id' does not exist on Peer"),
        ({"workspace_id": "w"}, WORKSPACE, "Column 'workspace_id' does not exist on Workspace"),
        ({"OR": {"peer_id": "a"}}, MESSAGE, "OR operator must contain a list, got dict"),
        ({"NOT": None}, MESSAGE, "NOT operator cannot be None"),
        ({"AND": ["text"]}, MESSAGE, "Invalid filter configuration"),
        (
            {"peer_id": {"gte": None}},
            MESSAGE,
            "Operator 'gte' does not accept null. Use "
            '{"ne": null} for a not-null check, or null on its own for a null check.',
        ),
        (
            {"peer_id": {"like": "a"}},
            MESSAGE,
            "Invalid filter for column 'peer_id': unsupported "
            "operator(s) ['like']. Expected one of ['contains', 'gt', 'gte', 'icontains', 'in', "
            "'lt', 'lte', 'ne'] or a scalar value.",
        ),
        (
            {"peer_id": {"in": "alice"}},
            MESSAGE,
            "Invalid value for 'in' operator: alice. "
            "Expected an iterable (list, tuple, set), got str",
        ),
        (
            {"peer_id": 5},
            MESSAGE,
            "Invalid value for column 'peer_name': expected a string, got int",
        ),
        (
            {"is_active": "yes"},
            SESSION,
            "Invalid value for column 'is_active': expected true or false, got str",
        ),
        (
            {"token_count": "many"},
            MESSAGE,
            "Invalid numeric value: many. Expected a number, got str",
        ),
        (
            {"token_count": {"contains": "1"}},
            MESSAGE,
            "Operator 'contains' requires a text column, but 'token_count' is int",
        ),
        ({"created_at": "yesterday"}, MESSAGE, "Invalid datetime value: yesterday"),
        (
            {"created_at": {"gte": 5}},
            MESSAGE,
            "Invalid value for column 'created_at': expected a datetime, got int",
        ),
        (
            {"metadata": "tea"},
            MESSAGE,
            "Invalid filter for column 'h_metadata': a JSONB column "
            "takes an object, optionally under 'contains'",
        ),
        (
            {"metadata": {"score": {"between": 1, "gte": 1}}},
            MESSAGE,
            "Unsupported comparison operator: between",
        ),
        (
            {"AND": [{"AND": [{"AND": [{"AND": [{"AND": [{"AND": [{}]}]}]}]}]}]},
            MESSAGE,
            "Filter nesting exceeds maximum depth of 5",
        ),
    ],
)
def test_errors_carry_the_server_text(filters: Any, model: Model, text: str) -> None:
    with pytest.raises(HonchoError) as raised:
        compile_filter(filters, model)
    assert (raised.value.status, raised.value.detail) == (422, text)
