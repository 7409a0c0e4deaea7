"""The compiled schema checks agree with ``jsonschema`` on every document tried."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fake_honcho.http.schema_compiler import Compiler
from fake_honcho.http.schemas import SchemaSet, default_schemas

SCHEMAS = default_schemas()
NAMES = SCHEMAS.names()


def _property_names() -> list[str]:
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(SCHEMAS.documents)
    return sorted(names)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=102),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2),
    st.sampled_from(["", "ok", "a b", "new.peer", "x" * 513, "short", "low", "explicit"]),
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(_property_names()), children, max_size=5),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), document=JSON, many=st.booleans())
def test_compiled_check_agrees_with_jsonschema(name: str, document: Any, many: bool) -> None:
    expected = SCHEMAS.validator(name, many=many).is_valid(document)
    assert SCHEMAS.is_valid(name, document, many=many) is expected


@pytest.mark.parametrize(
    ("name", "document"),
    [
        ("MessageBatchCreate", {"messages": [{"content": "", "peer_id": "p"}] * 100}),
        ("MessageBatchCreate", {"messages": [{"content": "", "peer_id": "p"}] * 101}),
        ("MessageBatchCreate", {"messages": [{"content": "c" * 25_001, "peer_id": "p"}]}),
        ("MessageSearchOptions", {"query": "q", "limit": 100.0}),
        ("MessageSearchOptions", {"query": "q", "limit": True}),
        ("SessionPeerConfig", {"observe_me": 1}),
    ],
)
def test_edges_agree(name: str, document: Any) -> None:
    assert SCHEMAS.is_valid(name, document) is SCHEMAS.validator(name).is_valid(document)


def test_unsupported_keywords_are_refused() -> None:
    compiler = Compiler(lambda base, ref: (ref, {}))
    with pytest.raises(ValueError, match="unsupported JSON Schema keywords"):
        compiler.compile({"type": "string", "format": "email", "oneOf": []}, "x")


def test_every_shipped_schema_compiles() -> None:
    fresh = SchemaSet()
    for name in fresh.names():
        fresh.is_valid(name, None)
