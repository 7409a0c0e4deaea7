"""Real Honcho's search answers on generated corpora, replayed against the fake: 3.0.12
with embeddings off (``data/``), and 3.0.12 and 3.1 with them on (``data/<version>+embed/``).

``record.py`` wrote each corpus and what the real server answered for every query
(workspace, session and peer scope, filters, ``peer_perspective``, limits 1-100). The
fake must give the same hits in the same order. Where the server's plan read the
rows in physical table order (a bitmap scan, once its statistics know the workspace),
ties come back in an order no client can know (divergence ``search-tie-order``); there
the recorded answer must still be what the server's rules give for the recorded
physical order, and the fake's what they give for its own scan order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fidelity.search.corpora import DATA, fake_answers, read
from tests.fidelity.search.explain import EMBED_CORPORA, verdicts
from tests.fidelity.search.reference import answer, session_order

CORPORA = sorted(DATA.glob("corpus-*.json"))


def test_there_are_enough_recordings() -> None:
    sizes = [(len(made.messages()), len(queries)) for made, queries, _ in map(read, CORPORA)]
    assert len(sizes) >= 20 and all(messages >= 200 and count >= 100 for messages, count in sizes)


@pytest.mark.parametrize("path", CORPORA, ids=lambda path: path.stem)
def test_the_fake_answers_as_the_real_server_did(path: Path) -> None:
    made, queries, physical = read(path)
    by_session = session_order(made)
    wrong = []
    for query, got in zip(queries, fake_answers(made, queries), strict=True):
        if got == query.expected:
            continue
        read_physically = physical is not None and answer(made, query, physical) == query.expected
        if read_physically and answer(made, query, by_session) == got:
            continue
        wrong.append((query.scope, query.query, query.limit, query.filters, query.expected, got))
    assert wrong == []


def test_there_are_recordings_with_embeddings_on() -> None:
    """At least 450 queries over 3 corpora per version, from servers that embed."""
    versions = {path.parent.name for path in EMBED_CORPORA}
    assert versions >= {"3.0.12+embed", "3.1+embed"}
    for version in versions:
        counted = [len(read(path)[1]) for path in EMBED_CORPORA if path.parent.name == version]
        assert len(counted) >= 3 and sum(counted) >= 450, version


@pytest.mark.parametrize("path", EMBED_CORPORA, ids=lambda path: f"{path.parent.name}-{path.stem}")
def test_hybrid_search_answers_as_the_embedding_server_did(path: Path) -> None:
    """Same hits, same order: the shared embedder's distances are the server's, bit for
    bit, and the fusion is the server's arithmetic. Two kinds of tie are no client's to
    know, and each query where they part the answers is explained by its rule, naming the
    tied rows (``tests/fidelity/search/explain.py``; ``python -m
    tests.fidelity.search.explain`` prints every verdict): messages of identical text
    (``semantic-tie-order``), and full-text hits of equal rank and ``created_at`` read in
    physical order (``search-tie-order``)."""
    found = verdicts(path)
    assert [v.render() for v in found if not v.explained] == []
    assert sum(v.identical for v in found) >= len(found) // 2
