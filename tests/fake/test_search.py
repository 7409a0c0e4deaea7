"""Search's full-text leg: ranking, the substring fallback, filters, limit and scope,
through the routes of a fake with embeddings off (``test_hybrid_search.py``: with them on)."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho
from fake_honcho.search import SearchIndex, has_special_chars
from fake_honcho.search.chars import pg_lower
from fake_honcho.search.index import _raise, _rank_single
from fake_honcho.search.rank import rank_single
from fake_honcho.store.state import Store

from .conftest import record_scans

W = "/v3/workspaces/ws"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    """Full text alone: a server with ``EMBED_MESSAGES=false``."""
    instance = FakeHoncho(strict=True, seed=7, embed_messages=False)
    yield instance
    instance.close()


def write(client: httpx.Client, sid: str, *items: tuple[str, str] | tuple[str, str, str]) -> None:
    messages = []
    for item in items:
        entry: dict[str, Any] = {"peer_id": item[0], "content": item[1]}
        if len(item) == 3:
            entry["created_at"] = item[2]
        messages.append(entry)
    response = client.post(f"{W}/sessions/{sid}/messages", json={"messages": messages})
    assert response.status_code == 201, response.text


def put_message(store: Store, seq: int, content: str, **fields: str) -> None:
    """Store message ``m<seq>`` of workspace ``ws`` with the fields the index reads."""
    row: dict[str, Any] = {
        "id": f"m{seq}",
        "content": content,
        "workspace_id": "ws",
        "created_at": "2024-01-01T00:00:00Z",
        "_seq": seq,
        **fields,
    }
    store.put("messages", row["id"], row)


def search(client: httpx.Client, query: str, path: str = W, **body: Any) -> list[str]:
    response = client.post(f"{path}/search", json={"query": query, **body})
    assert response.status_code == 200, response.text
    return [message["content"] for message in response.json()]


def test_term_frequency_ranks_first_then_recency(client: httpx.Client) -> None:
    write(
        client,
        "s",
        ("a", "tea tea tea", "2024-01-01T00:00:00Z"),
        ("a", "some tea", "2024-03-01T00:00:00Z"),
        ("a", "more tea", "2024-02-01T00:00:00Z"),
        ("a", "coffee only", "2024-04-01T00:00:00Z"),
    )
    assert search(client, "tea") == ["tea tea tea", "some tea", "more tea"]


def test_stop_words_are_ignored_and_words_are_stemmed_and_case_folded(client: httpx.Client) -> None:
    write(client, "s", ("a", "She HIKES every weekend"), ("a", "nothing here"))
    assert search(client, "the hiking") == ["She HIKES every weekend"]


def test_every_term_must_match(client: httpx.Client) -> None:
    write(client, "s", ("a", "green tea"), ("a", "green apple"), ("a", "black tea"))
    assert search(client, "green tea") == ["green tea"]


def test_plain_query_also_matches_substrings_below_term_hits(client: httpx.Client) -> None:
    """``OR content ILIKE '%tea%'``: 'steam' matches too, ranked after real term hits."""
    write(client, "s", ("a", "steam engine"), ("a", "hot tea"))
    assert search(client, "tea") == ["hot tea", "steam engine"]


def test_punctuation_switches_to_substring_newest_first(client: httpx.Client) -> None:
    write(
        client,
        "s",
        ("a", "is it great!", "2024-01-01T00:00:00Z"),
        ("a", "great", "2024-06-01T00:00:00Z"),
        ("a", "GREAT! really", "2024-03-01T00:00:00Z"),
    )
    assert search(client, "great!") == ["GREAT! really", "is it great!"]


def test_wildcards_in_the_query_are_literal(client: httpx.Client) -> None:
    """Honcho escapes ``%``, ``_`` and ``\\`` before ``ILIKE``: they match themselves."""
    write(client, "s", ("a", "peer-id here"), ("a", "peer_id there"), ("a", "100% sure"))
    assert search(client, "peer_id") == ["peer_id there"]
    assert search(client, "0%") == ["100% sure"]
    assert search(client, "%") == ["100% sure"]


def test_limit_and_filters_are_honoured(client: httpx.Client) -> None:
    write(client, "s", *(("alice" if i % 2 else "bob", f"tea number {i}") for i in range(30)))
    assert len(search(client, "tea")) == 10
    assert len(search(client, "tea", limit=25)) == 25
    from_alice = search(client, "tea", limit=100, filters={"peer_id": "alice"})
    assert len(from_alice) == 15 and all(int(text.split()[-1]) % 2 for text in from_alice)


def test_session_and_peer_scopes_override_filters(client: httpx.Client) -> None:
    write(client, "one", ("alice", "tea in one"), ("bob", "tea from bob"))
    write(client, "two", ("alice", "tea in two"))
    # One batch shares one created_at: the tie keeps the batch's order, as on the server.
    assert search(client, "tea", f"{W}/sessions/one", filters={"session_id": "two"}) == [
        "tea in one",
        "tea from bob",
    ]
    assert sorted(search(client, "tea", f"{W}/peers/alice")) == ["tea in one", "tea in two"]
    assert search(client, "tea", "/v3/workspaces/elsewhere") == []


def test_peer_perspective_sees_sessions_the_peer_was_in(client: httpx.Client) -> None:
    write(client, "joined", ("bob", "tea talk"))
    write(client, "other", ("bob", "tea elsewhere"))
    client.post(f"{W}/sessions/joined/peers", json={"carol": {}})
    write(client, "joined", ("bob", "tea after carol joined"))
    found = search(client, "tea", filters={"peer_perspective": "carol"})
    assert found == ["tea after carol joined"]


def test_deleted_sessions_are_not_found(client: httpx.Client) -> None:
    write(client, "gone", ("a", "secret tea"))
    write(client, "kept", ("a", "public tea"))
    client.delete(f"{W}/sessions/gone")
    assert search(client, "tea") == ["public tea"]
    assert search(client, "tea!") == []


def test_queries_use_the_index_not_a_scan(
    client: httpx.Client, fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once attached (by the first query), the index takes in new messages without a scan."""
    write(client, "s", ("a", "first"))
    assert search(client, "kettle") == []
    write(client, "s", *(("a", f"filler message {i}") for i in range(50)), ("a", "kettle, tea!"))
    scanned = record_scans(fake, monkeypatch)
    assert search(client, "kettle") == ["kettle, tea!"]
    assert search(client, "kettle, tea!") == ["kettle, tea!"]
    assert search(client, "unknownword") == []
    assert search(client, "the") == []  # stop words only: ILIKE over the workspace's messages
    assert "messages" not in scanned


