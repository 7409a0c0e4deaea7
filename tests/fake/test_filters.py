"""The filter DSL compiled to predicates: semantics and the server's error texts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho.errors import HonchoError, UnhandledError
from fake_honcho.store.filters import (
    COMPARISON_OPERATORS,
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
        ({"metadata": {"score": {"ne": 7}}}, ["m2"]),  # SQL's != : an unset field is NULL
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
    assert dialect_for(VERSIONS["3.0.12"], "correct") == LEGACY
    assert dialect_for(VERSIONS["3.1"], "correct") == STRICT
    assert dialect_for(VERSIONS["3.0.12"], "reproduce").reproduce_bugs


# -- the real servers' 500s, reproduced (register: real-filter-errors-500 at 3.0.12 and
# real-numeric-filter-500), measured on real 3.0.12 and 3.1 (exchanges/*/filter_binds.json)

REPRODUCING_LEGACY = dialect_for(VERSIONS["3.0.12"], "reproduce")
REPRODUCING_STRICT = dialect_for(VERSIONS["3.1"], "reproduce")


@pytest.mark.parametrize(
    ("filters", "model"),
    [
        ({"id": {"like": "a"}}, PEER),
        ({"id": 5}, PEER),
        ({"id": {"gte": "3"}}, PEER),
        ({"id": {"ne": None}}, PEER),
        ({"is_active": {"ne": True}}, SESSION),
        ({"created_at": "2024-01-01T00:00:00Z"}, SESSION),
        ({"created_at": {"contains": "2024-01-01"}}, PEER),
        ({"token_count": "5"}, MESSAGE),
        ({"token_count": {"in": [True]}}, MESSAGE),
        ({"metadata": 5}, PEER),
    ],
)
def test_a_legacy_operand_the_database_refuses_is_its_500(filters: Any, model: Model) -> None:
    with pytest.raises(UnhandledError) as raised:
        compile_filter(filters, model, REPRODUCING_LEGACY)
    assert raised.value.bug == "real-filter-errors-500"
    try:  # corrected: what 3.1 answers, a 422 or a list, never a 500
        compile_filter(filters, model, LEGACY)
    except HonchoError as refused:
        assert refused.status == 422


@pytest.mark.parametrize(
    ("filters", "model", "text"),
    [
        ({"id": {"gte": 3, "like": 1}}, PEER, "Unsupported comparison operator: like"),
        (
            {"is_active": {"ne": "x"}},
            SESSION,
            "Invalid numeric value: x. Expected a number, got str",
        ),
        ({"created_at": {"contains": "2"}}, PEER, "Invalid datetime value: 2"),
        ({"created_at": {"in": ["x"]}}, PEER, "Invalid datetime value in list: x"),
    ],
)
def test_legacy_checks_its_own_refusals_before_the_database(
    filters: Any, model: Model, text: str
) -> None:
    """3.0.12 builds the whole condition before the query runs: its own 422 wins."""
    with pytest.raises(HonchoError) as raised:
        compile_filter(filters, model, REPRODUCING_LEGACY)
    assert (raised.value.status, raised.value.detail) == (422, text)
    with pytest.raises(HonchoError) as raised:
        compile_filter(filters, model, LEGACY)
    assert raised.value.status == 422


def test_legacy_null_members_and_patterns_match_nothing() -> None:
    for dialect in (REPRODUCING_LEGACY, LEGACY):
        assert chosen({"peer_id": {"in": [None]}}, ROWS, MESSAGE, dialect) == []
        assert chosen({"peer_id": {"contains": None}}, ROWS, MESSAGE, dialect) == []


WITH_WORD = [*ROWS, {**ROWS[2], "id": "m4", "metadata": {"score": "abc"}}]


@pytest.mark.parametrize("dialect", [REPRODUCING_LEGACY, REPRODUCING_STRICT], ids=str)
def test_metadata_text_no_number_fails_the_whole_comparison(dialect: Any) -> None:
    predicate = compile_filter({"metadata": {"score": {"gt": 1}}}, MESSAGE, dialect)
    assert predicate is not None
    with pytest.raises(UnhandledError) as raised:
        [predicate(row) for row in WITH_WORD]
    assert raised.value.bug == "real-numeric-filter-500"
    with pytest.raises(UnhandledError):
        compile_filter({"metadata": {"score": {"gt": 2**70}}}, MESSAGE, dialect)
    corrected = replace(dialect, reproduce_bugs=False)
    assert chosen({"metadata": {"score": {"gt": 1}}}, WITH_WORD, MESSAGE, corrected) == [
        "m1",
        "m2",
    ]
    assert chosen({"metadata": {"score": {"gt": 2**70}}}, WITH_WORD, MESSAGE, corrected) == []


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
    with pytest.raises(HonchoError, match=r"422, .Failed to build numeric comparison"):
        compile_filter({"metadata": {"score": {"gte": [1]}}}, MESSAGE, LEGACY)  # as 3.0.12


# -- numbers as PostgreSQL compares them (measured on a real 3.0.12) ---------------------

SCORES = {"five": 5, "twenty": 20, "nan": "NaN", "inf": "Infinity", "blank": "", "big": "1e400"}
SCORED = [{"id": name, "metadata": {"score": value}} for name, value in SCORES.items()]


@pytest.mark.parametrize(
    ("comparison", "expected"),
    [
        ({"gt": 10}, ["twenty", "nan", "inf", "big"]),  # numeric: NaN above every number
        ({"lt": 10}, ["five"]),
        ({"ne": 5}, ["twenty", "nan", "inf", "big"]),  # empty text is NULL
        ({"gt": "10"}, ["twenty", "nan", "inf", "big"]),  # int("10"): numeric
        ({"gt": "NaN"}, []),  # float("NaN"): double precision, where NaN equals NaN
        ({"lt": "NaN"}, ["five", "twenty", "inf"]),  # 1e400 overflows a double: no match
        ({"gte": "Infinity"}, ["nan", "inf"]),
        ({"gt": 1.5}, ["five", "twenty", "nan", "inf"]),
        ({"gt": "abc"}, []),  # neither int() nor float(): compared as text
        ({"lt": "abc"}, ["five", "twenty", "nan", "inf", "blank", "big"]),
        ({"gt": True}, []),  # compared with the text 'true'
    ],
)
def test_numeric_metadata_comparisons(comparison: dict[str, Any], expected: list[str]) -> None:
    predicate = compile_filter({"metadata": {"score": comparison}}, PEER)
    assert predicate is not None
    assert [row["id"] for row in SCORED if predicate(row)] == expected


def test_an_operand_neither_number_nor_text_is_the_servers_422() -> None:
    with pytest.raises(HonchoError) as raised:
        compile_filter({"metadata": {"score": {"gt": [1]}}}, PEER)
    assert raised.value.detail == (
        "Failed to build numeric comparison condition for operator 'gt' with value '[1]': "
        "Failed to process numeric cast for value '[1]': Invalid value for numeric "
        "operator: [1]. Expected a number, got list"
    )


# -- no operand makes a filter fail -------------------------------------------------------

AWKWARD_TEXT = st.sampled_from(
    ["NaN", "nan", "-NaN", "sNaN", "Infinity", "-inf", "1e400", "1e-400", "1e99999", "", " ",
     " 12 ", "+7", ".5", "1.", "1_000", "0x10", "١٢", "12abc", "true", "null", "*",
     "2024-01-01", "2024-13-45T99:00:00Z", "9" * 5000]
)  # fmt: skip
NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
)
OPERANDS = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=6), AWKWARD_TEXT),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=6,
)
OPERATORS = st.sampled_from([*sorted(COMPARISON_OPERATORS), "eq", "like"])
FIELDS = st.sampled_from(["score", "topic", "tags", "flag", "n", "missing"])
MODELS = st.sampled_from([WORKSPACE, PEER, SESSION, MESSAGE, CONCLUSION])
ODD_ROWS: list[dict[str, Any]] = [
    {**ROWS[0], "metadata": {"score": value, "topic": value}, "is_active": True, "level": "x"}
    for value in ["NaN", "sNaN", "Infinity", "1e400", "1e-400", "", "abc", True, None, [1],
                  {"x": "NaN"}, 10**30, -0.0, 1e308]
]  # fmt: skip


@st.composite
def _filters(draw: st.DrawFn, model: Model) -> Any:
    key = draw(st.one_of(st.just("metadata"), st.sampled_from(model.allowed)))
    if key == "metadata":
        value = draw(st.dictionaries(FIELDS, st.one_of(OPERANDS, _comparison()), max_size=2))
    else:
        value = draw(st.one_of(OPERANDS, _comparison()))
    found = {key: value}
    if draw(st.booleans()):
        found = {draw(st.sampled_from(["AND", "OR", "NOT"])): [found, draw(OPERANDS)]}
    return found


@st.composite
def _comparison(draw: st.DrawFn) -> dict[str, Any]:
    return draw(st.dictionaries(OPERATORS, OPERANDS, min_size=1, max_size=2))


@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_no_filter_fails_other_than_with_a_422(data: st.DataObject) -> None:
    """Any operand of any type, against rows holding NaN, infinities and non-numbers:
    the filter compiles and selects, or is refused with a 422, never an exception; only a
    dialect reproducing the real server's bugs fails as it does, naming the entry."""
    model = data.draw(MODELS)
    filters = data.draw(_filters(model))
    dialects = [LEGACY, STRICT, REPRODUCING_LEGACY, REPRODUCING_STRICT]
    dialect = data.draw(st.sampled_from(dialects))
    try:
        predicate = compile_filter(filters, model, dialect)
        for row in ODD_ROWS:
            if predicate is not None:
                predicate(row)
    except HonchoError as refused:
        assert refused.status == 422
    except UnhandledError as failed:
        assert dialect.reproduce_bugs
        assert failed.bug in ("real-filter-errors-500", "real-numeric-filter-500")
