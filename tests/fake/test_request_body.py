"""Request bodies are read once (the journal's buffer) and decoded as json.loads would."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho
from fake_honcho.errors import HonchoError
from fake_honcho.http.endpoint import decode_json
from fake_honcho.http.request_models import RawBody

PEERS = "/v3/workspaces/w1/peers"
MESSAGES = "/v3/workspaces/w1/sessions/s1/messages"
JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
def test_a_body_in_any_encoding_json_detects_is_read(client: httpx.Client, encoding: str) -> None:
    body = json.dumps({"id": "p1", "metadata": {"name": "Zoë"}}).encode(encoding)
    response = client.post(PEERS, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 201, response.text
    assert response.json()["metadata"] == {"name": "Zoë"}


def test_invalid_utf8_is_fastapis_parse_error(client: httpx.Client) -> None:
    response = client.post(
        PEERS, content=b'{"id": "\xff"}', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "There was an error parsing the body"}


def test_a_body_without_a_json_content_type_is_text_to_the_model(client: httpx.Client) -> None:
    for headers in (
        {},
        {"content-type": "text/plain"},
        {"content-type": "application/x-www-form-urlencoded"},
    ):
        response = client.post(PEERS, content=b'{"id": "p9"}', headers=headers)
        assert response.status_code == 422, headers
        assert response.json()["detail"] == [
            {
                "type": "model_attributes_type",
                "loc": ["body"],
                "msg": "Input should be a valid dictionary or object to extract fields from",
                "input": '{"id": "p9"}',
            }
        ]
    for kind in ("application/json; charset=utf-8", "application/vnd.api+json", "APPLICATION/JSON"):
        response = client.post(PEERS, content=b'{"id": "p9"}', headers={"content-type": kind})
        assert response.status_code in (200, 201), kind


def test_invalid_utf8_text_is_the_real_servers_500(client: httpx.Client) -> None:
    """FastAPI's encoder cannot echo the bytes in its 422 (real-undecodable-text-body-500)."""
    response = client.post(PEERS, content=b'{"id": "\xff"}', headers={"content-type": "text/plain"})
    assert response.status_code == 500
    assert response.json() == {"detail": "An unexpected error occurred"}


def test_the_handler_reads_the_body_the_journal_recorded(
    fake: FakeHoncho, client: httpx.Client
) -> None:
    client.post(PEERS, json={"id": "p2", "metadata": {"k": 1}})
    entry = fake.requests[-1]
    assert entry.json == {"id": "p2", "metadata": {"k": 1}}
    assert fake.store.get("peers", ("w1", "p2"))["metadata"] == {"k": 1}


def test_the_core_app_without_the_journal_still_reads_bodies(fake: FakeHoncho) -> None:
    transport = httpx.ASGITransport(app=fake.core_app)

    async def post() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://fake") as client:
            return await client.post(PEERS, json={"id": "p3"})

    response = asyncio.run(post())
    assert response.status_code == 201
    assert len(fake.requests) == 0


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec="utf-8")),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
JSONISH_BYTES = st.lists(
    st.sampled_from(
        [
            b"{",
            b"}",
            b"[",
            b"]",
            b",",
            b":",
            b'"',
            b"\\",
            b"u",
            b"d800",
            b"0",
            b"1",
            b"-",
            b".",
            b"e",
            b"+",
            b" ",
            b"\t",
            b"\n",
            b"\x00",
            b"\x01",
            b"\xff",
            b"\xef\xbb\xbf",
            b"a",
            b"NaN",
            b"Infinity",
            b"true",
            b"null",
            b"\xc3\xa9",
        ]
    ),
    max_size=14,
).map(b"".join)


def _loaded(raw: bytes) -> object:
    """json.loads(raw), or the error type it raises (UnicodeDecodeError is a ValueError)."""
    try:
        return json.loads(raw)
    except ValueError:
        return ValueError


def _decoded(raw: bytes) -> object:
    try:
        return decode_json(raw)
    except HonchoError:  # FastAPI's 422 (not JSON) or 400 (not decodable)
        return ValueError


@settings(max_examples=300)
@given(value=JSON_VALUES, ascii_only=st.booleans(), spaced=st.booleans())
def test_bodies_decode_to_what_json_loads_gives(
    value: object, ascii_only: bool, spaced: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=None if spaced else (",", ":"))
    assert decode_json(text.encode()) == json.loads(text)


@settings(max_examples=500)
@given(raw=JSONISH_BYTES)
def test_the_fast_parser_accepts_nothing_json_loads_refuses(raw: bytes) -> None:
    # repr, so that NaN equals NaN and 0 is not taken for False.
    assert repr(_decoded(raw)) == repr(_loaded(raw))


@pytest.mark.parametrize(
    "raw",
    [b'"\\ud800"', b"[" * 300 + b"]" * 300, b"\xef\xbb\xbf{}", b'{"a": 1, "a": 2}', b"1e400"],
)
def test_bodies_the_fast_parser_refuses_are_json_loads_s_to_decide(raw: bytes) -> None:
    assert repr(_decoded(raw)) == repr(_loaded(raw))


def test_escaped_nul_and_special_tokens_are_found_in_a_batch(client: httpx.Client) -> None:
    # Sent with ASCII escapes (json.dumps' default), so only the raw body's \u00XX shows them.
    ok = json.dumps(
        {"messages": [{"peer_id": "a", "content": "x\u0000y", "metadata": {"k\u0000": "v\u0000"}}]}
    )
    response = client.post(MESSAGES, content=ok.encode(), headers=JSON)
    assert response.status_code == 201, response.text
    assert response.json()[0]["content"] == "xy"
    assert response.json()[0]["metadata"] == {"k": "v"}
    refused = json.dumps({"messages": [{"peer_id": "a", "content": "\u003c|endoftext|>"}]})
    response = client.post(MESSAGES, content=refused.replace("<", "\\u003c").encode(), headers=JSON)
    assert response.status_code == 422, response.text
    assert "disallowed special token" in response.json()["detail"][0]["msg"]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, child in value.items() for s in (key, *_strings(child))]
    if isinstance(value, list):
        return [s for child in value for s in _strings(child)]
    return []


@settings(max_examples=300)
@given(value=JSON_VALUES, ascii_only=st.booleans(), nul=st.booleans(), special=st.booleans())
def test_what_the_raw_body_rules_out_no_decoded_string_holds(
    value: object, ascii_only: bool, nul: bool, special: bool
) -> None:
    tail = "\u0000" * nul + "<|endoftext|>" * special
    raw = json.dumps([value, tail], ensure_ascii=ascii_only).encode()
    facts = RawBody.of(raw)
    strings = _strings(json.loads(raw))
    assert facts.nul or not any("\x00" in s for s in strings)
    assert facts.special or not any("<|" in s for s in strings)