ALPHABET = "ab _-!.%"


@settings(max_examples=150, deadline=None)
@given(
    contents=st.lists(st.text(alphabet="abcdeh !.-_", min_size=0, max_size=12), max_size=12),
    query=st.text(alphabet=ALPHABET + "cdeh", min_size=1, max_size=6),
)
def test_substring_search_equals_a_full_scan(contents: list[str], query: str) -> None:
    """The index narrows candidates but never loses a match of ``ILIKE '%query%'``."""
    store = Store()
    index = SearchIndex(store)
    for seq, content in enumerate(contents, start=1):
        put_message(store, seq, content)
    found = [row["id"] for row in index.search("ws", query, where=None, limit=100)]
    needle = pg_lower(query)
    matching = {f"m{i}" for i, c in enumerate(contents, start=1) if needle in pg_lower(c)}
    if has_special_chars(query):
        assert set(found) == matching and len(found) == len(matching)
    else:
        assert matching <= set(found)


@settings(max_examples=300, deadline=None)
@given(
    contents=st.lists(st.text(alphabet="abcAB x-", max_size=14), min_size=1, max_size=14),
    data=st.data(),
)
def test_the_ilike_leg_is_exactly_a_full_scan(contents: list[str], data: st.DataObject) -> None:
    """Narrowed by any of the query's runs (first, middle, last), confirmed on the text.

    Queries are mostly cut from a stored message (so they match), in another case."""
    store = Store()
    index = SearchIndex(store)
    for seq, content in enumerate(contents, start=1):
        put_message(store, seq, content)
    source = data.draw(st.sampled_from(contents))
    start = data.draw(st.integers(min_value=0, max_value=len(source)))
    end = data.draw(st.integers(min_value=start, max_value=len(source)))
    cut = source[start:end].swapcase() if data.draw(st.booleans()) else source[start:end]
    query = cut or data.draw(st.text(alphabet="abcAB x-", min_size=1, max_size=7))
    index.search("ws", query, where=None, limit=1)  # indexes the pending messages
    needle = pg_lower(query)
    expected = {seq for seq, c in enumerate(contents, start=1) if needle in pg_lower(c)}
    assert index._substring(index.workspaces["ws"], query) == expected


