"""Hybrid search (embeddings on, Honcho's default): the semantic leg, its fusion with the
full-text leg, and what the server does around it (the query's 422, chunks, clones,
embeddings written after the answer). Real servers' answers: tests/fidelity/search."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_honcho import FakeHoncho
from fake_honcho.search.embedding import MAX_INPUT_TOKENS, HashedEmbedder
from fake_honcho.search.semantic import chunks, reciprocal_rank_fusion

W = "/v3/workspaces/ws"


def client_of(fake: FakeHoncho) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), base_url="http://fake")


def write(client: httpx.Client, sid: str, *items: tuple[str, str]) -> list[dict[str, Any]]:
    body = {"messages": [{"peer_id": peer, "content": text} for peer, text in items]}
    response = client.post(f"{W}/sessions/{sid}/messages", json=body)
    assert response.status_code == 201, response.text
    return list(response.json())


def search(client: httpx.Client, query: str, path: str = W, **body: Any) -> list[str]:
    response = client.post(f"{path}/search", json={"query": query, **body})
    assert response.status_code == 200, response.text
    return [message["content"] for message in response.json()]


def test_an_unrelated_query_still_answers_limit_messages_word_hits_first() -> None:
    with FakeHoncho() as fake, client_of(fake) as client:
        write(client, "s", ("a", "green tea is nice"), ("a", "bob hates rain"), ("b", "x y"))
        assert len(search(client, "zzzz", limit=2)) == 2
        assert search(client, "tea")[0] == "green tea is nice"
        assert search(client, "tea", f"{W}/peers/b") == ["x y"]  # the scope holds


def test_a_query_over_the_embedding_limit_is_refused_only_with_embeddings_on() -> None:
    long = "word " * (MAX_INPUT_TOKENS + 10)
    for embed, status in ((True, 422), (False, 200)):
        with FakeHoncho(embed_messages=embed) as fake, client_of(fake) as client:
            answer = client.post(f"{W}/search", json={"query": long})
            assert answer.status_code == status
            special = client.post(f"{W}/search", json={"query": "<|endoftext|>"})
            assert special.status_code == status
    assert answer.status_code == 200
    assert special.json() == []


def test_held_embeddings_keep_new_messages_to_full_text_until_released() -> None:
    with FakeHoncho(embedding_mode="held") as fake, client_of(fake) as client:
        write(client, "s", ("a", "I love pizza"), ("a", "tea time"))
        assert search(client, "zzzz") == []
        assert search(client, "tea") == ["tea time"]
        assert fake.embeddings is not None and fake.embeddings.pending == 2
        assert fake.embeddings.release() == 2 and fake.embeddings.pending == 0
        assert sorted(search(client, "zzzz")) == ["I love pizza", "tea time"]


def test_a_cloned_session_has_no_embeddings_as_on_the_server() -> None:
    with FakeHoncho() as fake, client_of(fake) as client:
        write(client, "s", ("a", "I love pizza"))
        clone = client.post(f"{W}/sessions/s/clone").json()["id"]
        assert search(client, "zzzz", f"{W}/sessions/{clone}") == []
        assert search(client, "pizza", f"{W}/sessions/{clone}") == ["I love pizza"]
        assert search(client, "zzzz", f"{W}/sessions/s") == ["I love pizza"]


def test_deleted_messages_leave_the_semantic_leg() -> None:
    with FakeHoncho() as fake, client_of(fake) as client:
        write(client, "gone", *[("a", f"gone message {n}") for n in range(3)])
        write(client, "kept", ("a", "kept message"))
        assert len(search(client, "zzzz")) == 4
        client.delete(f"{W}/sessions/gone")
        assert search(client, "zzzz") == ["kept message"]


def test_long_content_is_embedded_in_overlapping_windows() -> None:
    text = " ".join(f"w{n}" for n in range(20_000))
    pieces = chunks(text)
    assert len(pieces) > 1 and pieces[0].startswith("w0 ") and pieces[-1].endswith("w19999")
    assert pieces[1].split()[0] in pieces[0]  # 20% overlap
    assert chunks("short") == ["short"]


def test_fusion_sums_reciprocal_ranks_and_keeps_first_seen_order_on_ties() -> None:
    assert reciprocal_rank_fusion(["a", "b"], ["b", "a"], limit=2) == ["a", "b"]
    assert reciprocal_rank_fusion(["a", "b", "c"], ["c"], limit=3) == ["c", "a", "b"]
    assert reciprocal_rank_fusion(["a"], [], limit=0) == []


def test_peer_perspective_draws_four_times_the_limit_then_keeps_what_the_peer_saw() -> None:
    with FakeHoncho() as fake, client_of(fake) as client:
        write(client, "seen", ("bob", "hello"))
        write(client, "other", *[("carol", f"note {n}") for n in range(12)])
        found = search(client, "zzzz", limit=3, filters={"peer_perspective": "bob"})
        assert found == ["hello"]


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(alphabet="abc de", min_size=0, max_size=12), min_size=1, max_size=40),
    query=st.text(alphabet="abc de", min_size=1, max_size=8),
    limit=st.integers(1, 12),
)
def test_the_whole_scan_scores_pick_what_sorting_every_row_picks(
    texts: list[str], query: str, limit: int
) -> None:
    """The fast path (column scores, confirmed exactly) equals sorting every row."""
    with FakeHoncho() as fake, client_of(fake) as client:
        write(client, "s", *[("a", text) for text in texts if text.strip()] or [("a", "z")])
        embeddings = fake.embeddings
        assert embeddings is not None
        embeddings.release()
        space = embeddings._workspaces["ws"]
        target = HashedEmbedder().encode(query)
        fast = embeddings._nearest_rows(space, target, 2 * limit)
        every = embeddings._every_row_sorted(space, target, 2 * limit, None, None, None)
        assert fast is None or fast == every


@pytest.mark.parametrize("embed", [True, False])
def test_the_configuration_is_in_the_repr(embed: bool) -> None:
    with FakeHoncho(embed_messages=embed) as fake:
        assert f"embed_messages={'on' if embed else 'off'}" in repr(fake)


def test_the_deriver_merges_near_duplicates_keeping_the_one_that_says_more() -> None:
    """Honcho's ``is_rejected_duplicate``: within cosine distance 0.05, in one session,
    the conclusion with more (and more of its own) tokens stays, reinforced. With the
    hashed embedder only a repeat is that near; a model's vectors bring paraphrases."""

    def same_meaning(text: str) -> list[float]:  # every text about tea is one point
        return [1.0, 0.0] if "tea" in text else [0.0, 1.0]

    with FakeHoncho(embedder=same_meaning) as fake, client_of(fake) as client:
        write(client, "s", ("alice", "I like tea."), ("alice", "I like green tea a lot."))
        rows = fake.deriver.conclusions.of_pair("ws", "alice", "alice")
        assert [(row["content"], row["times_derived"]) for row in rows] == [
            ("alice likes green tea a lot", 2)
        ]
    with FakeHoncho() as fake, client_of(fake) as client:
        write(client, "s", ("alice", "I like tea."), ("alice", "I like green tea a lot."))
        assert len(fake.deriver.conclusions.of_pair("ws", "alice", "alice")) == 2


