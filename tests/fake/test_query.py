"""Query parameters read the way Starlette's ``QueryParams`` reads them, by a cheaper path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import QueryParams
from starlette.requests import Request

from fake_honcho.errors import RequestValidationError
from fake_honcho.http.endpoint import _parse_query, query_int, query_str

# Names and values drawn from what makes parsing differ: separators, blanks, repeats,
# escapes and non-ASCII bytes.
_PIECES = st.sampled_from(
    ["page", "size", "a", "", "=", "&", "&&", "1", "007", "%20", "+", "é", "x=y"]
)
QUERIES = st.lists(_PIECES, max_size=12).map("".join)


@settings(max_examples=400)
@given(QUERIES)
def test_every_name_reads_as_starlette_reads_it(query: str) -> None:
    raw = query.encode()
    expected = QueryParams(raw.decode("latin-1"))
    parsed = _parse_query(raw)
    names = {name for name, _ in expected.multi_items()} | {"page", "size", "missing"}
    assert {name: parsed.get(name) for name in names} == {
        name: expected.get(name) for name in names
    }


def _request(query: bytes) -> Request:
    return Request({"type": "http", "query_string": query, "headers": []})


def test_query_int_reads_the_last_value_and_refuses_as_fastapi_does() -> None:
    assert query_int(_request(b"page=1&page=3"), "page", 1, ge=1) == 3
    assert query_str(_request(b"page"), "page") == ""
    with pytest.raises(RequestValidationError) as refused:
        query_int(_request(b"page=0"), "page", 1, ge=1)
    assert [item["loc"] for item in refused.value.items] == [["query", "page"]]