def test_messages_deleted_before_the_next_query_are_not_found(
    client: httpx.Client, fake: FakeHoncho
) -> None:
    """Writes only queue messages for indexing; a session deleted meanwhile leaves no trace."""
    assert search(client, "tea") == []
    write(client, "gone", ("a", "kettle tea"))
    write(client, "kept", ("a", "green tea"))
    client.delete(f"{W}/sessions/gone")
    assert search(client, "tea") == ["green tea"]
    assert search(client, "kettle") == []


def test_a_write_that_fills_the_pending_list_indexes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pending list is bounded, so the first query after a large load stays short."""
    monkeypatch.setattr("fake_honcho.search.index.PENDING_LIMIT", 20)
    store = Store()
    index = SearchIndex(store)

    put_message(store, 1, "kettle on the hob")  # 17 characters: still pending
    assert "ws" not in index.workspaces
    put_message(store, 2, "green tea")  # 26 in all: over the limit, so this write indexes both
    lexemes = index.workspaces["ws"].lexemes
    assert list(lexemes["kettl"].seqs) == [1] and list(lexemes["green"].seqs) == [2]
    put_message(store, 3, "oolong")
    assert "oolong" not in lexemes
    assert [row["id"] for row in index.search("ws", "oolong", where=None, limit=5)] == ["m3"]


@settings(max_examples=150, deadline=None)
@given(
    messages=st.lists(
        st.tuples(
            st.text(alphabet="abcdeh !.", max_size=12),
            st.sampled_from(["s1", "s2"]),
            st.sampled_from(["alice", "bob"]),
        ),
        max_size=12,
    ),
    query=st.text(alphabet="abcdeh !.", min_size=1, max_size=6),
    session=st.sampled_from([None, "s1", "s2"]),
    peer=st.sampled_from([None, "alice", "bob"]),
)
def test_a_session_search_finds_what_filtering_by_the_session_finds(
    messages: list[tuple[str, str, str]], query: str, session: str | None, peer: str | None
) -> None:
    """A session scope drops other sessions' hits early, with the same answer as a filter."""
    store = Store()
    index = SearchIndex(store)
    for seq, (content, sid, pid) in enumerate(messages, start=1):
        put_message(store, seq, content, session_id=sid, peer_id=pid)

    def by_peer(row: dict[str, Any]) -> bool:
        return peer in (None, row["peer_id"])

    def in_scope(row: dict[str, Any]) -> bool:
        return session in (None, row["session_id"]) and by_peer(row)

    scoped = index.search("ws", query, where=by_peer, limit=5, session_id=session)
    assert scoped == index.search("ws", query, where=in_scope, limit=5)


