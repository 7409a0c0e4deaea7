"""The filter DSL compiled to predicates: semantics and the server's error texts."""

from __future__ import annotations

from typing import Any

import pytest

from fake_honcho.errors import HonchoError
from fake_honcho.filters import (
    CONCLUSION,
    LEGACY,
    MESSAGE,
    PEER,
    SESSION,
    STRICT,
    WORKSPACE,
    Model,
    compile_filter,
    dialect_for,
)
from fake_honcho.versions import VERSIONS

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
        ({"metadata": {"score": {"ne": 7}}}, ["m2"]),  # a missing key is unknown
        ({"metadata": {"topic": {"icontains": "coff"}}}, ["m2"]),
        ({"metadata": {"topic": {"in": ["tea", "none"]}}}, ["m1"]),
        ({"metadata": {"flag": {"ne": True}}}, []),
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


# -- what 3.1 changed (Feature.STRICT_FILTERS), measured on real 3.0.12 and 3.1 servers -----

CONCLUSIONS: list[dict[str, Any]] = [
    {"id": "c1", "session_id": "s1", "level": "explicit"},
    {"id": "c2", "session_id": None, "level": "explicit"},
]


def chosen(filters: Any, rows: list[dict[str, Any]], model: Model, dialect: Any) -> list[str]:
    predicate = compile_filter(filters, model, dialect)
    return [row["id"] for row in rows if predicate is None or predicate(row) is True]


def test_the_version_picks_the_dialect() -> None:
    assert dialect_for(VERSIONS["3.0.12"]) is LEGACY
    assert dialect_for(VERSIONS["3.1"]) is STRICT


@pytest.mark.parametrize(
    ("filters", "legacy", "strict"),
    [
        ({"NOT": [{"metadata": {"score": {"gte": 5}}}]}, ["m2"], ["m2", "m3"]),
        ({"NOT": [{"metadata": {"topic": {"in": ["tea"]}}}]}, ["m2"], ["m2", "m3"]),
        ({"metadata": {"score": {"ne": 7}}}, ["m2"], ["m2"]),  # ->> stays plain <>
        ({"NOT": [{"OR": [{"metadata": {"score": {"gt": 5}}}, {"peer_id": "bob"}]}]}, [], ["m3"]),
    ],
)
def test_negation_over_a_missing_value(filters: Any, legacy: list[str], strict: list[str]) -> None:
    """3.0.12 negates with plain NOT (unknown stays unknown); 3.1 with IS NOT TRUE."""
    assert chosen(filters, ROWS, MESSAGE, LEGACY) == legacy
    assert chosen(filters, ROWS, MESSAGE, STRICT) == strict


def test_ne_over_an_unset_column_is_distinct_from_only_in_31() -> None:
    filters = {"session_id": {"ne": "s1"}}
    assert chosen(filters, CONCLUSIONS, CONCLUSION, STRICT) == ["c2"]
    assert chosen({"peer_id": {"ne": "alice"}}, ROWS, MESSAGE, STRICT) == ["m2", "m3"]
    not_s1 = {"NOT": [{"session_id": "s1"}]}
    assert chosen(not_s1, CONCLUSIONS, CONCLUSION, LEGACY) == []
    assert chosen(not_s1, CONCLUSIONS, CONCLUSION, STRICT) == ["c2"]
    assert chosen({"session_id": {"ne": None}}, CONCLUSIONS, CONCLUSION, STRICT) == ["c1"]


@pytest.mark.parametrize(
    ("filters", "model", "text"),
    [
        (
            {"level": "bogus"},
            CONCLUSION,
            "Invalid value for column 'level': 'bogus'. "
            "Expected one of ['contradiction', 'deductive', 'explicit', 'inductive']",
        ),
        (
            {"metadata": {"score": {"gte": [1]}}},
            MESSAGE,
            "Failed to build numeric comparison condition for operator 'gte' with value '[1]': "
            "Failed to process numeric cast for value '[1]': Invalid value for numeric "
            "operator: [1]. Expected a number, got list",
        ),
    ],
)
def test_strict_refusals(filters: Any, model: Model, text: str) -> None:
    with pytest.raises(HonchoError) as raised:
        compile_filter(filters, model, STRICT)
    assert (raised.value.status, raised.value.detail) == (422, text)
    assert compile_filter({"level": "explicit"}, CONCLUSION, STRICT) is not None


def test_the_legacy_dialect_keeps_its_answers() -> None:
    """3.0.12 (a 500 on the real server) keeps the fake's 422 texts and open value sets."""
    assert chosen({"level": "bogus"}, CONCLUSIONS, CONCLUSION, LEGACY) == []
    with pytest.raises(HonchoError, match=r"422, .Invalid numeric value: s1. Expected a number"):
        compile_filter({"session_id": {"ne": "s1"}}, CONCLUSION, LEGACY)  # float("s1")
    with pytest.raises(HonchoError, match=r"422, .Invalid value for numeric operator"):
        compile_filter({"metadata": {"score": {"gte": [1]}}}, MESSAGE, LEGACY)
