"""JSON response bodies, byte for byte as Starlette's ``JSONResponse`` renders them.

Messages make up most of what the fake sends (a page of fifty is ~40 KB), so they
get a renderer of their own. The generic route, copying each row without its
internal keys and handing the lot to ``json``, pays for a dict per row and for
``json``'s character-by-character escaping of every content string. Stored rows
handed over as :class:`PublicRows` are instead rendered straight from the row: a
message row's fields go into a fixed layout, a content string that needs no escaping
(no quote, backslash or control character, which one ``bytes.translate`` finds out)
is taken as its UTF-8 bytes, the pieces are joined into the row's JSON, and the rows
into the body. Any other row, or a message with a value of an unexpected type, is
rendered the generic way, so the output never differs from ``JSONResponse``'s
(``tests/fake/test_wire.py`` holds the two against each other on generated rows).
Rows sent with a :class:`~fake_honcho.http.render_memo.RenderMemo` keep each row's JSON
there, so a message sent again costs a lookup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, final, overload

from starlette.responses import Response

from fake_honcho.http.render_memo import RenderMemo
from fake_honcho.store.state import Row

__all__ = ["JSONBody", "PublicRows", "dumps", "escaped", "plain", "public"]

# JSONResponse.render's options (ensure_ascii=False, allow_nan=False, compact), with
# json's C encoder built once rather than per call, and without the circular-reference
# bookkeeping: payloads are trees built from stored JSON rows.
_STANDARD = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_escape = json.encoder.encode_basestring  # the string encoding those options use
_ESCAPED = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def _build_encoder() -> Callable[[Any], str]:
    make = getattr(json.encoder, "c_make_encoder", None)  # the C accelerator, when built
    if make is None:  # pragma: no cover - Pythons without json's C accelerator
        return _STANDARD.encode
    chunks = make(None, _STANDARD.default, _escape, None, ":", ",", False, False, False)
    return lambda value: "".join(chunks(value, 0))


_encode = _build_encoder()

# Bytes a JSON string holds as they are: everything but '"', '\\' and controls (< 0x20).
# UTF-8 encodes every character above U+007F with bytes >= 0x80, all of them kept.
_VERBATIM = bytes(range(0x20, 0x100)).replace(b'"', b"").replace(b"\\", b"")

MESSAGE_FIELDS = (
    "id",
    "content",
    "peer_id",
    "session_id",
    "workspace_id",
    "metadata",
    "created_at",
    "token_count",
)


def public(row: Row) -> Row:
    """A row without its internal (``_``-prefixed) keys."""
    return {key: value for key, value in row.items() if key[:1] != "_"}


@final
class PublicRows(Sequence[Row]):
    """Stored rows to send without their internal keys, rendered from the rows themselves.

    Use it as a response payload or as a value of a payload dict (a page's ``items``);
    :func:`plain` turns it into the list of :func:`public` rows it stands for. Stored
    message rows pass ``memo=render_memo(store)`` to reuse and keep their JSON.
    """

    __slots__ = ("memo", "rows")

    def __init__(self, rows: Iterable[Row], *, memo: RenderMemo | None = None) -> None:
        self.rows = list(rows)
        self.memo = memo

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | Sequence[Row]:
        return self.rows[index]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __repr__(self) -> str:
        return f"PublicRows({len(self.rows)} rows)"


def plain(value: Any) -> Any:
    """``value`` with each :class:`PublicRows` in it replaced by its list of public rows."""
    if type(value) is PublicRows:
        return [public(row) for row in value.rows]
    if isinstance(value, dict) and _holds_rows(value):
        return {key: plain(item) for key, item in value.items()}
    return value


def _holds_rows(value: dict[Any, Any]) -> bool:
    # Exact type checks: isinstance against an ABC subclass is several times slower.
    return PublicRows in map(type, value.values())


def dumps(value: Any) -> bytes:
    """``value`` as ``JSONResponse`` renders ``plain(value)``, without building that copy.

    A lone surrogate (JSON allows ``"\\ud800"``) has no UTF-8 form, so a payload holding
    one, which ``JSONResponse`` cannot render at all, is sent with ASCII escapes.
    """
    parts: list[bytes] = []
    try:
        if type(value) is dict and not _holds_rows(value):  # most answers: one encoder call
            return _encode(value).encode()
        _write(value, parts)
    except UnicodeEncodeError:
        return _ESCAPED.encode(plain(value)).encode()
    return b"".join(parts)


def _write(value: Any, parts: list[bytes]) -> None:
    """Append ``value``'s JSON to ``parts``, for one join at the end (no string per level)."""
    if type(value) is PublicRows:
        _write_rows(value.rows, parts, value.memo)
    elif type(value) is dict and _holds_rows(value) and all(type(key) is str for key in value):
        separator = b"{"
        others: dict[str, Any] = {}  # a run of values without rows, encoded at once
        for key, item in value.items():
            if type(item) is not PublicRows and type(item) is not dict:
                others[key] = item
                continue
            if others:
                parts.append(separator + _encode(others)[1:-1].encode())
                separator, others = b",", {}
            parts.append(separator + _escape(key).encode() + b":")
            _write(item, parts)
            separator = b","
        parts.append(separator + _encode(others)[1:-1].encode() + b"}" if others else b"}")
    else:
        parts.append(_encode(value).encode())


def _write_rows(rows: list[Row], parts: list[bytes], memo: RenderMemo | None) -> None:
    if not rows:
        parts.append(b"[]")
        return
    kept = memo.rendered(rows) if memo is not None else [None] * len(rows)
    if None not in kept:  # every row's JSON kept: the rows between commas, for dumps' join
        pieces: list[Any] = [b","] * (2 * len(kept) + 1)
        pieces[0], pieces[-1] = b"[", b"]"
        pieces[1::2] = kept
        parts += pieces
        return
    repeated: dict[Any, tuple[bytes, bytes]] = {}  # rendered parts that recur row after row
    fresh: list[tuple[Row, bytes]] = []  # message rows rendered now, for the memo
    separator = b"["
    for row, rendered in zip(rows, kept, strict=True):
        if rendered is None:
            rendered = _message_json(row, repeated) if _is_message(row) else None
            if rendered is None:
                rendered = _encode(public(row)).encode()
            else:
                fresh.append((row, rendered))
        parts += (separator, rendered)
        separator = b","
    parts.append(b"]")
    if memo is not None and fresh:
        memo.keep(fresh)


def _is_message(row: Row) -> bool:
    """Whether ``row``'s keys are a message's, in :data:`MESSAGE_FIELDS` order."""
    keys = tuple(row)
    is_message = _layouts.get(keys)
    return _learn_layout(keys) if is_message is None else is_message


_layouts: dict[tuple[Any, ...], bool] = {}
"""Row key sequences seen, and whether they are a message's (a handful in practice)."""


def _learn_layout(keys: tuple[Any, ...]) -> bool:
    """Whether a row with these keys, in this order, renders as :data:`MESSAGE_FIELDS`."""
    fields = len(MESSAGE_FIELDS)
    is_message = keys[:fields] == MESSAGE_FIELDS and all(
        type(key) is str and key.startswith("_") for key in keys[fields:]
    )
    if len(_layouts) < 64:
        _layouts[keys] = is_message
    return is_message


def _message_json(row: Row, repeated: dict[Any, tuple[bytes, bytes]]) -> bytes | None:
    """A message row's JSON; None if a value has another type (the generic way renders it)."""
    content, metadata, token_count = row["content"], row["metadata"], row["token_count"]
    if type(content) is not str or type(token_count) is not int:
        return None
    # Messages of one batch share author, session, workspace and timestamp: the parts
    # of the row around its metadata are rendered once per response.
    shared = (row["peer_id"], row["session_id"], row["workspace_id"], row["created_at"])
    try:
        around = repeated.get(shared)
        if around is None:
            peer, session, workspace, created = shared
            around = repeated[shared] = (
                b'","peer_id":%b,"session_id":%b,"workspace_id":%b,"metadata":'
                % (_escape(peer).encode(), _escape(session).encode(), _escape(workspace).encode()),
                b',"created_at":%b,"token_count":' % _escape(created).encode(),
            )
        head = b'{"id":%b,"content":"' % _escape(row["id"]).encode()
    except TypeError:  # an unhashable or non-string id; json refuses other values
        return None
    meta = b"{}" if not metadata and isinstance(metadata, dict) else _encode(metadata).encode()
    before, after = around
    return b"".join((head, escaped(content.encode()), before, meta, after, b"%d}" % token_count))


def escaped(text: bytes) -> bytes:
    """UTF-8 text with JSON's escapes, as ``_escape`` writes them (no quotes around).

    Only ASCII bytes ever need escaping, and no byte of a multi-byte UTF-8 character
    is ASCII, so each special byte present is replaced on its own (backslashes first,
    as the other escapes add some).
    """
    specials = text.translate(None, _VERBATIM)
    if not specials:
        return text
    found = set(specials)
    if _BACKSLASH in found:
        text = text.replace(b"\\", b"\\\\")
        found.discard(_BACKSLASH)
    for byte in found:
        text = text.replace(bytes((byte,)), _ESCAPES[byte])
    return text


_BACKSLASH = ord("\\")
_ESCAPES = {byte: b"\\u%04x" % byte for byte in range(0x20)} | {
    ord('"'): b'\\"',
    ord("\b"): b"\\b",
    ord("\f"): b"\\f",
    ord("\n"): b"\\n",
    ord("\r"): b"\\r",
    ord("\t"): b"\\t",
}


class JSONBody(Response):
    """``JSONResponse`` that renders with :func:`dumps` (so it also takes :class:`PublicRows`).

    Its headers are ``JSONResponse``'s, ``content-length`` then ``content-type``, set
    directly rather than through ``Response.init_headers``' general case.
    """

    media_type = "application/json"

    def __init__(self, content: Any, status_code: int = 200) -> None:
        if status_code < 200 or status_code in (204, 304):  # no content-length for these
            super().__init__(content, status_code)
            return
        self.status_code = status_code
        self.background = None
        self.body = body = dumps(content)
        self.raw_headers = [(b"content-length", b"%d" % len(body)), _JSON_CONTENT_TYPE]

    def render(self, content: Any) -> bytes:
        return dumps(content)


_JSON_CONTENT_TYPE = (b"content-type", b"application/json")