def _tied_messages(places: list[tuple[str, int, str]]) -> SearchIndex:
    """An index of messages (session, position, id) stored in the order given, with
    sequence numbers in that order, and keys that tie (one timestamp, few contents)."""
    store = Store()
    index = SearchIndex(store)
    for seq, (sid, position, mid) in enumerate(places, start=1):
        row: dict[str, Any] = {
            "id": mid,
            "content": "a tea" if int(mid[1:]) % 3 == 0 else "green tea",
            "workspace_id": "ws",
            "session_id": sid,
            "created_at": "2024-01-01T00:00:00Z",
            "_seq": seq,
            "_seq_in_session": position,
        }
        store.put("messages", mid, row)
    return index


@settings(max_examples=200, deadline=None)
@given(
    sessions=st.lists(st.sampled_from(["s1", "s2", "s3"]), min_size=1, max_size=30),
    query=st.sampled_from(["tea", "te", "green tea", "a"]),
)
def test_ties_come_in_the_plan_order_whether_or_not_writes_interleave_sessions(
    sessions: list[str], query: str
) -> None:
    """Written in any order, the rows reach the sort in (session, position) order, as
    when they were written in that order (where sequence order is that order)."""
    positions: dict[str, int] = {}
    places = []
    for number, sid in enumerate(sessions, start=1):
        positions[sid] = positions.get(sid, 0) + 1
        places.append((sid, positions[sid], f"m{number}"))
    written = _tied_messages(places)
    planned = _tied_messages(sorted(places))
    found = [row["id"] for row in written.search("ws", query, where=None, limit=4)]
    expected = [row["id"] for row in planned.search("ws", query, where=None, limit=4)]
    assert written.workspaces["ws"].in_plan_order == (sessions == sorted(sessions))
    assert planned.workspaces["ws"].in_plan_order
    assert found == expected


def test_rows_indexed_out_of_sequence_order_are_sorted_into_the_plan_order() -> None:
    """Sequence numbers need not follow the order rows reach the index (a replayed store)."""
    store = Store()
    index = SearchIndex(store)
    for seq, sid in ((3, "s1"), (2, "s2"), (1, "s3")):  # plan order is s1, s2, s3
        put_message(store, seq, "tea", session_id=sid, _seq_in_session=1)  # type: ignore[arg-type]
    assert [row["id"] for row in index.search("ws", "tea", where=None, limit=1)] == ["m3"]
    assert not index.workspaces["ws"].in_plan_order


@settings(max_examples=200, deadline=None)
@given(
    occurrences=st.lists(st.integers(min_value=1, max_value=40), max_size=60),
    seqs=st.lists(st.integers(min_value=1, max_value=40), unique=True, max_size=30),
)
def test_single_lexeme_keys_are_raised_by_each_rows_count_on_every_path(
    occurrences: list[int], seqs: list[int]
) -> None:
    """Few holders, many rows holding it, or a long posting: the same keys."""
    base = [1000 * seq for seq in seqs]
    expected = [1000 * seq + _raise(rank_single(occurrences.count(seq))) for seq in seqs]
    assert _rank_single(array("I", sorted(occurrences)), seqs, list(base)) == expected


def test_single_lexeme_raises_stay_right_when_another_search_grows_the_table_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table is shared by every fake of the process; a search on another thread (a
    served fake) may grow it between two steps of this one, here stood in for by a call
    from inside the first rank computed."""
    from fake_honcho.search import index

    monkeypatch.setattr(index, "_single_raise_table", [0])
    interleaved: list[list[int]] = []
    started: list[int] = []

    def rank_with_another_search(count: int) -> float:
        if not started:
            started.append(count)
            interleaved.append(index._single_raises(3))
        return rank_single(count)

    monkeypatch.setattr(index, "rank_single", rank_with_another_search)
    expected = [_raise(rank_single(count)) if count else 0 for count in range(6)]
    assert index._single_raises(5)[:6] == expected
    assert interleaved == [expected[:4]]
    assert index._single_raises(5)[:6] == expected