def test_a_served_fake_holds_embeddings_until_released_over_http() -> None:
    with (
        FakeHoncho(embedding_mode="held") as fake,
        fake.serve() as url,
        httpx.Client(base_url=url) as client,
    ):
        write(client, "s", ("a", "I love pizza"))
        assert search(client, "zzzz") == []
        status = client.get("/_fake/embeddings").json()
        assert status == {"embed_messages": True, "mode": "held", "pending": 1}
        assert client.post("/_fake/embeddings/release").json() == {"released": 1}
        assert search(client, "zzzz") == ["I love pizza"]


@pytest.mark.parametrize("flat", [10_000, 64])
def test_the_nearest_rows_index_keeps_every_row_up_to_the_cut(
    flat: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HashedRows against every row's exact distance: in one tier, and dealt into tiers
    (past ``_FLAT`` rows), with deleted rows, repeated texts, multi-word queries and a
    word few rows hold (their shared buckets raised one by one)."""
    import random

    from fake_honcho.search import nearest

    monkeypatch.setattr(nearest, "_FLAT", flat)
    rng = random.Random(3)
    words = [f"w{number}" for number in range(60)]
    texts = [
        " ".join(rng.choices(words, k=rng.choice((1, 2, 3, 5, 8, 13, 20, 40, 80))))
        for _ in range(3000)
    ]
    texts += texts[:30]  # identical vectors tie
    for at in range(0, len(texts), 250):  # a word few rows share, in every block
        texts[at] += " rare"
    embedder = HashedEmbedder()
    codes = [embedder.encode(text) for text in texts]
    rows = nearest.HashedRows()
    for code in codes:
        rows.add(code)
    dead = set(rng.sample(range(len(codes)), 40))
    for row in dead:
        rows.discard(row)
    queries = ["w1", "w2 w3", "w4 w5 w6 w7", "nothing shared", "none here", "rare", texts[5]]
    for query in queries:
        target = embedder.encode(query)
        exact = {
            row: embedder.distance(target, code)
            for row, code in enumerate(codes)
            if row not in dead
        }
        for wanted in (1, 7, 40, 200):
            got = rows.nearest(target, wanted)
            cut = sorted(exact.values())[wanted - 1]
            assert [row for row, _ in got] == sorted(row for row, _ in got)
            assert all(distance == exact[row] for row, distance in got)
            assert {row for row, distance in exact.items() if distance <= cut} <= dict(got).keys()
