"""wire.dumps renders exactly what Starlette's JSONResponse renders for the public rows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.responses import JSONResponse

from fake_honcho.http.render_memo import RenderMemo
from fake_honcho.http.wire import MESSAGE_FIELDS, JSONBody, PublicRows, dumps, plain, public
from fake_honcho.store.state import Store

# Text that exercises every escaping rule: quotes, backslashes, controls, DEL,
# non-ASCII, astral characters (surrogate pairs in \\u form) and the "\\u" sequence.
TEXT = st.text(
    st.sampled_from(['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "u", "a", " ", "é", "€", "😀"])
    | st.characters(blacklist_categories=["Cs"]),
    max_size=80,
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)

RARELY = st.sampled_from([False, False, False, True])


def reference(value: Any) -> bytes:
    return bytes(JSONResponse(value).body)


@st.composite
def message_rows(draw: st.DrawFn) -> dict[str, Any]:
    """Message-shaped rows, sometimes with a value of another type or extra keys."""
    row: dict[str, Any] = {name: draw(TEXT) for name in MESSAGE_FIELDS}
    row["metadata"] = draw(st.just({}) | st.dictionaries(TEXT, JSON, max_size=3) | JSON)
    row["token_count"] = draw(st.integers(0, 10**6) | JSON)
    if draw(RARELY):
        row[draw(st.sampled_from(MESSAGE_FIELDS[:5]))] = draw(JSON)
    row["_seq"] = draw(st.integers())
    if draw(st.booleans()):
        row["_configuration"] = draw(JSON)
    if draw(RARELY):
        row[draw(TEXT)] = draw(JSON)  # a key the template does not know, anywhere
    return row


@settings(max_examples=150, deadline=None)
@given(st.lists(message_rows(), max_size=4))
def test_message_rows_render_as_jsonresponse_renders_their_public_copies(
    rows: list[dict[str, Any]],
) -> None:
    expected = reference([public(row) for row in rows])
    assert dumps(PublicRows(rows)) == expected
    memo = RenderMemo(Store())
    assert dumps(PublicRows(rows, memo=memo)) == expected  # rendered, then kept
    assert dumps(PublicRows(rows, memo=memo)) == expected  # sent again from the memo
    page = {"items": PublicRows(rows), "total": len(rows), "page": 1}
    assert dumps(page) == reference(plain(page))


@settings(max_examples=100, deadline=None)
@given(JSON)
def test_any_other_payload_renders_as_jsonresponse(value: Any) -> None:
    assert dumps(value) == reference(value)


def test_a_real_message_row_takes_the_template_and_drops_internal_keys() -> None:
    row = {
        "id": "m1",
        "content": 'He said "hi"\nthen left. Café 😀',
        "peer_id": "alice",
        "session_id": "s1",
        "workspace_id": "w1",
        "metadata": {"turn": 1},
        "created_at": "2026-01-01T00:00:00Z",
        "token_count": 7,
        "_seq": 1,
        "_seq_in_session": 1,
    }
    body = dumps(PublicRows([row]))
    assert body == reference([public(row)])
    assert b"_seq" not in body
    assert "Café 😀".encode() in body  # UTF-8, not \\u escapes


@pytest.mark.parametrize(
    "content",
    [
        "".join(map(chr, range(0x80))) + "é😀\u2028",
        'a "quoted" \\"escaped\\" back\\slash\\\\ \\u0041 line\nbreak\r\ttab\x00\x1f\x7f',
        "\\" * 5 + '"' * 3,
    ],
)
def test_special_characters_in_content_are_escaped_as_json_escapes_them(content: str) -> None:
    row = dict.fromkeys(MESSAGE_FIELDS, "x") | {"metadata": {}, "token_count": 3, "_seq": 1}
    row["content"] = content
    assert dumps(PublicRows([row])) == reference([public(row)])


def test_a_lone_surrogate_jsonresponse_cannot_render_is_sent_escaped() -> None:
    row = dict.fromkeys(MESSAGE_FIELDS, "x") | {"metadata": {}, "token_count": 1}
    row["content"] = "tea \ud800"
    with pytest.raises(UnicodeEncodeError):
        reference([public(row)])
    body = dumps(PublicRows([row]))
    assert b"\\ud800" in body
    assert json.loads(body) == [public(row)]


def test_public_rows_nested_deeper_than_a_page_are_refused_not_leaked() -> None:
    rows = PublicRows([{"id": "p", "_secret": 1}])
    with pytest.raises(TypeError):
        dumps({"outer": [rows]})
    assert plain({"items": rows}) == {"items": [{"id": "p"}]}


def test_json_body_is_a_json_response_with_the_same_headers() -> None:
    payload = {"items": PublicRows([{"id": "p", "_x": 0}]), "total": 1}
    body = JSONBody(payload, status_code=201)
    expected = JSONResponse(plain(payload), status_code=201)
    assert body.body == expected.body
    assert body.raw_headers == expected.raw_headers
    assert body.status_code == 201
    for status in (101, 204, 304):  # statuses that carry no content-length
        assert JSONBody(None, status).raw_headers == JSONResponse(None, status).raw_headers


def test_a_circular_payload_still_fails() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises((ValueError, RecursionError)):
        dumps(loop)
